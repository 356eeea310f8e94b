import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { computeNotAvailableDuration } from '../../src/producer/fault/latency-fault-tolerance.js';
import {
  Java49FaultStrategy,
  JAVA_49_LATENCY_MAX,
  JAVA_49_NOT_AVAILABLE_DURATION,
  compareFaultItems,
} from '../../src/producer/fault/java-4.9.js';
import { SendWhichQueue, TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { FaultItem } from '../../src/producer/fault/java-fault-items.js';
import { chooseQueue } from '../../src/producer/fault/latency-fault-tolerance.js';
import { fakeHost, routeOf } from './helpers.js';

const dur = (ms: number): number =>
  computeNotAvailableDuration(ms, JAVA_49_LATENCY_MAX, JAVA_49_NOT_AVAILABLE_DURATION);

describe('java-4.9 strategy', () => {
  it('maps latencies through Java 4.9’s tables', () => {
    assert.equal(dur(0), 0);
    assert.equal(dur(49), 0);
    assert.equal(dur(100), 0);
    assert.equal(dur(549), 0);
    assert.equal(dur(550), 30000);
    assert.equal(dur(600), 30000, 'the worked example: 600 ms → 30 s');
    assert.equal(dur(1000), 60000);
    assert.equal(dur(2000), 120000);
    assert.equal(dur(3000), 180000);
    assert.equal(dur(14999), 180000);
    assert.equal(dur(15000), 600000);
  });

  it('a failed send counts as 30000 ms and isolates for 600000 ms (10 minutes)', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    s.onFailure('a', 5, 'transport');
    const item = s.items.get('a') as FaultItem;
    assert.equal(item.startTimestamp - host.clock, 600000);
    assert.equal(item.currentLatency, 5);
    assert.equal(s.isAvailable('a'), false);
    host.clock += 599_999;
    assert.equal(s.isAvailable('a'), false);
    host.clock += 1;
    assert.equal(s.isAvailable('a'), true);
    assert.deepEqual(
      host.isolated.map((e) => e.brokerName),
      ['a'],
    );
  });

  it('a slow success isolates by its latency; a fast one clears it', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    s.onSuccess('a', 600);
    assert.equal(s.isAvailable('a'), false);
    assert.equal((s.items.get('a') as FaultItem).startTimestamp - host.clock, 30000);
    s.onSuccess('a', 3);
    assert.equal(s.isAvailable('a'), true);
    assert.deepEqual(
      host.recovered.map((e) => e.brokerName),
      ['a'],
    );
  });

  it('custom latencyMax / notAvailableDuration override the tables', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host, [10], [777]);
    s.onSuccess('a', 10);
    assert.equal((s.items.get('a') as FaultItem).startTimestamp - host.clock, 777);
  });

  it('orders fault items: available first, then lower latency, then earlier start', () => {
    const now = 1000;
    const mk = (name: string, lat: number, start: number): FaultItem => {
      const it = new FaultItem(name);
      it.currentLatency = lat;
      it.startTimestamp = start;
      return it;
    };
    const items = [
      mk('iso-fast', 1, 5000),
      mk('avail-slow', 900, 0),
      mk('iso-slow-early', 50, 2000),
      mk('iso-slow-late', 50, 3000),
      mk('avail-fast', 2, 0),
    ];
    items.sort((a, b) => compareFaultItems(a, b, now));
    assert.deepEqual(
      items.map((i) => i.name),
      ['avail-fast', 'avail-slow', 'iso-fast', 'iso-slow-early', 'iso-slow-late'],
    );
  });

  it('pickOneAtLeast picks round robin within the better half', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    s.onFailure('a', 10, 'transport');
    s.onFailure('b', 20, 'transport');
    s.onFailure('c', 30, 'transport');
    s.onFailure('d', 40, 'transport');
    const picks = new Set<string>();
    for (let i = 0; i < 20; i++) picks.add(s.pickOneAtLeast() as string);
    assert.deepEqual([...picks].sort(), ['a', 'b'], 'only the better half (lowest latency)');
    const one = new Java49FaultStrategy(fakeHost());
    assert.equal(one.pickOneAtLeast(), undefined);
    one.onFailure('x', 1, 'transport');
    assert.equal(one.pickOneAtLeast(), 'x', 'half of one item is 0: the first');
  });

  it('skips isolated brokers in round robin', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }));
    s.onFailure('a', 1, 'transport');
    for (let i = 0; i < 20; i++) assert.equal(s.select(tp).brokerName, 'b');
  });

  it('ignores lastBrokerName (the Java 4.9 quirk); the send loop guard avoids it anyway', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }), false, new SendWhichQueue(Math.random, -1));
    // Nothing isolated: the strategy's pick is plain round robin, "a" included, even with last = "a".
    const raw = [0, 1, 2, 3].map(() => s.select(tp).brokerName);
    assert.ok(raw.includes('a'), 'java-4.9 itself may pick the last broker');
    for (let i = 0; i < 20; i++) assert.equal(chooseQueue(s, tp, 'a', 1).brokerName, 'b');
  });

  it('when every broker is isolated, uses pickOneAtLeast with a queue id from the counter', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 4, b: 4 }));
    s.onFailure('a', 10, 'transport');
    s.onFailure('b', 20, 'transport');
    const mq = s.select(tp);
    assert.equal(mq.brokerName, 'a', 'the better of the two');
    assert.ok(mq.queueId >= 0 && mq.queueId < 4);
    assert.equal(
      tp.queues.filter((q) => q.brokerName === 'a').length,
      4,
      'the shared queue list is not mutated',
    );
  });

  it('drops the fault item of a broker that left the route and falls back to round robin', () => {
    const host = fakeHost();
    const s = new Java49FaultStrategy(host);
    s.onFailure('gone', 1, 'transport');
    s.onFailure('a', 50, 'transport');
    const tp = new TopicPublishInfo('T', routeOf({ a: 1 }));
    // Both isolated; the better item is "gone", which has no queues: removed, round robin used.
    const mq = s.select(tp);
    assert.equal(mq.brokerName, 'a');
    assert.equal(s.items.has('gone'), false);
  });
});
