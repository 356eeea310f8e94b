import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { computeNotAvailableDuration } from '../../src/producer/fault/latency-fault-tolerance.js';
import {
  Java5FaultStrategy,
  JAVA_5_LATENCY_MAX,
  JAVA_5_NOT_AVAILABLE_DURATION,
} from '../../src/producer/fault/java-5.js';
import { FaultItem } from '../../src/producer/fault/java-fault-items.js';
import { TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { fakeHost, routeOf } from './helpers.js';

const dur = (ms: number): number =>
  computeNotAvailableDuration(ms, JAVA_5_LATENCY_MAX, JAVA_5_NOT_AVAILABLE_DURATION);

describe('java-5 strategy', () => {
  it('maps latencies through the 5.1.4+ tables', () => {
    assert.equal(dur(549), 0);
    assert.equal(dur(550), 2000);
    assert.equal(dur(1799), 2000);
    assert.equal(dur(1800), 5000);
    assert.equal(dur(3000), 6000);
    assert.equal(dur(5000), 10000);
    assert.equal(dur(10000), 10000, 'a failure (counted as 10000 ms) isolates for 10 s');
    assert.equal(dur(15000), 30000);
  });

  it('a failure isolates for 10 s and marks the broker unreachable', () => {
    const host = fakeHost();
    const s = new Java5FaultStrategy(host);
    s.onFailure('a', 3, 'transport');
    const it5 = s.items.get('a') as FaultItem;
    assert.equal(it5.startTimestamp - host.clock, 10000);
    assert.equal(s.isAvailable('a'), false);
    assert.equal(s.isReachable('a'), false);
  });

  it('isolation is only extended, never shortened, and a success restores reachability', () => {
    const host = fakeHost();
    const s = new Java5FaultStrategy(host);
    s.onFailure('a', 3, 'broker');
    s.onSuccess('a', 600); // 2000 ms < remaining 10000 ms: kept
    assert.equal((s.items.get('a') as FaultItem).startTimestamp - host.clock, 10000);
    assert.equal(s.isReachable('a'), true);
  });

  it('client errors do not isolate', () => {
    const host = fakeHost();
    const s = new Java5FaultStrategy(host);
    s.onFailure('a', 3, 'client');
    assert.equal(s.isAvailable('a'), true);
  });

  it('filters: available and not last, then reachable and not last, then any', () => {
    const host = fakeHost();
    const s = new Java5FaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2, c: 2 }));
    s.onFailure('a', 1, 'transport');
    for (let i = 0; i < 30; i++) assert.equal(s.select(tp, 'b', 1).brokerName, 'c');
    // Every broker isolated; b reachable again (its isolation is still running): reachable and not last wins.
    s.onFailure('b', 1, 'transport');
    s.onFailure('c', 1, 'transport');
    (s.items.get('b') as FaultItem).reachable = true;
    for (let i = 0; i < 30; i++) assert.equal(s.select(tp, 'c', 1).brokerName, 'b');
    // Nothing reachable, nothing available: any queue.
    (s.items.get('b') as FaultItem).reachable = false;
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) seen.add(s.select(tp, 'c', 1).brokerName);
    assert.ok(seen.size >= 2);
  });

  it('the detector marks a probed broker reachable again and drops unknown brokers', async () => {
    const host = fakeHost();
    const s = new Java5FaultStrategy(host, { detectInterval: 2000 });
    s.onFailure('a', 1, 'transport');
    s.onFailure('gone', 1, 'transport');
    host.known = new Set(['a']);
    host.probeResult = false;
    await s.detectByOneRound();
    assert.equal(s.isReachable('a'), false);
    assert.equal(s.items.has('gone'), false);
    host.probeResult = true;
    await s.detectByOneRound();
    assert.deepEqual(host.probes, ['a'], 'each item at most every detectInterval');
    host.clock += 2000;
    await s.detectByOneRound();
    assert.equal(s.isReachable('a'), true);
    assert.deepEqual(
      host.recovered.map((e) => e.brokerName),
      ['a'],
    );
  });
});
