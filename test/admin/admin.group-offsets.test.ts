/**
 * Admin on a consumer group that is online but has not committed every queue: the state right
 * after a PushConsumer starts, before its first pull of each empty queue answers "nothing new"
 * (only then does it commit that queue). The long poll is made longer than the test so no empty
 * queue ever gets that answer here.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { ConsumerGroupNotFoundError } from '../../src/errors.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { scenario, waitFor, type Scenario } from '../consumer/helpers.js';

const QUEUES = 4;

interface OnlineGroup extends Scenario {
  admin: Admin;
  c: PushConsumer;
  got: ConsumerMessage[];
  /** The group's committed offset of a queue on the broker, undefined when none. */
  stored(queueId: number): number | undefined;
}

async function onlineGroup(fn: (s: OnlineGroup) => Promise<void>): Promise<void> {
  await scenario({ brokers: 1 }, QUEUES, async (s) => {
    const admin = new Admin({ namesrvAddr: s.h.cluster.namesrvAddr });
    try {
      const got: ConsumerMessage[] = [];
      const c = s.h.consumer({
        consumerGroup: s.group,
        brokerSuspendMaxTimeMillis: 120_000,
        consumerTimeoutMillisWhenSuspend: 130_000,
      });
      c.subscribe(s.topic);
      await c.start((m: ConsumerMessage) => void got.push(m));
      await waitFor(
        () => [...c.internals.table.keys()].filter((k) => k.startsWith(s.topic)).length === QUEUES,
        'every queue held',
      );
      const store = s.h.cluster.brokers[0]!.broker.store;
      const stored = (queueId: number): number | undefined =>
        store.consumerOffsets.get(s.group, s.topic, queueId);
      await fn({ ...s, admin, c, got, stored });
    } finally {
      await admin.close();
    }
  });
}

test('consumerProgress of a group online that has committed nothing yet shows its member and its queues', async () => {
  await onlineGroup(async ({ admin, c, group, topic }) => {
    const progress = await admin.consumerProgress(group);
    assert.deepEqual(
      progress.members.map((m) => m.clientId),
      [c.clientId],
      'the online member',
    );
    const own = progress.queues.filter((q) => q.topic === topic);
    assert.deepEqual(
      own.map((q) => [q.queueId, q.brokerOffset, q.consumerOffset]),
      [
        [0, 0, 0],
        [1, 0, 0],
        [2, 0, 0],
        [3, 0, 0],
      ],
    );
    const one = await admin.consumerProgress(group, topic);
    assert.equal(one.queues.length, QUEUES, 'asked for the topic by name');
    assert.equal(one.members.length, 1);

    await c.shutdown();
    await assert.rejects(
      admin.consumerProgress(group),
      (err: unknown) => err instanceof ConsumerGroupNotFoundError && /no online member/.test(err.message),
      'offline and nothing committed: unknown',
    );
  });
});

test('resetOffsetByTime with force on an online group whose other queues never held a message', async () => {
  await onlineGroup(async ({ h, admin, got, group, topic, stored }) => {
    const [msgId] = await h.send(topic, 1);
    await waitFor(() => got.some((m) => m.msgId === msgId), 'the message consumed');
    const queueId = got[0]!.queue.queueId;
    await waitFor(() => stored(queueId) === 1, 'its offset committed');
    const never = [0, 1, 2, 3].filter((q) => q !== queueId);
    assert.deepEqual(
      never.map(stored),
      [undefined, undefined, undefined],
      'the empty queues have no committed offset (the case the broker refuses)',
    );

    const reset = await admin.resetOffsetByTime(group, topic, 0, true);
    assert.deepEqual(
      reset.map((r) => [r.queueId, r.offset]),
      [
        [0, 0],
        [1, 0],
        [2, 0],
        [3, 0],
      ],
    );
    await waitFor(() => got.filter((m) => m.msgId === msgId).length === 2, 'the message consumed again');
    assert.deepEqual(never.map(stored), [0, 0, 0], 'the empty queues now hold their reset offset');
  });
});
