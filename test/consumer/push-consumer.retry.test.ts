import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { Producer } from '../../src/producer/producer.js';
import type { HandlerErrorEvent } from '../../src/consumer/push/push-consumer.js';
import { readTopicWhenPresent, scenario, waitFor } from './helpers.js';

/** Every delay level 100 ms, so retries come back at once. */
const FAST_DELAYS = Array.from({ length: 18 }, () => '100ms').join(' ');

test('a failing message goes to %RETRY% and, after maxReconsumeTimes, to the DLQ', async () => {
  await scenario(
    { brokers: 1, brokerOptions: { messageDelayLevel: FAST_DELAYS } },
    2,
    async ({ h, topic, group }) => {
      const attempts: Array<{ msgId: string; topic: string; reconsumeTimes: number }> = [];
      const errors: HandlerErrorEvent[] = [];
      const c = h.consumer({
        consumerGroup: group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        maxReconsumeTimes: 2,
      });
      c.on('handlerError', (e) => errors.push(e));
      c.subscribe(topic, '*');
      await c.start((m: ConsumerMessage) => {
        attempts.push({ msgId: m.msgId, topic: m.topic, reconsumeTimes: m.reconsumeTimes });
        if (m.body.toString() === 'm0') throw new Error('always fails');
      });
      const [failing, fine] = await h.send(topic, 2);
      await waitFor(() => attempts.filter((a) => a.msgId === failing).length >= 3, 'three attempts');
      assert.deepEqual(await readTopicWhenPresent(h.cluster.namesrvAddr, `%DLQ%${group}`), ['m0']);
      const tries = attempts.filter((a) => a.msgId === failing);
      assert.deepEqual(
        tries.map((a) => a.reconsumeTimes),
        [0, 1, 2],
        'first delivery, then two retries through %RETRY%',
      );
      assert.ok(
        tries.every((a) => a.topic === topic),
        'retries carry the original topic',
      );
      assert.equal(attempts.filter((a) => a.msgId === fine).length, 1);
      assert.equal(errors.length, 3);
    },
  );
});

test('handlers that throw synchronously, reject or never settle do not stop the other queues', async () => {
  await scenario(
    { brokers: 1, brokerOptions: { messageDelayLevel: FAST_DELAYS } },
    4,
    async ({ h, topic, group }) => {
      const ok = new Set<string>();
      let timeouts = 0;
      const c = h.consumer({
        consumerGroup: group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeThreadMax: 2,
        consumeTimeout: 0.005, // 300 ms
        maxReconsumeTimes: 1,
      });
      c.on('handlerError', (e) => {
        if (e.timedOut) timeouts++;
      });
      c.subscribe(topic, '*');
      await c.start((m: ConsumerMessage) => {
        const tag = m.tags;
        if (tag === 'sync') throw new Error('sync throw');
        if (tag === 'reject') return Promise.reject(new Error('rejected'));
        if (tag === 'hang') return new Promise(() => undefined);
        ok.add(m.msgId);
        return undefined;
      });
      const tags = ['hang', 'sync', 'reject', 'hang'];
      const ids = await h.send(topic, 40, (i) => (i < 4 ? tags[i] : 'ok'));
      const good = ids.slice(4);
      await waitFor(() => good.every((id) => ok.has(id)), 'every good message');
      await waitFor(() => timeouts >= 2, 'the hung calls to time out');
    },
  );
});

test('with a namespace, topics and retries travel wrapped and reach the handler unwrapped', async () => {
  await scenario(
    { brokers: 1, brokerOptions: { messageDelayLevel: FAST_DELAYS } },
    1,
    async ({ h, group }) => {
      const ns = 'tenant1';
      const topic = 'NsTopic';
      await h.cluster.createTopic(`${ns}%${topic}`, 2);
      const producer = new Producer({
        producerGroup: 'NsP',
        namesrvAddr: h.cluster.namesrvAddr,
        namespace: ns,
      });
      await producer.start();
      try {
        const seen: Array<{ topic: string; reconsumeTimes: number; queueTopic: string }> = [];
        const c = h.consumer({
          consumerGroup: group,
          namespace: ns,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        });
        const events: string[] = [];
        c.on('rebalance', (e) => events.push(e.topic));
        c.subscribe(topic);
        await c.start((m: ConsumerMessage) => {
          seen.push({ topic: m.topic, reconsumeTimes: m.reconsumeTimes, queueTopic: m.queue.topic });
          if (m.reconsumeTimes === 0) throw new Error('once');
        });
        await producer.send({ topic, body: 'x' });
        await waitFor(() => seen.length === 2, 'the delivery and its retry');
        assert.deepEqual(
          seen.map((s) => [s.topic, s.reconsumeTimes]),
          [
            [topic, 0],
            [topic, 1],
          ],
        );
        assert.equal(
          seen[1]!.queueTopic,
          `%RETRY%${ns}%${group}`,
          'the retry came through the namespaced retry topic',
        );
        assert.ok(events.includes(topic), 'events name the topic without the namespace');
      } finally {
        await producer.shutdown();
      }
    },
  );
});

test('a handler call past consumeTimeout is retried through %RETRY% and, after maxReconsumeTimes, lands in the DLQ', async () => {
  await scenario(
    { brokers: 1, brokerOptions: { messageDelayLevel: FAST_DELAYS } },
    1,
    async ({ h, topic, group }) => {
      const attempts: number[] = [];
      const c = h.consumer({
        consumerGroup: group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeTimeout: 0.005, // 300 ms
        maxReconsumeTimes: 1,
      });
      c.subscribe(topic);
      await c.start((m: ConsumerMessage) => {
        attempts.push(m.reconsumeTimes);
        return new Promise(() => undefined); // never settles
      });
      await h.send(topic, 1);
      assert.deepEqual(await readTopicWhenPresent(h.cluster.namesrvAddr, `%DLQ%${group}`, 15_000), ['m0']);
      assert.deepEqual(attempts, [0, 1], 'the first call and one retry, each timed out');
    },
  );
});
