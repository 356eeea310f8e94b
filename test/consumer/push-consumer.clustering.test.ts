import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { scenario, waitFor } from './helpers.js';

test('three consumers of one group see every message once in steady state', async () => {
  await scenario({}, 4, async ({ h, topic, group }) => {
    const seen = new Map<string, number>();
    const byConsumer = [0, 0, 0];
    for (let i = 0; i < 3; i++) {
      const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
      c.subscribe(topic, '*');
      await c.start((m: ConsumerMessage) => {
        seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
        byConsumer[i]!++;
      });
    }
    // Wait until the three hold 8 queues between them, none twice.
    await waitFor(() => {
      const held = h.consumers.flatMap((c) =>
        [...c.internals.table.keys()].filter((k) => k.startsWith(topic)),
      );
      return held.length === 8 && new Set(held).size === 8;
    }, 'a stable allocation');
    const ids = await h.send(topic, 200);
    await waitFor(() => seen.size === 200, 'every message');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(seen.size, 200);
    for (const id of ids) assert.equal(seen.get(id), 1, `message ${id} consumed once`);
    assert.ok(
      byConsumer.every((n) => n > 0),
      `each consumer got a share: ${byConsumer.join(',')}`,
    );
  });
});
