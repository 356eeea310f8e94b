/** `rocketmq-ts exporter`: serves /metrics of a running cluster until SIGTERM; its bad flags. */
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { EXPOSITION_CONTENT_TYPE } from '../../src/exporter/exposition.js';
import { samples } from '../exporter/scrape.js';
import { assertOneLineError, killAll, runCli, startCli } from './run-cli.js';

after(killAll);

function urlOf(child: ReturnType<typeof startCli>['child']): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /exporter: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('close', () => reject(new Error(`exited before serving: ${out}`)));
  });
}

test('rocketmq-ts exporter serves /metrics of a running cluster and stops cleanly on SIGTERM', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  try {
    const cli = startCli(['exporter', '--namesrv', cluster.namesrvAddr, '--port', '0']);
    const url = await urlOf(cli.child);
    const r = await fetch(url);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), EXPOSITION_CONTENT_TYPE);
    const tps = samples(await r.text(), 'rocketmq_broker_tps');
    assert.deepEqual(
      tps.map((s) => s.labels['brokerIP']),
      [cluster.brokers[0]!.addr],
    );
    cli.child.kill('SIGTERM');
    const done = await cli.done;
    assert.equal(done.code, 0, done.stderr);
    await assert.rejects(fetch(url));
  } finally {
    await cluster.stop();
  }
});

test('exporter bad flags: a missing NameServer, a bad port, a bad timeout', async () => {
  assertOneLineError(await runCli(['exporter'], { NAMESRV_ADDR: '' }), 2, /--namesrv: is required/);
  assertOneLineError(
    await runCli(['exporter', '--namesrv', '127.0.0.1:9876', '--port', '99999']),
    2,
    /--port: must be a port number/,
  );
  assertOneLineError(
    await runCli(['exporter', '--namesrv', '127.0.0.1:9876', '--broker-timeout', 'soon']),
    2,
    /--broker-timeout/,
  );
});
