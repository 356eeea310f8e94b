/**
 * The dashboard from the CLI: `dashboard` serving a cluster until SIGTERM, its bad flags, and
 * `demo --dashboard` showing the demo's producer on the producer health page while it runs.
 */
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { until } from '../dashboard/fixture.js';
import { assertOneLineError, killAll, runCli, startCli } from './run-cli.js';

after(killAll);

/** Resolves with the dashboard URL once the child prints it. */
function urlOf(child: ReturnType<typeof startCli>['child']): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /dashboard: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('close', () => reject(new Error(`exited before serving: ${out}`)));
  });
}

test('rocketmq-ts dashboard serves the cluster page of a running cluster until SIGTERM', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  try {
    const cli = startCli(['dashboard', '--namesrv', cluster.namesrvAddr, '--port', '0']);
    const url = await urlOf(cli.child);
    const html = await (await fetch(`${url}cluster`)).text();
    assert.match(html, new RegExp(`data-key="${cluster.brokers[0]!.addr}"`));
    cli.child.kill('SIGTERM');
    const done = await cli.done;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stderr, '', 'no warning on loopback');
  } finally {
    await cluster.stop();
  }
});

test('dashboard bad flags: a missing NameServer, a user without password, a bad port', async () => {
  assertOneLineError(await runCli(['dashboard'], { NAMESRV_ADDR: '' }), 2, /--namesrv: is required/);
  assertOneLineError(
    await runCli(['dashboard', '--namesrv', '127.0.0.1:9876', '--user', 'ops'], {
      ROCKETMQ_DASHBOARD_PASSWORD: '',
    }),
    2,
    /--password: give both --user and --password/,
  );
  assertOneLineError(
    await runCli(['dashboard', '--namesrv', '127.0.0.1:9876', '--port', '99999']),
    2,
    /--port: must be a port number/,
  );
});

test('demo --dashboard shows the demo producer on the producer health page while it runs', async () => {
  const cli = startCli(['demo', '--duration', '6s', '--rate', '50', '--dashboard', '--dashboard-port', '0']);
  const url = await urlOf(cli.child);
  // the strategy knows a broker once the demo has sent to it, a moment after the start
  await until(async () => {
    const html = await (await fetch(`${url}producers`)).text();
    return ['a', 'b', 'c'].every((x) => html.includes(`data-key="adaptive/broker-${x}"`));
  }, 'the three brokers of the demo producer on the page');
  const done = await cli.done;
  assert.equal(done.code, 0, done.stderr);
  // the dashboard closed with the run
  await assert.rejects(fetch(`${url}producers`));
});

test('dashboard limit flags: out-of-range values are refused naming the flag', async () => {
  const base = ['dashboard', '--namesrv', '127.0.0.1:9876', '--port', '0'];
  assertOneLineError(
    await runCli([...base, '--max-live-views', '0']),
    2,
    /--max-live-views: must be an integer in 1\.\.10000/,
  );
  assertOneLineError(
    await runCli([...base, '--max-live-streams', 'many']),
    2,
    /--max-live-streams: must be an integer/,
  );
  assertOneLineError(
    await runCli([...base, '--auth-max-failures', '1001']),
    2,
    /--auth-max-failures: must be an integer in 1\.\.1000/,
  );
  assertOneLineError(
    await runCli([...base, '--auth-lockout', '16m']),
    2,
    /--auth-lockout: must be 1ms\.\.15m/,
  );
});

test('dashboard limit flags reach the dashboard: one more live stream than --max-live-streams is answered 429', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  const streams: AbortController[] = [];
  try {
    const cli = startCli([
      'dashboard',
      '--namesrv',
      cluster.namesrvAddr,
      '--port',
      '0',
      '--max-live-streams',
      '1',
    ]);
    const url = await urlOf(cli.child);
    const first = new AbortController();
    streams.push(first);
    const open = await fetch(`${url}events?view=topic&name=a`, { signal: first.signal });
    assert.equal(open.status, 200);
    const second = await fetch(`${url}events?view=topic&name=a`);
    assert.equal(second.status, 429);
    await second.body?.cancel();
    first.abort();
    cli.child.kill('SIGTERM');
    assert.equal((await cli.done).code, 0);
  } finally {
    for (const s of streams) s.abort();
    await cluster.stop();
  }
});
