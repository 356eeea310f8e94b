import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/message-view.js';
import { PullReader } from '../../src/consumer/pull-reader.js';
import type { HandlerErrorEvent } from '../../src/consumer/push-consumer.js';
import { harness, scenario, unique, waitFor } from './helpers.js';

/** Every delay level 100 ms, so retries come back at once. */
const FAST_DELAYS = Array.from({ length: 18 }, () => '100ms').join(' ');

test('a failing message goes to %RETRY% and, after maxReconsumeTimes, to the DLQ', async () => {
  const h = await harness({ brokers: 1, brokerOptions: { messageDelayLevel: FAST_DELAYS } });
  const reader = new PullReader({ namesrvAddr: h.cluster.namesrvAddr });
  try {
    const topic = unique('Retry');
    const group = unique('GR');
    await h.cluster.createTopic(topic, 2);
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
    const dlq = `%DLQ%${group}`;
    let dead: string[] = [];
    for (let i = 0; i < 50 && dead.length === 0; i++) {
      try {
        dead = [];
        for await (const m of reader.readTopic(dlq)) dead.push(m.msgId);
      } catch {
        // the DLQ route may not be registered yet
      }
      if (dead.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(dead, [failing]);
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
  } finally {
    await reader.close();
    await h.close();
  }
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
