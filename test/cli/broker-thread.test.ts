import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, describe, it } from 'node:test';
import { BROKER_SEMI_SPACE_MB, BROKER_THREAD_RESOURCE_LIMITS } from '../../src/server/broker-heap.js';
import { waitFor } from '../consumer/helpers.js';
import { killAll, startCli } from './run-cli.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

after(killAll);

describe('server commands run their brokers in a broker-sized worker thread', () => {
  it('a young generation of three semi-spaces of BROKER_SEMI_SPACE_MB', () => {
    assert.equal(BROKER_THREAD_RESOURCE_LIMITS.maxYoungGenerationSizeMb, 3 * BROKER_SEMI_SPACE_MB);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`cluster: serves from the worker and stops cleanly on ${signal} relayed by the main thread`, async () => {
      let stdout = '';
      let stderr = '';
      const { child, done } = startCli(['cluster', '--brokers', '1', '--namesrv-port', '0', '--verbose']);
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      await waitFor(
        () => /^broker-a 127\.0\.0\.1:\d+$/m.test(stdout),
        'the broker line',
        CHILD_SAFETY_LIMIT_MS,
      );
      assert.match(
        stderr,
        new RegExp(
          `brokers run in a worker thread with a ${3 * BROKER_SEMI_SPACE_MB} MiB V8 young generation`,
        ),
      );
      child.kill(signal);
      const finished = await done;
      assert.equal(finished.code, 0, finished.stderr);
    });
  }

  it('broker: a bad flag is reported from the worker with the usage exit code', async () => {
    const { done } = startCli([
      'broker',
      '--namesrv',
      '127.0.0.1:1',
      '--data-dir',
      '/tmp/x',
      '--flush',
      'never',
    ]);
    const finished = await done;
    assert.equal(finished.code, 2);
    assert.match(finished.stderr, /^error: --flush: must be sync or async, got never$/m);
    assert.equal(finished.stdout, '');
  });

  it('SIGKILL of the pid that was started ends the brokers too (one process, no re-spawned child)', async () => {
    let stdout = '';
    const { child, done } = startCli(['cluster', '--brokers', '1', '--namesrv-port', '0', '--json']);
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    await waitFor(() => stdout.includes('"brokers"'), 'the JSON line', CHILD_SAFETY_LIMIT_MS);
    const { namesrv } = JSON.parse(stdout) as { namesrv: string };
    child.kill('SIGKILL');
    await done;
    const port = Number(namesrv.split(':')[1]);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    assert.equal(refused, true, 'the NameServer port still accepts connections after SIGKILL');
  });
});
