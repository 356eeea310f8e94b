import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { readTopicWhenPresent, scenario, waitFor } from './helpers.js';

test('orderly consumption keeps queue order under a throwing handler, retrying in place', async () => {
  await scenario({ brokers: 2 }, 2, async ({ h, topic, group }) => {
    const done = new Map<string, number[]>();
    const failedOnce = new Set<string>();
    const retries: number[] = [];
    let concurrentPerQueue = 0;
    const running = new Set<string>();
    const consumers = [0, 1].map(() => {
      const c = h.consumer({
        consumerGroup: group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeOrderly: true,
        suspendCurrentQueueTimeMillis: 10,
        lockInterval: 500,
      });
      c.subscribe(topic, '*');
      return c;
    });
    for (const c of consumers) {
      await c.start(async (m: ConsumerMessage) => {
        const q = `${m.queue.brokerName}/${m.queue.queueId}`;
        if (running.has(q)) concurrentPerQueue++;
        running.add(q);
        try {
          await new Promise((r) => setTimeout(r, 1));
          const n = Number(m.body.toString().slice(1));
          if (n % 5 === 0 && !failedOnce.has(m.msgId)) {
            failedOnce.add(m.msgId);
            throw new Error('fail once');
          }
          if (failedOnce.has(m.msgId)) retries.push(m.reconsumeTimes);
          const list = done.get(q) ?? [];
          list.push(m.queueOffset);
          done.set(q, list);
        } finally {
          running.delete(q);
        }
      });
    }
    await h.send(topic, 120);
    await waitFor(() => [...done.values()].reduce((a, l) => a + l.length, 0) >= 120, 'every message');
    assert.equal(concurrentPerQueue, 0, 'one handler call at a time per queue');
    for (const [q, offsets] of done) {
      for (let i = 1; i < offsets.length; i++)
        assert.ok(offsets[i]! > offsets[i - 1]!, `queue ${q} consumed in offset order: ${offsets.join(',')}`);
    }
    assert.equal(
      [...done.values()].reduce((a, l) => a + l.length, 0),
      120,
      'each message done once',
    );
    assert.equal(failedOnce.size, 24);
    assert.ok(
      retries.every((r) => r === 1),
      'retried in place with reconsumeTimes 1',
    );
    // Each queue is held (locked) by exactly one of the two consumers.
    const held = consumers.flatMap((c) => [...c.internals.table.keys()].filter((k) => k.startsWith(topic)));
    assert.equal(new Set(held).size, held.length);
  });
});

test('orderly: a message failing maxReconsumeTimes times goes to the DLQ and the queue moves on', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    const attempts: number[] = [];
    const after: string[] = [];
    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeOrderly: true,
      suspendCurrentQueueTimeMillis: 10,
      maxReconsumeTimes: 2,
    });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      if (m.body.toString() === 'm0') {
        attempts.push(m.reconsumeTimes);
        throw new Error('poison');
      }
      after.push(m.body.toString());
    });
    await h.send(topic, 3);
    await waitFor(() => after.length === 2, 'the messages behind the poison one');
    assert.deepEqual(attempts, [0, 1, 2], 'retried in place, then given up');
    assert.deepEqual(after, ['m1', 'm2']);
    assert.deepEqual(await readTopicWhenPresent(h.cluster.namesrvAddr, `%DLQ%${group}`), ['m0']);
  });
});

test('orderly: a failed call suspends its queue for suspendCurrentQueueTimeMillis, then retries the same message in place', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    const suspend = 400;
    const calls: Array<{ body: string; at: number; reconsumeTimes: number }> = [];
    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeOrderly: true,
      suspendCurrentQueueTimeMillis: suspend,
    });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      calls.push({ body: m.body.toString(), at: performance.now(), reconsumeTimes: m.reconsumeTimes });
      if (m.body.toString() === 'm0' && m.reconsumeTimes === 0) throw new Error('first call fails');
    });
    await h.send(topic, 2);
    await waitFor(() => calls.some((x) => x.body === 'm1'), 'the message behind the failed one');
    assert.deepEqual(
      calls.map((x) => `${x.body}/${x.reconsumeTimes}`),
      ['m0/0', 'm0/1', 'm1/0'],
      'the same message again, before the next one',
    );
    // A lower bound, not a speed: the queue waited at least the suspension (timer slack of 5 ms).
    assert.ok(calls[1]!.at - calls[0]!.at >= suspend - 5, `retried after ${calls[1]!.at - calls[0]!.at} ms`);
  });
});
