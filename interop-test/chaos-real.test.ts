/**
 * The chaos run against a real Apache RocketMQ 4.9.7 cluster: our producers and consumer groups
 * (concurrent and orderly) under load while real broker processes are SIGKILLed (and started
 * again from their /proc command line) and SIGSTOPped, held to the same invariants as on the
 * embedded broker: 0 lost, byte-identical, queue order, every send settled in time.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chaosSummary } from '../src/cli/commands/chaos.js';
import { runChaos, type ChaosResult } from '../src/cli/chaos/run.js';
import { isAlive } from '../src/cli/chaos/processes.js';
import { RealCluster } from './real-cluster.js';

describe('chaos run on a real 4.9.7 cluster', () => {
  let cluster: RealCluster | undefined;
  let result: ChaosResult | undefined;
  before(async () => {
    cluster = await RealCluster.start({ version: '4.9.7', brokers: ['broker-a', 'broker-b'] });
  });
  after(async () => {
    // brokers started again by the run are not the harness's children: end them by PID
    const original = new Set(cluster?.brokers.map((b) => b.pid));
    for (const pid of result?.brokerPids ?? []) {
      if (original.has(pid) || !isAlive(pid)) continue;
      process.kill(pid, 'SIGKILL');
    }
    await cluster?.stop();
  });

  it('one minute of SIGKILL and SIGSTOP of real brokers: 0 lost, intact, in order, sends settled', async (t) => {
    const c = cluster!;
    const pids = c.brokers.map((b) => b.pid!);
    result = await runChaos({
      durationMs: 60_000,
      seed: 4_909_700,
      ratePerSec: 100,
      producers: 2,
      consumers: 3,
      orderlyConsumers: 2,
      brokers: 0,
      sendTimeoutMs: 3000,
      memoryBoundMiB: 512,
      namesrv: c.namesrvAddr,
      brokerPids: pids,
    });
    const v = result.verification;
    for (const line of chaosSummary(result)) t.diagnostic(line);
    const kinds = new Set(result.faults.map((f) => f.kind));
    assert.ok(kinds.has('broker-kill') && kinds.has('broker-pause'), [...kinds].join(', '));
    assert.ok(
      result.events.some((e) => /^end fault \d+ broker-kill/.test(e.text)),
      'a killed broker was started again',
    );
    const log = result.events.map((e) => `${e.atMs} ${e.text}`).join('\n');
    assert.ok(!/failed:/.test(log), `a fault step failed:\n${log}`);
    assert.deepEqual(v.violations, [], `seed ${result.seed}\n${log}`);
    assert.ok(v.acknowledged > 1000, `only ${v.acknowledged} acknowledged`);
    for (const g of v.groups) assert.equal(g.lost, 0);
  });
});
