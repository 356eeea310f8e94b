import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { flowControlReason, queueThresholds } from '../../src/consumer/core/flow-control.js';
import { ProcessQueue, type CachedMessage } from '../../src/consumer/core/process-queue.js';

function msgs(...offsets: number[]): CachedMessage[] {
  return offsets.map((queueOffset) => ({ queueOffset, body: Buffer.alloc(10) }));
}

test('the commit offset is the smallest offset still in flight, max + 1 when none is', () => {
  const pq = new ProcessQueue();
  assert.equal(pq.removeMessages(msgs(1)), -1, 'nothing cached: -1');
  const [m10, m11, m12, m13] = msgs(10, 11, 12, 13) as [
    CachedMessage,
    CachedMessage,
    CachedMessage,
    CachedMessage,
  ];
  assert.equal(pq.putMessages([m10, m11, m12, m13]), 4);
  assert.equal(pq.msgCount, 4);
  assert.equal(pq.msgSize, 40);
  // 11 and 13 finish first: 10 is still in flight, so nothing above it may be committed.
  assert.equal(pq.removeMessages([m11, m13]), 10);
  assert.equal(pq.removeMessages([m10]), 12);
  assert.equal(pq.removeMessages([m12]), 14);
  assert.equal(pq.msgCount, 0);
  assert.equal(pq.msgSize, 0);
});

test('duplicate and older offsets are not cached twice', () => {
  const pq = new ProcessQueue();
  pq.putMessages(msgs(5, 6, 7));
  assert.equal(pq.putMessages(msgs(6, 7, 8)), 1);
  assert.equal(pq.msgCount, 4);
  assert.equal(pq.queueOffsetMax, 8);
});

test('span is last minus first cached offset (flow control by span)', () => {
  const pq = new ProcessQueue();
  assert.equal(pq.maxSpan(), 0);
  const list = msgs(100, 101, 2200);
  pq.putMessages(list);
  assert.equal(pq.maxSpan(), 2100);
  pq.removeMessages([list[0]!]);
  assert.equal(pq.maxSpan(), 2099);
});

test('orderly take / commit / rollback keeps offset order and commits last + 1', () => {
  const pq = new ProcessQueue();
  pq.putMessages(msgs(0, 1, 2, 3, 4));
  assert.deepEqual(
    pq.takeMessages(2).map((m) => m.queueOffset),
    [0, 1],
  );
  pq.rollback();
  assert.deepEqual(
    pq.takeMessages(2).map((m) => m.queueOffset),
    [0, 1],
    'a rollback retries the same messages in place',
  );
  assert.equal(pq.commit(), 2);
  assert.equal(pq.commit(), -1, 'nothing taken: nothing to commit');
  assert.deepEqual(
    pq.takeMessages(10).map((m) => m.queueOffset),
    [2, 3, 4],
  );
  assert.equal(pq.commit(), 5);
  assert.equal(pq.msgCount, 0);
});

test('lock and pull expiry', () => {
  const pq = new ProcessQueue();
  pq.lastLockTimestamp = 1000;
  assert.equal(pq.isLockExpired(30_000, 20_000), false);
  assert.equal(pq.isLockExpired(30_000, 31_001), true);
  pq.lastPullTimestamp = 0;
  assert.equal(pq.isPullExpired(120_000, 120_001), true);
  const info = pq.info(7);
  assert.equal(info.commitOffset, 7);
  assert.equal(info.droped, false);
});

test('flow control: count, size and span thresholds; topic thresholds split over the held queues', () => {
  const base = {
    pullThresholdForQueue: 3,
    pullThresholdSizeForQueue: 1,
    pullThresholdForTopic: -1,
    pullThresholdSizeForTopic: -1,
  };
  assert.deepEqual(queueThresholds(base, 4), { count: 3, sizeMiB: 1 });
  assert.deepEqual(
    queueThresholds({ ...base, pullThresholdForTopic: 100, pullThresholdSizeForTopic: 10 }, 4),
    {
      count: 25,
      sizeMiB: 2,
    },
  );
  assert.deepEqual(queueThresholds({ ...base, pullThresholdForTopic: 2 }, 8).count, 1, 'never below 1');
  const pq = new ProcessQueue();
  const t = queueThresholds(base, 1);
  pq.putMessages(msgs(0, 1, 2));
  assert.equal(flowControlReason(pq, t, 2000), undefined);
  pq.putMessages(msgs(3));
  assert.equal(flowControlReason(pq, t, 2000), 'cached message count');
  const big = new ProcessQueue();
  big.putMessages([{ queueOffset: 0, body: Buffer.alloc(2 * 1024 * 1024) }]);
  assert.equal(flowControlReason(big, t, 2000), 'cached message size');
  const wide = new ProcessQueue();
  wide.putMessages(msgs(0, 5000));
  assert.equal(flowControlReason(wide, t, 2000), 'offset span');
  assert.equal(flowControlReason(wide, t, undefined), undefined, 'orderly: no span limit');
});

test('finishing thousands of messages in random order, with gaps, commits the smallest in flight', () => {
  const pq = new ProcessQueue();
  // Offsets with holes (messages the tag filter dropped), pulled in batches of 32.
  const all = msgs(...Array.from({ length: 5000 }, (_, i) => i * 2 + (i % 7 === 0 ? 1 : 0)));
  for (let i = 0; i < all.length; i += 32) pq.putMessages(all.slice(i, i + 32));
  const inFlight = new Set(all.map((m) => m.queueOffset));
  // A fixed pseudo-random order (LCG): reproducible, and mostly but not wholly in order.
  let seed = 42;
  const order = all
    .map((m, i) => ({ m, key: i + (((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 400) - 200) }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.m);
  for (const m of order) {
    inFlight.delete(m.queueOffset);
    const expected = inFlight.size === 0 ? all[all.length - 1]!.queueOffset + 1 : Math.min(...inFlight);
    assert.equal(pq.removeMessages([m]), expected);
    assert.equal(pq.msgCount, inFlight.size);
  }
  assert.equal(pq.msgSize, 0);
  assert.equal(pq.removeMessages([all[0]!]), -1, 'empty again');
});

test('a message finished twice is removed once', () => {
  const pq = new ProcessQueue();
  const list = msgs(1, 2, 3);
  pq.putMessages(list);
  assert.equal(pq.removeMessages([list[1]!]), 1);
  assert.equal(pq.removeMessages([list[1]!]), 1);
  assert.equal(pq.msgCount, 2);
  assert.equal(pq.msgSize, 20);
});
