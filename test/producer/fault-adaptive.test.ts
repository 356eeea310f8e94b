import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { AdaptiveFaultStrategy } from '../../src/producer/fault/adaptive.js';
import { TopicPublishInfo } from '../../src/producer/topic-publish-info.js';
import { fakeHost, routeOf } from './helpers.js';

describe('adaptive strategy', () => {
  it('isolation starts at 1 s, doubles with each consecutive failure and is capped at 30 s', () => {
    const s = new AdaptiveFaultStrategy(fakeHost());
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 50].map((n) => s.isolationFor(n)),
      [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    );
  });

  it('one blip isolates a broker briefly, then a half-open trial re-admits it', () => {
    const host = fakeHost([0.5]);
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }));
    s.onFailure('a', 5, 'broker');
    assert.equal(host.isolated.length, 1);
    assert.equal(host.isolated[0]?.untilMs, host.clock + 1000);
    for (let i = 0; i < 20; i++) assert.equal(s.select(tp, undefined, 0).brokerName, 'b');
    host.clock += 1000;
    const picks = Array.from({ length: 8 }, () => s.select(tp, undefined, 0).brokerName);
    assert.equal(picks.filter((b) => b === 'a').length, 1, 'exactly one trial send while half-open');
    s.onSuccess('a', 2);
    assert.deepEqual(
      host.recovered.map((e) => e.brokerName),
      ['a'],
    );
    const after = Array.from({ length: 8 }, () => s.select(tp, undefined, 0).brokerName);
    assert.equal(after.filter((b) => b === 'a').length, 4, 'full share again');
  });

  it('a failed trial isolates for twice as long', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    s.onFailure('a', 5, 'timeout');
    host.clock += 1000;
    s.onFailure('a', 5, 'timeout');
    const h = s.health().find((x) => x.brokerName === 'a');
    assert.equal(h?.isolatedUntil, host.clock + 2000);
    assert.equal(h?.failures, 2);
  });

  it('failures of sends already in flight when the broker was isolated count once', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    for (let i = 0; i < 64; i++) s.onFailure('a', 5, 'transport');
    const h = s.health()[0];
    assert.equal(h?.failures, 1);
    assert.equal(h?.isolatedUntil, host.clock + 1000);
    assert.equal(host.isolated.length, 1);
  });

  it('message rejections and client errors do not count against the broker', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    s.onFailure('a', 5, 'rejected');
    s.onFailure('a', 5, 'client');
    assert.equal(host.isolated.length, 0);
  });

  it('a slow but working broker gets a reduced share, never zero', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    for (let i = 0; i < 20; i++) {
      s.onSuccess('fast', 2);
      s.onSuccess('slow', 400);
    }
    const share = s.shareOf('slow', ['fast', 'slow']);
    assert.ok(share > 0 && share < 0.2, `share ${share}`);
    assert.equal(s.shareOf('fast', ['fast', 'slow']), 1);
    // Seeded randomness: count how often "slow" is chosen.
    let seed = 7;
    host.random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const tp = new TopicPublishInfo('T', routeOf({ fast: 4, slow: 4 }));
    let slow = 0;
    for (let i = 0; i < 2000; i++) if (s.select(tp, undefined, 0).brokerName === 'slow') slow++;
    assert.ok(slow > 20 && slow < 500, `slow picked ${slow} of 2000`);
    assert.equal(host.isolated.length, 0, 'slowness never isolates');
  });

  it('similar latencies share evenly', () => {
    const s = new AdaptiveFaultStrategy(fakeHost());
    s.onSuccess('a', 1);
    s.onSuccess('b', 3);
    assert.equal(s.shareOf('b', ['a', 'b']), 1);
  });

  it('a retry avoids the last broker; if all are isolated the one recovering first is used', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2, c: 2 }));
    for (let i = 0; i < 20; i++) assert.notEqual(s.select(tp, 'a', 1).brokerName, 'a');
    s.onFailure('b', 1, 'transport');
    host.clock += 1000;
    s.onFailure('b', 1, 'transport'); // after its 1 s: 2 s
    s.onFailure('c', 1, 'transport'); // 1 s
    s.onFailure('a', 1, 'transport');
    for (let i = 0; i < 10; i++) assert.equal(s.select(tp, 'a', 1).brokerName, 'c');
  });

  it('a probe that succeeds re-admits a broker isolated by a transport failure', async () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    s.onFailure('a', 1, 'transport');
    host.probeResult = false;
    assert.equal(await s.probeOnce('a'), false);
    assert.equal(s.health()[0]?.isolated, true);
    host.probeResult = true;
    assert.equal(await s.probeOnce('a'), true);
    assert.equal(s.health()[0]?.isolated, false);
    assert.deepEqual(
      host.recovered.map((e) => e.brokerName),
      ['a'],
    );
    // Failure count survives the probe: the next failure isolates for longer.
    s.onFailure('a', 1, 'transport');
    assert.equal(s.health()[0]?.isolatedUntil, host.clock + 2000);
  });

  it('a probe does not re-admit a broker that timed out (it may answer probes and still hang sends)', async () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    s.onFailure('a', 1000, 'timeout');
    assert.equal(await s.probeOnce('a'), true);
    assert.equal(s.health()[0]?.isolated, true);
  });

  it('background probes run on unref’d timers and stop with the strategy', async () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host, { probeInterval: 10 });
    s.start();
    s.onFailure('a', 1, 'transport');
    await new Promise((r) => setTimeout(r, 60));
    assert.ok(host.probes.length >= 1);
    assert.equal(s.health()[0]?.isolated, false);
    s.stop();
  });
});
