import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildChaosSchedule, CLUSTER_FAULT_KINDS } from '../../../src/cli/chaos/schedule.js';

const BROKERS = ['broker-a', 'broker-b', 'broker-c'];
const CONSUMERS = ['consumer 1', 'consumer 2', 'orderly 1'];

describe('chaos schedule', () => {
  it('is a pure function of the seed: the same seed replays the same faults, another seed differs', () => {
    const a = buildChaosSchedule({ durationMs: 60_000, seed: 42, brokers: BROKERS, consumers: CONSUMERS });
    const b = buildChaosSchedule({ durationMs: 60_000, seed: 42, brokers: BROKERS, consumers: CONSUMERS });
    const c = buildChaosSchedule({ durationMs: 60_000, seed: 43, brokers: BROKERS, consumers: CONSUMERS });
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  it('a 60 s run injects every cluster fault kind once, one at a time, inside the run, and kills consumers', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const s = buildChaosSchedule({ durationMs: 60_000, seed, brokers: BROKERS, consumers: CONSUMERS });
      const cluster = s.filter((f) => f.kind !== 'consumer-kill');
      assert.deepEqual(
        [...new Set(cluster.map((f) => f.kind))].sort(),
        [...CLUSTER_FAULT_KINDS].sort(),
        `seed ${seed}`,
      );
      for (let i = 1; i < cluster.length; i++)
        assert.ok(cluster[i]!.startMs > cluster[i - 1]!.endMs, `seed ${seed}: cluster faults overlap`);
      for (const f of s) {
        assert.ok(
          f.startMs >= 4_800 && f.endMs <= 52_800 && f.endMs > f.startMs,
          `seed ${seed}: ${JSON.stringify(f)}`,
        );
        if (f.kind === 'namesrv-restart') assert.equal(f.target, 'namesrv');
        else if (f.kind === 'consumer-kill') assert.ok(CONSUMERS.includes(f.target));
        else assert.ok(BROKERS.includes(f.target));
      }
      assert.ok(
        s.some((f) => f.kind === 'consumer-kill'),
        `seed ${seed}: no consumer kill`,
      );
      assert.deepEqual(
        s.map((f) => f.id),
        s.map((_, i) => i + 1),
      );
    }
  });

  it('uses only the kinds the cluster supports (a real cluster: kill and pause)', () => {
    const s = buildChaosSchedule({
      durationMs: 300_000,
      seed: 9,
      brokers: ['broker 1 (pid 10)'],
      consumers: [],
      kinds: ['broker-kill', 'broker-pause'],
    });
    assert.ok(s.length >= 10);
    assert.deepEqual([...new Set(s.map((f) => f.kind))].sort(), ['broker-kill', 'broker-pause']);
  });

  it('rejects a non-positive duration', () => {
    assert.throws(
      () => buildChaosSchedule({ durationMs: 0, seed: 1, brokers: BROKERS, consumers: [] }),
      RangeError,
    );
  });
});
