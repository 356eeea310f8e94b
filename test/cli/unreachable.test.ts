/**
 * What a newcomer sees when `--namesrv` (or `--broker`) points at the wrong place: a NameServer
 * that is down, an HTTP server, a broker instead of a NameServer, a broker without fault
 * injection. Each is one error line naming the likely cause, and a non-zero exit.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { assertOneLineError, closedPort, killAll, runCli } from './run-cli.js';

test.after(killAll);

/** Every command, send's route lookup included, fails with the NameServer's error, not a missing topic. */
const DOWN = /^error \[ERR_NAMESRV_UNREACHABLE\]: cannot reach the NameServer at 127\.0\.0\.1:\d+/;

test('every command that needs a NameServer says it cannot reach one that is down and exits 1', async () => {
  const addr = `127.0.0.1:${await closedPort()}`;
  const runs: string[][] = [
    ['consume', '--namesrv', addr, '--topic', 'T', '--duration', '1m'],
    ['consume', '--namesrv', addr, '--topic', 'T', '--mode', 'pull', '--duration', '1m'],
    ['consume', '--namesrv', addr, '--topic', 'T', '--mode', 'pop', '--duration', '1m'],
    ['send', '--namesrv', addr, '--topic', 'T'],
    ['admin', 'clusterList', '-n', addr],
    ['admin', 'topicRoute', '-n', addr, '-t', 'T'],
    ['admin', 'producerConnection', '-n', addr, '-g', 'G', '-t', 'T'],
    ['cluster-info', '--namesrv', addr],
    ['route', '--namesrv', addr, '--topic', 'T'],
    ['topic', 'create', '--namesrv', addr, '--topic', 'T'],
  ];
  for (const args of runs) {
    const r = await runCli(args);
    assertOneLineError(r, 1, DOWN);
    assert.doesNotMatch(r.stderr, /broker .* is unavailable/, args.join(' '));
    assert.match(r.stderr, /Is a NameServer listening at/, args.join(' '));
  }
  // bench prints its header first; it must still stop at once instead of running a minute of errors
  const bench = await runCli(['bench', '--namesrv', addr, '--duration', '1m']);
  assert.equal(bench.code, 1, bench.stderr);
  assert.match(bench.stderr, /^error \[ERR_NAMESRV_UNREACHABLE\]: cannot reach the NameServer at/m);
  assert.doesNotMatch(bench.stdout, /errors:/);
});

test('a NameServer address that is an HTTP server is said not to speak the RocketMQ protocol', async () => {
  const http: Server = createServer((_req, res) => res.end('hello'));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;
  try {
    const r = await runCli(['admin', 'clusterList', '-n', `127.0.0.1:${port}`]);
    assertOneLineError(
      r,
      1,
      new RegExp(
        `^error \\[ERR_PROTOCOL\\]: the peer at 127\\.0\\.0\\.1:${port} does not speak the RocketMQ protocol \\(it answered like an HTTP server\\)`,
      ),
    );
    assert.doesNotMatch(r.stderr, /exceeds the maximum/);
  } finally {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
});

test('a broker given as the NameServer, and fault against a broker without fault injection, name the mistake', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  try {
    const broker = cluster.brokers[0]!.addr;
    const notNamesrv = new RegExp(`${broker.replace(/\./g, '\\.')} looks like a broker, not a NameServer`);
    for (const args of [
      ['admin', 'clusterList', '-n', broker],
      ['admin', 'topicList', '-n', broker],
      ['send', '--namesrv', broker, '--topic', 'T'],
      ['consume', '--namesrv', broker, '--topic', 'T', '--duration', '1m'],
    ]) {
      const r = await runCli(args);
      assertOneLineError(r, 1, notNamesrv);
      assert.doesNotMatch(r.stderr, /request type 10[56] not supported/, args.join(' '));
    }
    const fault = await runCli(['fault', '--broker', broker, '--latency', '5']);
    assertOneLineError(
      fault,
      1,
      new RegExp(`the broker at ${broker.replace(/\./g, '\\.')} was started without fault injection`),
    );
    assert.doesNotMatch(fault.stderr, /9901 not supported/);
  } finally {
    await cluster.stop();
  }
});
