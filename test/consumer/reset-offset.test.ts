/**
 * RESET_CONSUMER_CLIENT_OFFSET on a running push consumer: every broker of the topic pushes its
 * own queues' reset at the same moment, and each reset must move only the queues it names.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { harness, unique, waitFor } from './helpers.js';

test('a reset pushed by two brokers at once re-delivers every message exactly once', async () => {
  const h = await harness({ brokers: 2 });
  const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
  try {
    const topic = unique('ResetT');
    const group = unique('ResetG');
    await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
    const got: ConsumerMessage[] = [];
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      got.push(m);
    });
    const ids = await h.send(topic, 20);
    await waitFor(() => got.length >= ids.length, 'consumed');
    // Let the offsets reach the brokers, so the reset has something to move back.
    for (let i = 0; (await admin.consumerProgress(group)).totalLag > 0; i++) {
      assert.ok(i < 100, 'offsets never committed');
      await new Promise((r) => setTimeout(r, 100));
    }
    const before = got.length;
    const reset = await admin.resetOffsetByTime(group, topic, 0, true);
    assert.equal(reset.length, 4);
    await waitFor(() => got.length >= before + ids.length, 'reconsumed after reset');
    await new Promise((r) => setTimeout(r, 1000));
    const again = got.slice(before).map((m) => m.msgId);
    assert.deepEqual([...again].sort(), [...ids].sort(), 'each message once more, none twice');
  } finally {
    await admin.close();
    await h.close();
  }
});
