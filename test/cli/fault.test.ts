import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { isDiskFull } from '../../src/server/store/fault-injection.js';
import { killAll, runCli } from './run-cli.js';

test.after(killAll);

test('fault sends the fault its flags describe and --clear removes it', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1, faultInjection: true });
  try {
    const broker = cluster.brokers[0]!.addr;
    const set = await runCli([
      'fault',
      '--broker',
      broker,
      '--latency',
      '5-10',
      '--error-code',
      '2',
      '--error-rate',
      '0.5',
      '--hang',
      '--codes',
      '10,310',
      '--duration',
      '60000',
    ]);
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout), {
      latencyMs: [5, 10],
      errorCode: 2,
      errorRate: 0.5,
      hang: true,
      requestCodes: [10, 310],
      durationMs: 60000,
    });
    const full = await runCli(['fault', '--broker', broker, '--disk-full']);
    assert.equal(full.code, 0, full.stderr);
    assert.deepEqual(JSON.parse(full.stdout), { diskFull: true });
    assert.ok(isDiskFull(cluster.broker('broker-a').options.storePathRootDir));
    const cleared = await runCli(['fault', '--broker', broker, '--clear']);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.deepEqual(JSON.parse(cleared.stdout), {});
    assert.ok(!isDiskFull(cluster.broker('broker-a').options.storePathRootDir));
  } finally {
    await cluster.stop();
  }
});
