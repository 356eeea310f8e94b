import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeldMessages } from '../../src/consumer/simple/held.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';

const queue = (queueId: number) => ({ topic: 'T', brokerName: 'b', queueId });
const message = (q: ReturnType<typeof queue>): PoppedMessage => ({ queue: q }) as unknown as PoppedMessage;

test('held messages count per queue until settled, extended or expired', () => {
  let now = 1000;
  const held = new HeldMessages(() => now);
  const q0 = queue(0);
  const q1 = queue(1);
  const [a, b, c] = [message(q0), message(q0), message(q1)];
  const batch = [a, b, c];
  held.add(batch, 100);
  // The application may change the array it got: the held record is its own.
  batch.length = 0;
  assert.deepEqual(Object.fromEntries(held.byQueue()), { 'T@b@0': 2, 'T@b@1': 1 });
  held.settle(a);
  held.settle(a);
  assert.deepEqual(Object.fromEntries(held.byQueue()), { 'T@b@0': 1, 'T@b@1': 1 });
  held.extend(c, 500);
  now = 1100;
  // b's invisible time is over; c's was extended to 1500.
  assert.deepEqual(Object.fromEntries(held.byQueue()), { 'T@b@1': 1 });
  assert.deepEqual(
    held.queues().map((q) => [q.mq.queueId, q.waitAckCount, q.lastPopTimestamp]),
    [
      [0, 0, 1000],
      [1, 1, 1000],
    ],
  );
  // Received again (given back and received): counted once, under its new receive.
  held.add([c], 50);
  assert.deepEqual(Object.fromEntries(held.byQueue()), { 'T@b@1': 1 });
  now = 1200;
  assert.deepEqual(Object.fromEntries(held.byQueue()), {});
  held.extend(a, 1000); // settled: not held again
  assert.deepEqual(Object.fromEntries(held.byQueue()), {});
  held.add([a], 100);
  held.clear();
  assert.deepEqual(Object.fromEntries(held.byQueue()), {});
  assert.deepEqual(held.queues(), []);
});
