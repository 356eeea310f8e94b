import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  buildFailoverSchedule,
  buildSchedule,
  FAULT_ORDER,
  phaseIndexAt,
  phasesUntil,
} from '../../src/cli/demo/schedule.js';

test('the schedule covers the whole run without gaps: warm-up, then each fault followed by recovery', () => {
  for (const duration of [5000, 30_000, 123_457]) {
    const phases = buildSchedule(duration, 'broker-b');
    assert.equal(phases.length, 1 + 2 * FAULT_ORDER.length);
    assert.equal(phases[0]!.kind, 'warmup');
    assert.equal(phases[0]!.startMs, 0);
    assert.equal(phases.at(-1)!.endMs, duration);
    for (let i = 1; i < phases.length; i++) {
      assert.equal(phases[i]!.startMs, phases[i - 1]!.endMs, `gap before phase ${i}`);
      assert.ok(phases[i]!.endMs > phases[i]!.startMs, `empty phase ${i}`);
    }
    const faults = phases.filter((p) => p.kind === 'fault');
    assert.deepEqual(
      faults.map((p) => p.fault),
      [...FAULT_ORDER],
    );
    for (const f of faults) {
      assert.equal(f.broker, 'broker-b');
      const next = phases[phases.indexOf(f) + 1]!;
      assert.equal(next.kind, 'recovery');
      assert.equal(next.after, f.fault);
    }
  }
});

test('phase lengths scale with the duration', () => {
  const short = buildSchedule(5000, 'b');
  const long = buildSchedule(50_000, 'b');
  short.forEach((p, i) => {
    const q = long[i]!;
    assert.ok(Math.abs((q.endMs - q.startMs) / 10 - (p.endMs - p.startMs)) <= 1, `phase ${p.name}`);
  });
});

test('phaseIndexAt finds the running phase and stays on the last one after the end', () => {
  const phases = buildSchedule(10_000, 'b');
  assert.equal(phaseIndexAt(phases, 0), 0);
  assert.equal(phaseIndexAt(phases, phases[3]!.startMs), 3);
  assert.equal(phaseIndexAt(phases, phases[3]!.endMs - 1), 3);
  assert.equal(phaseIndexAt(phases, 99_999), phases.length - 1);
});

test('without fault injection the run is one steady phase; a non-positive duration is rejected', () => {
  assert.deepEqual(buildSchedule(3000, 'b', false), [
    { name: 'steady', kind: 'warmup', startMs: 0, endMs: 3000 },
  ]);
  assert.throws(() => buildSchedule(0, 'b'), RangeError);
});

test('an interrupted run keeps the phases it reached, the last one cut where it stopped', () => {
  const phases = buildSchedule(30_000, 'broker-b');
  const stopAt = phases[2]!.startMs + 500; // half a second into "recovered from slow"
  const ran = phasesUntil(phases, stopAt);
  assert.deepEqual(
    ran.map((p) => p.name),
    ['warm-up', 'slow', 'recovered from slow'],
  );
  assert.deepEqual(ran.slice(0, 2), phases.slice(0, 2));
  assert.equal(ran[2]!.endMs, stopAt);
  assert.equal(ran[2]!.startMs, phases[2]!.startMs);
  // the full run is left as it is; a stop before anything ran keeps an empty warm-up
  assert.deepEqual(phasesUntil(phases, 30_000), phases);
  assert.deepEqual(
    phasesUntil(phases, 0).map((p) => [p.name, p.startMs, p.endMs]),
    [['warm-up', 0, 0]],
  );
});

test('the failover schedule: warm-up, the group killed from 30 % to 70 %, then back', () => {
  const phases = buildFailoverSchedule(60_000, 'RaftNode00');
  assert.deepEqual(
    phases.map((p) => [p.kind, p.fault ?? p.after, p.startMs, p.endMs]),
    [
      ['warmup', undefined, 0, 18_000],
      ['fault', 'killed', 18_000, 42_000],
      ['recovery', 'killed', 42_000, 60_000],
    ],
  );
  assert.ok(phases.slice(1).every((p) => p.broker === 'RaftNode00'));
  assert.throws(() => buildFailoverSchedule(0, 'g'), RangeError);
});
