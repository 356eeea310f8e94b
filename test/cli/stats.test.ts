import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LatencyHistogram, ThroughputMeter, formatMs } from '../../src/cli/stats.js';

/** Nearest-rank percentile of a sorted array: the reference the histogram must match within 1 %. */
function referencePercentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Deterministic pseudo-random numbers (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function assertClose(actual: number, expected: number, what: string): void {
  const tolerance = Math.max(0.01, expected * 0.01);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: got ${actual}, expected ${expected} ±1%`);
}

test('percentiles match a sorted-array reference within 1 % on a long-tailed distribution', () => {
  const random = rng(42);
  const h = new LatencyHistogram();
  const values: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    // log-uniform 0.05 ms .. 5 s, like real send latencies with a fault tail
    const v = 0.05 * Math.pow(100_000, random());
    values.push(v);
    h.record(v);
  }
  values.sort((a, b) => a - b);
  for (const p of [1, 10, 25, 50, 75, 90, 95, 99, 99.9]) {
    assertClose(h.percentile(p), referencePercentile(values, p), `p${p}`);
  }
  assert.equal(h.count, values.length);
  assertClose(h.mean, values.reduce((a, b) => a + b, 0) / values.length, 'mean');
  assert.equal(h.percentile(0), values[0]);
  assert.equal(h.percentile(100), values[values.length - 1]);
});

test('a single value is reported exactly; an empty histogram answers NaN', () => {
  const h = new LatencyHistogram();
  assert.ok(Number.isNaN(h.percentile(50)));
  assert.ok(Number.isNaN(h.mean));
  h.record(12.34);
  assert.equal(h.percentile(50), 12.34);
  assert.equal(h.percentile(99), 12.34);
});

test('values outside 0.01 ms .. 60 s are clamped into the edge buckets but min/max stay exact', () => {
  const h = new LatencyHistogram();
  h.record(0);
  h.record(120_000);
  h.record(-1); // ignored
  h.record(Number.NaN); // ignored
  assert.equal(h.count, 2);
  assert.equal(h.percentile(0), 0);
  assert.equal(h.percentile(100), 120_000);
  assert.ok(h.percentile(50) <= 0.011);
});

test('merge equals recording everything into one histogram; reset empties it', () => {
  const random = rng(7);
  const a = new LatencyHistogram();
  const b = new LatencyHistogram();
  const all = new LatencyHistogram();
  for (let i = 0; i < 5000; i++) {
    const v = random() * 1000;
    (i % 3 === 0 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  assert.equal(a.count, all.count);
  for (const p of [50, 90, 99]) assert.equal(a.percentile(p), all.percentile(p));
  assert.equal(a.clone().percentile(99), all.percentile(99));
  a.reset();
  assert.equal(a.count, 0);
  assert.ok(Number.isNaN(a.percentile(50)));
});

test('ThroughputMeter reports the rate over a sliding window with an injected clock', () => {
  let now = 10_000;
  const meter = new ThroughputMeter(5000, 100, () => now);
  for (let ms = 0; ms < 2000; ms += 10) {
    meter.mark(1, 128);
    now += 10;
  }
  assert.equal(meter.total, 200);
  assert.equal(meter.totalByteCount, 200 * 128);
  assert.ok(Math.abs(meter.rate(1000) - 100) <= 10, `rate ${meter.rate(1000)}`);
  assert.ok(Math.abs(meter.byteRate(1000) - 12_800) <= 1280);
  now += 3000; // silence: the window empties
  assert.equal(meter.rate(1000), 0);
  assert.ok(Math.abs(meter.overallRate() - 40) < 1);
});

test('formatMs keeps three significant digits', () => {
  assert.equal(formatMs(1.234), '1.23');
  assert.equal(formatMs(12.34), '12.3');
  assert.equal(formatMs(512.7), '513');
  assert.equal(formatMs(Number.NaN), '-');
});
