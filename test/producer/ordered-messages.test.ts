import { QueueSendFailedError } from '../../src/errors.js';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { selectByHash } from '../../src/producer/queue-select.js';
import { readTopic } from './cluster-helpers.js';
import { scenario, waitFor } from '../consumer/helpers.js';

test('ordered messages: one sharding key stays on one queue and an orderly consumer sees each key in send order', async () => {
  await scenario({ brokers: 2 }, 4, async ({ h, topic, group }) => {
    const keys = ['order-1', 'order-2', 'order-3', 'user:42', 'user:43'];
    const perKey = 20;
    const sentQueue = new Map<string, Set<string>>();
    // Interleave keys, as concurrent orders would arrive.
    for (let i = 0; i < perKey; i++) {
      for (const key of keys) {
        const r = await h.producer.send({ topic, body: `${key}#${i}`, keys: key }, { shardingKey: key });
        const q = `${r.messageQueue.brokerName}/${r.messageQueue.queueId}`;
        sentQueue.set(key, (sentQueue.get(key) ?? new Set()).add(q));
      }
    }
    for (const [key, queues] of sentQueue) assert.equal(queues.size, 1, `key ${key} on one queue`);
    // The queue is Java's: hash over the 8 publish queues, broker-a's 0..3 then broker-b's 0..3.
    const javaOrder = ['broker-a', 'broker-b'].flatMap((b) => [0, 1, 2, 3].map((q) => `${b}/${q}`));
    for (const key of keys) assert.deepEqual([...sentQueue.get(key)!], [selectByHash(javaOrder, key)]);

    const seen = new Map<string, number[]>();
    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeOrderly: true,
    });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      const [key, n] = m.body.toString().split('#') as [string, string];
      seen.set(key, [...(seen.get(key) ?? []), Number(n)]);
    });
    await waitFor(
      () => [...seen.values()].reduce((a, l) => a + l.length, 0) >= keys.length * perKey,
      'every message',
    );
    for (const key of keys)
      assert.deepEqual(
        seen.get(key),
        Array.from({ length: perKey }, (_, i) => i),
        `key ${key} in send order`,
      );
  });
});

test('ordered messages: an explicit queue and a selector send exactly where asked', async () => {
  await scenario({ brokers: 2 }, 4, async ({ h, topic }) => {
    const r1 = await h.producer.send(
      { topic, body: 'a' },
      { queue: { topic, brokerName: 'broker-b', queueId: 3 } },
    );
    assert.deepEqual(r1.messageQueue, { topic, brokerName: 'broker-b', queueId: 3 });
    let offered = 0;
    const r2 = await h.producer.send(
      { topic, body: 'b' },
      {
        selector: (queues) => {
          offered = queues.length;
          return queues.find((q) => q.brokerName === 'broker-a' && q.queueId === 2);
        },
      },
    );
    assert.equal(offered, 8);
    assert.deepEqual(r2.messageQueue, { topic, brokerName: 'broker-a', queueId: 2 });
  });
});

test('ordered messages: with the chosen queue’s broker down the send fails naming that queue and nothing goes elsewhere', async () => {
  await scenario({ brokers: 2 }, 2, async ({ h, topic }) => {
    // Learn the route while both brokers are up, then stop the broker that owns the key's queue.
    await h.producer.send({ topic, body: 'warm' });
    const queue = { topic, brokerName: 'broker-b', queueId: 1 };
    await h.cluster.stopBroker('broker-b');
    const before = (await readTopic(h.cluster, topic, 2)).length;
    await assert.rejects(
      h.producer.send({ topic, body: 'must stay in order' }, { queue }),
      (e: unknown) =>
        e instanceof QueueSendFailedError &&
        e.queue.brokerName === 'broker-b' &&
        e.queue.queueId === 1 &&
        /broker-b\/1/.test(e.message),
    );
    assert.equal((await readTopic(h.cluster, topic, 2)).length, before, 'not moved to broker-a');
  });
});
