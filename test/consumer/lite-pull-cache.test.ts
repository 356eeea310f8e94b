import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LitePullCache, type PulledBatch } from '../../src/consumer/lite-pull/cache.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { ProcessQueue } from '../../src/consumer/core/process-queue.js';
import type { QueueEntry } from '../../src/consumer/core/pull-loop.js';

function entry(queueId: number): QueueEntry {
  const mq = { topic: 'T', brokerName: 'broker-a', queueId };
  return { key: `T@broker-a@${queueId}`, mq, pq: new ProcessQueue<ConsumerMessage>(), nextOffset: 0 };
}

function batch(e: QueueEntry, offsets: number[]): PulledBatch {
  return { entry: e, messages: offsets.map((o) => ({ queueOffset: o }) as ConsumerMessage) };
}

const offsetsOf = (bs: PulledBatch[]): string[] =>
  bs.flatMap((b) => b.messages.map((m) => `${b.entry.mq.queueId}:${m.queueOffset}`));

test('the lite pull cache hands out whole batches up to the limit and keeps each queue in order', () => {
  const cache = new LitePullCache();
  const q0 = entry(0);
  const q1 = entry(1);
  cache.put(batch(q0, [0, 1, 2]));
  cache.put(batch(q1, [0, 1, 2, 3, 4]));
  cache.put(batch(q0, [3]));
  cache.put(batch(q1, [5]));
  assert.equal(cache.waiting, 10);
  // q1's first batch does not fit next to q0's, so q1's later batch must wait behind it.
  assert.deepEqual(offsetsOf(cache.takeNow(5, () => true)), ['0:0', '0:1', '0:2', '0:3']);
  assert.deepEqual(offsetsOf(cache.takeNow(5, () => true)), ['1:0', '1:1', '1:2', '1:3', '1:4']);
  assert.deepEqual(offsetsOf(cache.takeNow(5, () => true)), ['1:5']);
  assert.equal(cache.waiting, 0);
});

test('the lite pull cache skips held-back queues and discards batches of dropped ones', () => {
  const cache = new LitePullCache();
  const q0 = entry(0);
  const q1 = entry(1);
  cache.put(batch(q0, [0]));
  cache.put(batch(q1, [0]));
  q0.pq.dropped = true;
  assert.deepEqual(offsetsOf(cache.takeNow(10, (b) => b.entry !== q1)), []);
  assert.equal(cache.waiting, 1, 'the dropped batch is gone, the held-back one stays');
  assert.deepEqual(offsetsOf(cache.takeNow(10, () => true)), ['1:0']);
});

test('a lite pull cache wait ends on a new batch and at close', async () => {
  const cache = new LitePullCache();
  const waiting = cache.wait(60_000);
  cache.put(batch(entry(0), [0]));
  await waiting;
  const second = cache.wait(60_000);
  cache.close();
  await second;
  assert.equal(cache.waiting, 0);
  cache.put(batch(entry(0), [1]));
  assert.equal(cache.waiting, 0, 'a closed cache takes nothing');
});
