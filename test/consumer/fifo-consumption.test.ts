/** FIFO consumption of message groups on the embedded cluster: orderly push and orderly POP. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { subscriptionGroupConfig } from '../../src/protocol/body/admin.js';
import { selectByHash } from '../../src/producer/queue-select.js';
import { scenario, waitFor } from './helpers.js';
import { popScenario } from './simple-consumer-helpers.js';

test('FIFO: a consumeOrderly PushConsumer gets each message group in send order across two brokers', async () => {
  await scenario({ brokers: 2 }, 4, async ({ h, topic, group }) => {
    const groups = ['order-42', 'user:7', 'FIFO-群组', 'cart-1', 'cart-2'];
    const perGroup = 15;
    // Interleaved, as concurrent orders arrive.
    for (let i = 0; i < perGroup; i++)
      for (const g of groups) await h.producer.send({ topic, body: `${g}#${i}`, messageGroup: g });
    const seen = new Map<string, number[]>();
    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeOrderly: true,
    });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      const [g, n] = m.body.toString().split('#') as [string, string];
      assert.equal(m.messageGroup, g, 'the consumer sees the group it was sent with');
      seen.set(g, [...(seen.get(g) ?? []), Number(n)]);
    });
    await waitFor(
      () => [...seen.values()].reduce((a, l) => a + l.length, 0) >= groups.length * perGroup,
      'every message',
    );
    const inOrder = Array.from({ length: perGroup }, (_, i) => i);
    for (const g of groups) assert.deepEqual(seen.get(g), inOrder, `group ${g} in send order`);
  });
});

test('FIFO: an orderly SimpleConsumer (group consumeMessageOrderly=true) has one message in flight per queue and gets each group in order', async () => {
  await popScenario({}, 2, async ({ h, topic, group, consumer }) => {
    h.cluster
      .broker('broker-a')
      .subscriptionGroups.update(subscriptionGroupConfig(group, { consumeMessageOrderly: true }));
    // One group per queue of the two ("user:7" hashes to 0, "order-42" to 1).
    const groups = ['user:7', 'order-42'];
    assert.deepEqual(
      groups.map((g) => selectByHash([0, 1], g)),
      [0, 1],
    );
    const perGroup = 5;
    for (let i = 0; i < perGroup; i++)
      for (const g of groups) await h.producer.send({ topic, body: `${g}#${i}`, messageGroup: g });
    const c = await consumer({ fifo: true, awaitDuration: 200 });

    // The head of each queue, then nothing while both are in flight.
    const first = await c.receive(1);
    const second = await c.receive(1);
    assert.equal(first.length, 1);
    assert.equal(second.length, 1);
    assert.deepEqual([first[0]!, second[0]!].map((m) => m.body.toString()).sort(), [
      'order-42#0',
      'user:7#0',
    ]);
    assert.deepEqual(await c.receive(1), [], 'both queues wait for their acks');
    const seen = new Map<string, number[]>();
    const record = (m: ConsumerMessage): void => {
      const [g, n] = m.body.toString().split('#') as [string, string];
      assert.equal(m.messageGroup, g);
      seen.set(g, [...(seen.get(g) ?? []), Number(n)]);
    };
    for (const m of [...first, ...second]) {
      record(m);
      await c.ack(m);
    }
    // Drain: each ack frees its queue for the group's next message.
    while ([...seen.values()].reduce((a, l) => a + l.length, 0) < groups.length * perGroup) {
      const got = await c.receive(1);
      for (const m of got) {
        record(m);
        await c.ack(m);
      }
    }
    const inOrder = Array.from({ length: perGroup }, (_, i) => i);
    for (const g of groups) assert.deepEqual(seen.get(g), inOrder, `group ${g} in send order`);
  });
});
