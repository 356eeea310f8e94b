/**
 * The POP-mode PushConsumer (`clientRebalance: false`, docs/consumers.md §1.12) on the embedded
 * cluster: the group's mode set with Admin.setMessageRequestMode, queues assigned by the broker.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { scenario, readTopicWhenPresent, waitFor, type Harness } from './helpers.js';

const POP = { clientRebalance: false, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' } as const;

async function setMode(h: Harness, topic: string, group: string, mode: 'POP' | 'PULL'): Promise<void> {
  const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
  await admin.start();
  try {
    const written = await admin.setMessageRequestMode(topic, group, mode, 0);
    assert.equal(written.length, h.cluster.brokers.length);
  } finally {
    await admin.shutdown();
  }
}

function popKeys(c: PushConsumer, topic: string): string[] {
  return [...(c.internals.popTable?.keys() ?? [])].filter((k) => k.startsWith(`${topic}@`));
}

function pullKeys(c: PushConsumer, topic: string): string[] {
  return [...c.internals.table.keys()].filter((k) => k.startsWith(`${topic}@`));
}

test('a group switched to POP: three consumers of two queues all consume, nothing lost', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    await setMode(h, topic, group, 'POP');
    const seen = new Map<string, number>();
    const byConsumer = [0, 0, 0];
    for (let i = 0; i < 3; i++) {
      // One handler of 20 ms and a few popped messages at most per consumer: a consumer that
      // holds its share pops no more, so the others' POPs find the rest. (With 20 handlers of
      // 5 ms, the first consumer kept up with the sender alone and took 293–300 of the 300 on
      // a quiet machine: a test of the machine's speed, not of the sharing.)
      const c = h.consumer({
        consumerGroup: group,
        ...POP,
        popBatchNums: 4,
        popThresholdForQueue: 4,
        consumeThreadMax: 1,
      });
      c.subscribe(topic, '*');
      await c.start(async (m: ConsumerMessage) => {
        seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
        byConsumer[i]!++;
        await new Promise((r) => setTimeout(r, 20));
      });
    }
    // POP mode with popShareQueueNum 0: every consumer pops the broker's queues (queueId −1).
    await waitFor(
      () => h.consumers.every((c) => popKeys(c, topic).length === 1 && popKeys(c, topic)[0]!.endsWith('@-1')),
      'every consumer assigned the broker by POP',
    );
    for (const c of h.consumers) assert.deepEqual(pullKeys(c, topic), [], 'no pull queue in POP mode');
    const ids = await h.send(topic, 300);
    await waitFor(() => ids.every((id) => seen.has(id)), 'every message', 30_000);
    assert.ok(
      byConsumer.every((n) => n > 0),
      `each consumer got a share: ${byConsumer.join(',')}`,
    );
  });
});

test('switched back to PULL, consumption resumes from the offset POP committed', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    await setMode(h, topic, group, 'POP');
    const seen = new Map<string, number>();
    const c = h.consumer({ consumerGroup: group, ...POP });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => void seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1));
    await waitFor(() => popKeys(c, topic).length === 1, 'the POP assignment');
    const first = await h.send(topic, 50);
    await waitFor(() => first.every((id) => seen.has(id)), 'the POP-mode messages', 30_000);

    await setMode(h, topic, group, 'PULL');
    await waitFor(
      () => popKeys(c, topic).length === 0 && pullKeys(c, topic).length === 2,
      'both queues pulled after the switch',
      30_000,
    );
    const second = await h.send(topic, 50);
    await waitFor(() => second.every((id) => seen.has(id)), 'the PULL-mode messages', 30_000);
    // Settle, then check nothing POP consumed (and acked) was pulled again.
    await new Promise((r) => setTimeout(r, 500));
    for (const id of first) assert.equal(seen.get(id), 1, `POP-mode message ${id} delivered once`);
    for (const id of second) assert.equal(seen.get(id), 1, `PULL-mode message ${id} delivered once`);
  });
});

test('an orderly consumer with clientRebalance: false keeps each queue in order (Java rebalances it on the client)', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    await setMode(h, topic, group, 'POP');
    const order = new Map<number, number[]>();
    const c = h.consumer({ consumerGroup: group, ...POP, consumeOrderly: true });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      const list = order.get(m.queue.queueId) ?? [];
      list.push(m.queueOffset);
      order.set(m.queue.queueId, list);
    });
    await waitFor(() => pullKeys(c, topic).length === 2, 'both queues held by the orderly consumer');
    assert.equal(popKeys(c, topic).length, 0);
    await h.send(topic, 100);
    await waitFor(() => [...order.values()].reduce((n, l) => n + l.length, 0) >= 100, 'every message');
    for (const [qid, offsets] of order)
      assert.deepEqual(
        offsets,
        [...offsets].sort((a, b) => a - b),
        `queue ${qid} in offset order`,
      );
  });
});

test('a slow handler in one POP-mode consumer does not stall the others', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    await setMode(h, topic, group, 'POP');
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    const heldBySlow: string[] = [];
    const slow = h.consumer({
      consumerGroup: group,
      ...POP,
      consumeThreadMax: 1,
      consumeThreadMin: 1,
      popBatchNums: 1,
      popThresholdForQueue: 1,
      popInvisibleTime: 5000,
    });
    slow.subscribe(topic, '*');
    await slow.start(async (m: ConsumerMessage) => {
      heldBySlow.push(m.msgId);
      await stuck;
    });
    const seen = new Set<string>();
    const fast = h.consumer({ consumerGroup: group, ...POP, popInvisibleTime: 5000 });
    fast.subscribe(topic, '*');
    await fast.start((m: ConsumerMessage) => void seen.add(m.msgId));
    try {
      await waitFor(
        () => popKeys(slow, topic).length === 1 && popKeys(fast, topic).length === 1,
        'both consumers assigned by POP',
      );
      const ids = await h.send(topic, 100);
      await waitFor(() => heldBySlow.length > 0, 'the slow consumer stuck on a message', 30_000);
      // Everything, the messages the slow one sits on included (their invisible time runs out and
      // the broker revives them), reaches the other consumer.
      await waitFor(() => ids.every((id) => seen.has(id)), 'every message at the fast consumer', 60_000);
      assert.ok(heldBySlow.every((id) => seen.has(id)));
    } finally {
      release();
    }
  });
});

test('a failing POP-mode message comes back after its retry delay and reaches the DLQ after maxReconsumeTimes', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    await setMode(h, topic, group, 'POP');
    const deliveries: Array<{ at: number; reconsumeTimes: number }> = [];
    const c = h.consumer({ consumerGroup: group, ...POP, maxReconsumeTimes: 1 });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      deliveries.push({ at: Date.now(), reconsumeTimes: m.reconsumeTimes });
      throw new Error('always fails');
    });
    await waitFor(() => popKeys(c, topic).length === 1, 'the POP assignment');
    await h.send(topic, 1);
    await waitFor(() => deliveries.length >= 2, 'the redelivery', 60_000);
    assert.deepEqual(
      deliveries.slice(0, 2).map((d) => d.reconsumeTimes),
      [0, 1],
    );
    // The first failure made it invisible for the first step of the POP delay table (10 s).
    assert.ok(deliveries[1]!.at - deliveries[0]!.at >= 9_000, 'redelivered after the retry delay');
    const dlq = await readTopicWhenPresent(h.cluster.namesrvAddr, `%DLQ%${group}`, 30_000);
    assert.deepEqual(dlq, ['m0']);
    // Acked after the DLQ: it does not come back.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(deliveries.length, 2);
  });
});
