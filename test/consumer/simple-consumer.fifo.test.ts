/**
 * FIFO POP (docs/consumers.md §3.3): SimpleConsumers of a group whose broker config says
 * `consumeMessageOrderly=true` pop orderly without being told, and a failed message comes back
 * before the later ones of its queue.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import type { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { unique } from './helpers.js';
import { popScenario } from './simple-consumer-helpers.js';

const MESSAGE_GROUPS = ['order-1', 'order-2', 'order-3', 'order-4'];
const PER_GROUP = 50;

function parse(m: PoppedMessage): { g: string; n: number } {
  const [g, n] = m.body.toString().split('#') as [string, string];
  return { g, n: Number(n) };
}

test('FIFO: 4 message groups × 50 on a FIFO topic, 3 SimpleConsumers of an orderly group, one fails every 5th message: each group in order, a failed message before the later ones', async () => {
  await popScenario({ faultInjection: true }, 1, async ({ h, group, consumer }) => {
    const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
    try {
      const topic = unique('FifoPop');
      await admin.createTopic({ topic, cluster: 'DefaultCluster', messageType: 'FIFO', writeQueues: 4 });
      await admin.createOrUpdateSubscriptionGroup(
        { groupName: group, consumeMessageOrderly: true },
        { cluster: 'DefaultCluster' },
      );
      for (let i = 0; i < PER_GROUP; i++)
        for (const g of MESSAGE_GROUPS) await h.producer.send({ topic, body: `${g}#${i}`, messageGroup: g });

      // No `fifo` option: the group's consumeMessageOrderly makes these FIFO consumers.
      const consumers: SimpleConsumer[] = [];
      for (let i = 0; i < 3; i++)
        consumers.push(await consumer({ subscriptions: { [topic]: '*' }, awaitDuration: 500 }));

      const acked = new Map<string, number[]>(MESSAGE_GROUPS.map((g) => [g, []]));
      // The messages whose failure blocked their queue. Each comes back first in its queue's next
      // batch, so it is counted again there (reconsumeTimes ≥ 1). The rest of a blocked batch may
      // not be: a broker carries the counts only from the queue's previous batch into the next (Java
      // `OrderInfo#mergeOffsetConsumedCount`), and a shorter batch in between starts them over.
      const failedOnce = new Set<string>();
      const problems: string[] = [];
      let total = 0;
      let failures = 0;
      let timedOut = false;
      const run = async (c: SimpleConsumer, failing: boolean): Promise<void> => {
        let seen = 0;
        while (total < MESSAGE_GROUPS.length * PER_GROUP && !timedOut) {
          const batch = await c.receive(4, 3000);
          const blockedQueues = new Set<number>();
          const batchNext = new Map<string, number>();
          for (const m of batch) {
            const { g, n } = parse(m);
            const done = acked.get(g)!;
            // Delivered only once every earlier message of its group was acked (or is earlier
            // in this batch).
            const expected = batchNext.get(g) ?? done.length;
            if (n !== expected) problems.push(`${g}#${n} delivered when ${expected} was due`);
            batchNext.set(g, n + 1);
            if (failedOnce.has(`${g}#${n}`) && m.reconsumeTimes === 0)
              problems.push(`${g}#${n} redelivered with reconsumeTimes 0`);
            const qid = m.queue.queueId;
            if (blockedQueues.has(qid) || (failing && ++seen % 5 === 0)) {
              // Failed: it and the rest of its queue's batch come back, half of them sooner.
              if (!blockedQueues.has(qid)) {
                failures++;
                failedOnce.add(`${g}#${n}`);
              }
              blockedQueues.add(qid);
              if (failures % 2 === 0) await c.changeInvisibleDuration(m, 200);
              continue;
            }
            done.push(n);
            total++;
            await c.ack(m);
          }
        }
      };
      const deadline = setTimeout(() => (timedOut = true), 120_000);
      try {
        await Promise.all(consumers.map((c, i) => run(c, i === 0)));
      } finally {
        clearTimeout(deadline);
      }
      assert.equal(timedOut, false, 'drained within 120 s');
      assert.deepEqual(problems, []);
      assert.ok(failures >= 3, `the failing consumer failed ${failures} times`);
      const inOrder = Array.from({ length: PER_GROUP }, (_, i) => i);
      for (const g of MESSAGE_GROUPS) assert.deepEqual(acked.get(g), inOrder, `${g} acked in send order`);
      assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0);
    } finally {
      await admin.close();
    }
  });
});

test('FIFO default: an explicit fifo wins over the group, and a broker without GET_SUBSCRIPTIONGROUP_CONFIG means unordered', async () => {
  await popScenario({ faultInjection: true }, 1, async ({ h, topic, group, consumer }) => {
    const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
    try {
      await admin.createOrUpdateSubscriptionGroup(
        { groupName: group, consumeMessageOrderly: true },
        { cluster: 'DefaultCluster' },
      );
      await h.send(topic, 3);
      // fifo: false wins: all three come in one receive (an orderly pop would too, so check
      // the handle kind: an orderly receipt handle names the order revive queue).
      const unordered = await consumer({ fifo: false });
      const got = await unordered.receive(32, 30_000);
      assert.equal(got.length, 3);
      const broker = h.cluster.broker('broker-a');
      assert.equal(broker.pop.state.inflight, 3, 'normal checkpoints, not an order lock');

      broker.faults.set({
        errorCode: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        requestCodes: [RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG],
      });
      await h.send(topic, 2);
      const old = await consumer();
      const more: PoppedMessage[] = [];
      for (const end = Date.now() + 10_000; more.length < 2 && Date.now() < end;)
        more.push(...(await old.receive(32, 30_000)));
      assert.equal(more.length, 2);
      assert.equal(broker.pop.state.inflight, 5, 'the consumer fell back to unordered POP');
      broker.faults.set({});

      const orderly = await consumer({ consumerGroup: group });
      assert.deepEqual(await orderly.receive(32, 300), [], 'nothing visible yet');
      await h.send(topic, 1);
      const one = await orderly.receive(32, 30_000);
      assert.equal(one.length, 1);
      assert.equal(broker.pop.state.inflight, 5, 'orderly: held by an order lock, not a checkpoint');
    } finally {
      await admin.close();
    }
  });
});

test('FIFO changeInvisibleDuration moves only that message: the queue stays blocked until every un-acked one of the batch is visible, then all come back in order', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 3);
    const c = await consumer({ fifo: true, awaitDuration: 300 });
    const batch = await c.receive(3, 30_000);
    assert.deepEqual(
      batch.map((m) => m.body.toString()),
      ['m0', 'm1', 'm2'],
    );
    await c.changeInvisibleDuration(batch[0]!, 100);
    // m1 and m2 are invisible for 30 s more: nothing of the queue is handed out meanwhile.
    for (let i = 0; i < 3; i++) assert.deepEqual(await c.receive(3, 30_000), [], 'still blocked');
    await c.changeInvisibleDuration(batch[1]!, 100);
    await c.changeInvisibleDuration(batch[2]!, 100);
    const back: PoppedMessage[] = [];
    for (const end = Date.now() + 20_000; back.length < 3 && Date.now() < end;)
      back.push(...(await c.receive(3, 30_000)));
    assert.deepEqual(
      back.map((m) => [m.body.toString(), m.reconsumeTimes]),
      [
        ['m0', 1],
        ['m1', 1],
        ['m2', 1],
      ],
    );
    for (const m of back) await c.ack(m);
  });
});
