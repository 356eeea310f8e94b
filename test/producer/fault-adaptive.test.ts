import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { AdaptiveFaultStrategy } from '../../src/producer/fault/adaptive.js';
import { TopicPublishInfo, SendWhichQueue } from '../../src/client/topic-publish-info.js';
import { waitFor } from './cluster-helpers.js';
import { fakeHost, routeOf, type FakeHost } from './helpers.js';

function countBy(names: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of names) out[n] = (out[n] ?? 0) + 1;
  return out;
}

/**
 * Simulated traffic on a manual clock: one send every `stepMs`, each completing after
 * `latency(broker)` ms (never, when it returns Infinity). `run` returns the broker of every send;
 * sends still in flight carry over to the next `run`.
 */
function simulator(host: FakeHost, s: AdaptiveFaultStrategy, tp: TopicPublishInfo) {
  const pending: { at: number; broker: string; started: number }[] = [];
  return (sends: number, latency: (broker: string) => number, stepMs = 2): string[] => {
    const picks: string[] = [];
    for (let i = 0; i < sends; i++) {
      host.clock += stepMs;
      pending.sort((x, y) => x.at - y.at);
      while (pending.length > 0 && (pending[0]?.at ?? Infinity) <= host.clock) {
        const done = pending.shift()!;
        s.onSuccess(done.broker, done.at - done.started);
      }
      const mq = s.select(tp, undefined, 0);
      picks.push(mq.brokerName);
      pending.push({ at: host.clock + latency(mq.brokerName), broker: mq.brokerName, started: host.clock });
    }
    return picks;
  };
}

describe('adaptive strategy', () => {
  it('isolation starts at 500 ms, doubles with each failed trial and is capped at 2 s (1 s after quick failures)', () => {
    const s = new AdaptiveFaultStrategy(fakeHost());
    assert.deepEqual(
      [1, 2, 3, 4, 5, 50].map((n) => s.isolationFor(n, 'timeout')),
      [500, 1000, 2000, 2000, 2000, 2000],
    );
    assert.deepEqual(
      [1, 2, 3, 50].map((n) => s.isolationFor(n, 'broker')),
      [500, 1000, 1000, 1000],
    );
  });

  it('an isolated broker’s traffic is spread evenly over the other brokers, not piled onto one', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo(
      'T',
      routeOf({ a: 4, b: 4, c: 4 }),
      false,
      new SendWhichQueue(Math.random, 0),
    );
    s.onFailure('b', 5, 'broker');
    const picks = countBy(Array.from({ length: 3000 }, () => s.select(tp, undefined, 0).brokerName));
    assert.equal(picks.b, undefined);
    assert.equal(picks.a, 1500);
    assert.equal(picks.c, 1500);
    // Queue order with b isolated: a's queues, then c's; every queue gets its turn.
    const queues = countBy(
      Array.from({ length: 800 }, () => s.select(tp, undefined, 0)).map((q) => `${q.brokerName}${q.queueId}`),
    );
    assert.deepEqual(Object.values(queues), Array(8).fill(100));
  });

  it('one blip isolates a broker briefly, then a single half-open trial re-admits it', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }));
    s.onFailure('a', 5, 'broker');
    assert.equal(host.isolated.length, 1);
    assert.equal(host.isolated[0]?.untilMs, host.clock + 500);
    // Every send to b is answered at once (1 ms); the trial to a is answered last.
    const send = (): string => {
      const b = s.select(tp, undefined, 0).brokerName;
      if (b === 'b') s.onSuccess(b, 1);
      return b;
    };
    for (let i = 0; i < 20; i++) assert.equal(send(), 'b');
    host.clock += 500;
    const picks = Array.from({ length: 8 }, send);
    assert.equal(picks.filter((b) => b === 'a').length, 1, 'exactly one trial send while half-open');
    s.onSuccess('a', 2);
    assert.deepEqual(
      host.recovered.map((e) => e.brokerName),
      ['a'],
    );
    // Re-admitted, a answers at once too (sends left unanswered would count as in flight).
    const sendBoth = (): string => {
      const b = s.select(tp, undefined, 0).brokerName;
      s.onSuccess(b, 1);
      return b;
    };
    const after = Array.from({ length: 8 }, sendBoth);
    assert.equal(after.filter((b) => b === 'a').length, 4, 'full share again');
  });

  it('one incident is one strike: concurrent failures and leftovers after re-admission change nothing', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 1 }));
    const t0 = host.clock;
    for (let i = 0; i < 64; i++) s.select(tp, undefined, 0); // 64 sends in flight to a
    host.clock += 5;
    for (let i = 0; i < 32; i++) s.onFailure('a', 5, 'transport');
    let h = s.health()[0];
    assert.equal(h?.failures, 1);
    assert.equal(h?.isolatedUntil, host.clock + 500);
    assert.equal(host.isolated.length, 1);
    host.clock += 500;
    s.select(tp, undefined, 0); // the trial
    s.onSuccess('a', 0);
    assert.equal(s.health()[0]?.isolated, false);
    // The other 32 sends of the old incident time out now: still no new isolation.
    for (let i = 0; i < 32; i++) s.onFailure('a', host.clock - t0, 'timeout');
    h = s.health()[0];
    assert.equal(h?.isolated, false);
    assert.equal(host.isolated.length, 1);
    // A send made after the re-admission that fails is a new incident: 500 ms again.
    s.select(tp, undefined, 0);
    s.onFailure('a', 0, 'broker');
    assert.equal(s.health()[0]?.isolatedUntil, host.clock + 500);
    assert.equal(host.isolated.length, 2);
  });

  it('only a failed trial escalates, counted from when the trial was sent, up to the cap', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 1 }));
    s.onFailure('a', 5, 'timeout');
    host.clock += 100;
    s.onFailure('a', 5, 'timeout'); // not a trial: no escalation
    assert.equal(s.health()[0]?.failures, 1);
    host.clock += 400;
    s.select(tp, undefined, 0); // trial, hangs until its 1 s timeout
    const trialAt = host.clock;
    host.clock += 1000;
    s.onFailure('a', 1000, 'timeout');
    let h = s.health()[0];
    assert.equal(h?.failures, 2);
    assert.equal(h?.isolatedUntil, trialAt + 1000, 'the hung trial already waited out the 1 s');
    s.select(tp, undefined, 0); // next trial, hangs too
    host.clock += 1000;
    s.onFailure('a', 1000, 'timeout');
    h = s.health()[0];
    assert.equal(h?.failures, 3);
    assert.equal(h?.isolatedUntil, host.clock + 1000, '2 s from the trial');
    host.clock += 1000;
    s.select(tp, undefined, 0); // next trial, answered SYSTEM_BUSY at once
    s.onFailure('a', 0, 'broker');
    assert.equal(s.health()[0]?.isolatedUntil, host.clock + 1000, 'a quick failure: capped at 1 s');
    host.clock += 1000;
    s.select(tp, undefined, 0);
    s.onFailure('a', 0, 'broker');
    assert.equal(s.health()[0]?.failures, 5);
    assert.equal(s.health()[0]?.isolatedUntil, host.clock + 1000);
    assert.equal(host.isolated.length, 1, 'one isolation event per incident');
  });

  it('message rejections and client errors do not count against the broker', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    s.onFailure('a', 5, 'rejected');
    s.onFailure('a', 5, 'client');
    assert.equal(host.isolated.length, 0);
  });

  it('a broker 100 times slower keeps only its floor share, and its full share back after one fast answer', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 4, b: 4, c: 4 }));
    const simulate = simulator(host, s, tp);
    let slow = false;
    const latency = (b: string): number => (b === 'b' && slow ? 500 : 5);
    const before = countBy(simulate(600, latency));
    assert.ok(Math.abs((before.b ?? 0) - 200) <= 10, `fair share while fast: ${before.b}`);
    slow = true;
    const during = simulate(5000, latency); // 10 s slow
    const toSlow = during.filter((b) => b === 'b').length;
    // The floor: 20 % of its fair third (6.7 %), and not much more (the fair share is 33 %).
    assert.ok(toSlow >= 5000 * 0.06, `at least its floor: ${toSlow} of 5000`);
    assert.ok(toSlow <= 5000 * 0.08, `about its floor, far below its fair share: ${toSlow} of 5000`);
    const weight = s.health().find((x) => x.brokerName === 'b')?.weight ?? 0;
    assert.ok(weight > 0.05 && weight < 0.09, `brokerHealth shows the weight: ${weight}`);
    const h = s.health().find((x) => x.brokerName === 'b');
    assert.ok((h?.share ?? 1) < 0.1, `reported share ${h?.share}`);
    slow = false;
    const after = simulate(500, latency); // 1 s fast again
    const back = countBy(after.slice(300));
    assert.ok((back.b ?? 0) > 50, `full share within 0.6 s: ${back.b} of 200`);
    assert.equal(host.isolated.length, 0, 'slowness never isolates');
  });

  it('minBrokerShare sets the floor a slow broker keeps, and brokerHealth reports it', () => {
    const slowShare = (minShare: number): { share: number; floor: number | undefined } => {
      const host = fakeHost();
      const s = new AdaptiveFaultStrategy(host, { minShare });
      const simulate = simulator(host, s, new TopicPublishInfo('T', routeOf({ a: 4, b: 4, c: 4 })));
      simulate(600, () => 5);
      const during = simulate(5000, (b) => (b === 'b' ? 500 : 5));
      const floor = s.health().find((x) => x.brokerName === 'b')?.floor;
      return { share: during.filter((b) => b === 'b').length / 5000, floor };
    };
    const half = slowShare(0.6);
    // 0.6 of its fair third: 20 % of the sends.
    assert.ok(half.share >= 0.19 && half.share <= 0.23, `share with minBrokerShare 0.6: ${half.share}`);
    assert.ok(Math.abs((half.floor ?? 0) - 0.2) < 1e-9, `floor ${half.floor}`);
    const none = slowShare(0);
    assert.ok(none.share < 0.02, `no floor: ${none.share}`);
    assert.equal(none.floor, 0);
  });

  it('a broker that hangs loses its traffic long before the first timeout', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 4, b: 4, c: 4 }));
    const simulate = simulator(host, s, tp);
    simulate(300, () => 2);
    const picks = simulate(400, (b) => (b === 'b' ? Infinity : 2));
    const hung = picks.filter((b) => b === 'b').length;
    assert.ok(hung <= 10, `sends to the hung broker in 800 ms: ${hung}`);
    const rest = countBy(picks.slice(50));
    assert.ok(Math.abs((rest.a ?? 0) - (rest.c ?? 0)) <= 10, `even over a and c: ${JSON.stringify(rest)}`);
  });

  it('similar latencies share evenly', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 4, b: 4 }));
    const picks = countBy(simulator(host, s, tp)(1000, (b) => (b === 'a' ? 1 : 3)));
    assert.equal(picks.a, 500);
    assert.equal(picks.b, 500);
  });

  it('a retry avoids the last broker; if all are isolated the one recovering first is used', () => {
    const host = fakeHost();
    const s = new AdaptiveFaultStrategy(host);
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2, c: 2 }));
    for (let i = 0; i < 20; i++) assert.notEqual(s.select(tp, 'a', 1).brokerName, 'a');
    s.onFailure('c', 1, 'transport'); // until +500
    host.clock += 100;
    s.onFailure('b', 1, 'transport'); // until +600
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
    // A later failure is a new incident: the short isolation again.
    host.clock += 1;
    s.onFailure('a', 0, 'transport');
    assert.equal(s.health()[0]?.isolatedUntil, host.clock + 500);
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
    host.probeResult = false; // the broker stays down, so probing goes on
    const s = new AdaptiveFaultStrategy(host, { probeInterval: 10 });
    s.start();
    s.onFailure('a', 1, 'transport');
    const timers = s.pendingProbeTimers();
    assert.equal(timers.length, 1, 'a probe is scheduled');
    for (const t of timers) assert.equal(t.hasRef(), false, 'the probe timer does not hold the process');
    await waitFor(() => host.probes.length >= 2, 2000, 'repeated probes');
    for (const t of s.pendingProbeTimers()) assert.equal(t.hasRef(), false);
    s.stop();
    assert.deepEqual(s.pendingProbeTimers(), [], 'stop clears the probe timer');
    const afterStop = host.probes.length;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(host.probes.length, afterStop, 'no probe after stop()');
    // A probe that answers re-admits the broker (started again).
    host.probeResult = true;
    s.start();
    await waitFor(() => s.health()[0]?.isolated === false, 2000, 'recovery by probe');
    assert.deepEqual(s.pendingProbeTimers(), []);
    s.stop();
  });
});
