import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RunRecorder, shareGap, starvation, timeToRecover } from '../../src/cli/demo/recorder.js';
import { buildSchedule, phaseIndexAt } from '../../src/cli/demo/schedule.js';

const BROKERS = ['broker-a', 'broker-b', 'broker-c'];

/**
 * Simulates a run at 100 acks/s: brokers share traffic evenly, except that broker-b gets nothing
 * from `outageFrom` until `returnAt` and its acks take `slowMs`.
 */
function simulate(outageFrom: number, returnAt: number, durationMs: number): RunRecorder {
  const phases = buildSchedule(durationMs, 'broker-b');
  const rec = new RunRecorder(BROKERS, phases.length, { bucketMs: 250 });
  let n = 0;
  for (let t = 0; t < durationMs; t += 10) {
    rec.setPhase(phaseIndexAt(phases, t));
    let broker = BROKERS[n++ % 3]!;
    if (broker === 'broker-b' && t >= outageFrom && t < returnAt) broker = 'broker-a';
    rec.recordAck(broker, broker === 'broker-b' ? 20 : 2, t);
    if (t % 1000 === 0) rec.recordFailure(3000, t);
  }
  rec.finish(durationMs);
  return rec;
}

test('phase statistics count acks, failures, percentiles and each broker share per phase', () => {
  const duration = 10_000;
  const phases = buildSchedule(duration, 'broker-b');
  const rec = simulate(phases[1]!.startMs, phases[1]!.endMs, duration);
  const stats = rec.phaseStats(phases);
  assert.equal(stats.length, phases.length);
  const total = stats.reduce((s, p) => s + p.acked, 0);
  assert.equal(total, rec.totalAcked);
  assert.equal(total, duration / 10);
  assert.equal(
    stats.reduce((s, p) => s + p.failed, 0),
    duration / 1000,
  );
  const warmup = stats[0]!;
  assert.ok(Math.abs(warmup.brokers['broker-b']!.share - 1 / 3) < 0.02);
  assert.ok(Math.abs(warmup.p99 - 20) < 0.3, `warm-up p99 ${warmup.p99}`);
  assert.ok(Math.abs(warmup.p50 - 2) < 0.03);
  const outage = stats[1]!;
  assert.equal(outage.brokers['broker-b']!.acked, 0);
  assert.equal(outage.brokers['broker-b']!.share, 0);
  assert.ok(Number.isNaN(outage.brokers['broker-b']!.p99));
  assert.ok(Math.abs(outage.brokers['broker-a']!.share - 2 / 3) < 0.02);
  const shares = Object.values(outage.brokers).reduce((s, b) => s + b.share, 0);
  assert.ok(Math.abs(shares - 1) < 1e-9);
});

test('the timeline has one bucket per interval with per-broker counts', () => {
  const rec = simulate(2000, 4000, 5000);
  const timeline = rec.timeline();
  assert.equal(timeline.length, 20);
  timeline.forEach((b, i) => assert.equal(b.tMs, i * 250));
  assert.equal(
    timeline.reduce((s, b) => s + b.acked, 0),
    500,
  );
  const during = timeline.find((b) => b.tMs === 3000)!;
  assert.equal(during.perBroker['broker-b'], 0);
  assert.equal(during.acked, 25);
});

test('timeToRecover measures from the end of a fault until the broker gets half its fair share', () => {
  const rec = simulate(2000, 4000, 8000);
  const timeline = rec.timeline();
  // traffic returns at 4000: the first bucket after it already holds a full share
  assert.equal(timeToRecover(timeline, 'broker-b', 4000, 3), 250);
  // asking from 3000 (still out): the 1 s window ending at 4500 holds half a window of full
  // share (1/6 of the traffic), exactly half the fair share
  assert.equal(timeToRecover(timeline, 'broker-b', 3000, 3), 1500);
  // never recovers within the limit
  assert.equal(timeToRecover(timeline, 'broker-b', 2000, 3, { untilMs: 3500 }), undefined);
  // a broker that never gets anything
  assert.equal(timeToRecover(timeline, 'broker-z', 0, 3), undefined);
  assert.equal(timeToRecover([], 'broker-b', 0, 3), undefined);
});

test('the live view reports rates over the last second of buckets and p99 of the last window', () => {
  const rec = new RunRecorder(BROKERS, 1, { liveWindowMs: 1000, bucketMs: 250 });
  for (let t = 0; t < 1000; t += 10) rec.recordAck(t % 20 === 0 ? 'broker-a' : 'broker-c', 5, t);
  rec.advance(1000);
  const live = rec.live();
  assert.deepEqual(
    live.map((b) => b.name),
    BROKERS,
  );
  assert.equal(Math.round(live[0]!.sendsPerSec), 50);
  assert.equal(live[1]!.sendsPerSec, 0);
  assert.equal(live[2]!.share, 0.5);
  assert.ok(Math.abs(live[2]!.p99 - 5) < 0.05);
});

test('starvation adds up recovery time during which the repaired broker got under half its fair share', () => {
  const phases = buildSchedule(10_000, 'broker-b');
  const recovery = phases.filter((p) => p.kind === 'recovery');
  // broker-b stays out 800 ms into the first recovery phase (2200..3250)
  const late = simulate(phases[1]!.startMs, 3000, 10_000).timeline();
  const result = starvation(late, 'broker-b', BROKERS, recovery);
  assert.equal(result.starvedMs, 750, 'buckets 2250, 2500 and 2750');
  assert.ok(result.peakOtherShare > 0.6 && result.peakOtherShare < 0.7, `peak ${result.peakOtherShare}`);
  // back on time: never starved, nobody above its fair share
  const prompt = simulate(phases[1]!.startMs, phases[1]!.endMs, 10_000).timeline();
  const ok = starvation(prompt, 'broker-b', BROKERS, recovery);
  assert.equal(ok.starvedMs, 0);
  assert.ok(Math.abs(ok.peakOtherShare - 1 / 3) < 0.03, `peak ${ok.peakOtherShare}`);
});

test("shareGap finds where a broker's share fell to zero and where it returned", () => {
  const timeline = simulate(2000, 4000, 8000).timeline();
  assert.deepEqual(shareGap(timeline, 'broker-b', 1000), { zeroMs: 2000, backMs: 4000 });
  // from inside the gap: the gap starts at the first bucket asked about
  assert.deepEqual(shareGap(timeline, 'broker-b', 3000), { zeroMs: 3000, backMs: 4000 });
  // after it: never zero again
  assert.equal(shareGap(timeline, 'broker-b', 4000), undefined);
  // never back before the end of the run
  assert.deepEqual(shareGap(simulate(6000, 9000, 8000).timeline(), 'broker-b', 0), {
    zeroMs: 6000,
    backMs: undefined,
  });
});
