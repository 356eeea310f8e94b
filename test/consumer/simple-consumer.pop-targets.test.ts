/**
 * Where a SimpleConsumer's POPs go (pop-targets.ts): the topic and broker with the fewest POPs
 * out, ties in turn. Plain round robin sent every other POP to a drained broker, where each one
 * long-polled for `awaitDuration`, until all the POPs in flight waited there.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ClientInstance } from '../../src/client/client-instance.js';
import { SIMPLE_CONSUMER_DEFAULTS } from '../../src/consumer/simple/options.js';
import type { ResolvedSimpleConsumerOptions } from '../../src/consumer/simple/options.js';
import { PopTargets, type PopTarget } from '../../src/consumer/simple/pop-targets.js';
import { silentLogger } from '../../src/observability/logger.js';

/** Targets over `brokers` for one topic, from a routes stand-in (no network). */
function targetsOver(brokers: string[], topics = ['T']): PopTargets {
  const options = {
    ...SIMPLE_CONSUMER_DEFAULTS,
    consumerGroup: 'G',
    subscriptions: Object.fromEntries(topics.map((t) => [t, '*'])),
  } as unknown as ResolvedSimpleConsumerOptions;
  const instance = {
    routes: {
      subscribeQueues: async (topic: string) =>
        brokers.flatMap((brokerName) => [0, 1].map((queueId) => ({ topic, brokerName, queueId }))),
    },
  } as unknown as ClientInstance;
  return new PopTargets({ options, wireGroup: 'G', logger: silentLogger, running: () => instance });
}

const where = (t: PopTarget | undefined): string => `${t?.userTopic}@${t?.brokerName}`;

test('a drained broker holding POPs gets no more while the other broker answers: 8 POPs, broker-a never answers', async () => {
  const targets = targetsOver(['broker-a', 'broker-b']);
  const outOnA: PopTarget[] = [];
  for (let i = 0; i < 8; i++) {
    const t = await targets.take();
    assert.ok(t !== undefined);
    if (t.brokerName === 'broker-a') outOnA.push(t);
    else targets.settled(t); // broker-b answers at once, with messages
  }
  // Round robin would have parked every other POP on broker-a (4 of 8).
  assert.equal(outOnA.length, 1);
});

test('POPs spread evenly over topics and brokers when none answers: 8 POPs over 2 topics × 2 brokers, 2 each', async () => {
  const targets = targetsOver(['broker-a', 'broker-b'], ['T1', 'T2']);
  const count = new Map<string, number>();
  for (let i = 0; i < 8; i++) {
    const w = where(await targets.take());
    count.set(w, (count.get(w) ?? 0) + 1);
  }
  assert.deepEqual([...count.values()], [2, 2, 2, 2]);
  assert.equal(count.size, 4);
});

test('ties are taken in turn: each settled at once, the POPs alternate over the brokers', async () => {
  const targets = targetsOver(['broker-a', 'broker-b']);
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    const t = await targets.take();
    assert.ok(t !== undefined);
    seen.push(t.brokerName);
    targets.settled(t);
  }
  assert.deepEqual(seen, ['broker-a', 'broker-b', 'broker-a', 'broker-b']);
});

test('no readable queue: take gives undefined and counts nothing', async () => {
  const targets = targetsOver([]);
  assert.equal(await targets.take(), undefined);
});
