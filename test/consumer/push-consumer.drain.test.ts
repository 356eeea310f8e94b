import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { scenario, waitFor } from './helpers.js';

const BACKLOG = 6000;
const BATCH = 50;

test("one consumer draining a fresh group's backlog sees every message exactly once", async () => {
  await scenario({}, 4, async ({ h, topic, group }) => {
    for (let i = 0; i < BACKLOG; i += BATCH) {
      const msgs = Array.from({ length: BATCH }, (_, k) => ({ topic, body: `m${i + k}` }));
      await h.producer.sendBatch(msgs);
    }
    // Judged against what the brokers stored, not against what was sent: a producer may store a
    // message twice (a retry, a hedged send), and each stored copy is a message to deliver once.
    const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
    let stored: number;
    try {
      const stats = await admin.topicStats(topic);
      stored = stats.queues.reduce((sum, q) => sum + q.maxOffset - q.minOffset, 0);
    } finally {
      await admin.close();
    }
    assert.ok(stored >= BACKLOG, `the brokers stored the backlog (${stored})`);

    const byOffset = new Map<string, number>();
    let delivered = 0;
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    // Rebalance rounds keep running (every 500 ms) during the drain: the same allocation must
    // leave every held queue and its pull position alone.
    await c.start(async (m: ConsumerMessage) => {
      const key = `${m.queue.brokerName}/${m.queue.queueId}/${m.queueOffset}`;
      byOffset.set(key, (byOffset.get(key) ?? 0) + 1);
      delivered++;
      await new Promise<void>((r) => setImmediate(r));
    });
    await waitFor(() => byOffset.size === stored, 'the whole backlog', 30_000);
    // Whatever else was in flight arrives now: two rebalance rounds and a persist.
    await new Promise((r) => setTimeout(r, 1200));
    const twice = [...byOffset].filter(([, n]) => n > 1).map(([k]) => k);
    assert.deepEqual(twice, [], 'no queue offset delivered twice');
    assert.equal(delivered, stored);
    const lag = await c.lag();
    assert.equal(
      lag.reduce((sum, q) => sum + q.lag, 0),
      0,
      'every queue committed up to its end',
    );
  });
});
