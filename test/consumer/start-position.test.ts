import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { ProcessQueue } from '../../src/consumer/core/process-queue.js';
import type { QueueEntry } from '../../src/consumer/core/pull-loop.js';
import { reachedQueueEnd, sinceSubscription } from '../../src/consumer/core/start-position.js';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { harness, unique, waitFor, type Harness } from './helpers.js';
import { LITE_FAST } from './lite-pull-helpers.js';

/**
 * Resolves once the clock has moved past now: everything sent before is stored at an earlier
 * millisecond than anything that subscribes after (the rule compares store times in ms).
 */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((r) => setImmediate(r));
}

async function withCluster(fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await harness({ brokers: 1 });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

/** A started consumer of `topic` (default LAST_OFFSET) recording the msgIds it gets. */
interface Receiver {
  got: string[];
  /** Holds every queue of the topic (a topic with history has them from the start). */
  holds(queues: number): boolean;
  stop(): Promise<void>;
}

const KINDS: Record<string, (h: Harness, topic: string) => Promise<Receiver>> = {
  async push(h, topic) {
    const got: string[] = [];
    const c = h.consumer({ consumerGroup: unique('G') });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => void got.push(m.msgId));
    const held = (): number => [...c.internals.table.keys()].filter((k) => k.startsWith(topic)).length;
    return { got, holds: (n) => held() === n, stop: () => c.shutdown() };
  },
  async 'lite pull'(h, topic) {
    const c = new LitePullConsumer({
      consumerGroup: unique('G'),
      namesrvAddr: h.cluster.namesrvAddr,
      instanceName: unique('lite'),
      ...LITE_FAST,
    });
    c.subscribe(topic);
    await c.start();
    const got: string[] = [];
    const loop = (async () => {
      for await (const m of c) got.push(m.msgId);
    })();
    return {
      got,
      holds: (n) => c.assignment().length === n,
      async stop() {
        await c.shutdown();
        await loop;
      },
    };
  },
};

for (const [kind, start] of Object.entries(KINDS)) {
  test(`${kind}: a consumer subscribed before its topic exists gets every message sent after it subscribed`, async () => {
    await withCluster(async (h) => {
      const topic = unique('T');
      const r = await start(h, topic);
      try {
        // The first send creates the topic: its queues reach the consumer after messages are in them.
        const sent = await h.send(topic, 10);
        await waitFor(() => sent.every((id) => r.got.includes(id)), 'every message sent after subscribing');
        assert.equal(r.got.length, 10, 'each once');
      } finally {
        await r.stop();
      }
    });
  });

  test(`${kind}: a new group on a topic with history does not replay it`, async () => {
    await withCluster(async (h) => {
      const topic = unique('T');
      await h.cluster.createTopic(topic, 2);
      const history = new Set(await h.send(topic, 10));
      await nextMillisecond();
      const r = await start(h, topic);
      try {
        await waitFor(() => r.holds(2), 'both queues held');
        const fresh = await h.send(topic, 5);
        await waitFor(() => fresh.every((id) => r.got.includes(id)), 'the messages sent after subscribing');
        assert.deepEqual(
          r.got.filter((id) => history.has(id)),
          [],
          'no message of the history',
        );
        assert.equal(r.got.length, 5);
      } finally {
        await r.stop();
      }
    });
  });
}

function entryFrom(notBefore: number | undefined): QueueEntry {
  const mq = { topic: 'T', brokerName: 'b', queueId: 0 };
  return { key: 'k', mq, pq: new ProcessQueue<ConsumerMessage>(), nextOffset: 0, notBefore };
}

const stored = (...times: number[]): ConsumerMessage[] =>
  times.map((storeTimestamp, queueOffset) => ({ storeTimestamp, queueOffset }) as ConsumerMessage);

test('a 4.9 broker’s nearest answer one message early: the first pull drops what was stored before the subscription', () => {
  const entry = entryFrom(1000);
  assert.deepEqual(
    sinceSubscription(entry, stored(999)).map((m) => m.storeTimestamp),
    [],
    'only history: nothing kept, the filter stays',
  );
  assert.equal(entry.notBefore, 1000);
  assert.deepEqual(
    sinceSubscription(entry, stored(999, 1000, 1001)).map((m) => m.storeTimestamp),
    [1000, 1001],
    'at or after the subscription time',
  );
  assert.equal(entry.notBefore, undefined, 'lifted by the first message kept');
  assert.deepEqual(
    sinceSubscription(entry, stored(990)).map((m) => m.storeTimestamp),
    [990],
    'later pulls are not filtered (a broker clock stepping back drops nothing)',
  );
});

test('reaching the queue end lifts the subscription-time filter', () => {
  const entry = entryFrom(1000);
  reachedQueueEnd(entry);
  assert.deepEqual(
    sinceSubscription(entry, stored(500)).map((m) => m.storeTimestamp),
    [500],
    'stored after the pull found nothing new: sent after we were reading, whatever its clock says',
  );
  const none = entryFrom(undefined);
  assert.equal(sinceSubscription(none, stored(1)).length, 1, 'no filter without a LAST_OFFSET start');
});
