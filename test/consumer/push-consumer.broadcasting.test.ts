import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { harness, unique, waitFor } from './helpers.js';

test('broadcasting: every consumer gets every message; a restart resumes from the local offset file', async () => {
  const h = await harness({ brokers: 1 });
  const dir = await mkdtemp(join(tmpdir(), 'rmq-ts-offsets-'));
  try {
    const topic = unique('Bcast');
    const group = unique('GBC');
    await h.cluster.createTopic(topic, 3);
    const seen = [new Map<string, number>(), new Map<string, number>()];
    const opts = (i: number) => ({
      consumerGroup: group,
      messageModel: 'BROADCASTING' as const,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' as const,
      offsetStoreDir: dir,
      instanceName: `bc${i}`,
    });
    const count = (i: number) => (m: ConsumerMessage) => {
      seen[i]!.set(m.msgId, (seen[i]!.get(m.msgId) ?? 0) + 1);
    };
    const first = [0, 1].map((i) => h.consumer(opts(i)));
    for (const [i, c] of first.entries()) {
      c.subscribe(topic);
      await c.start(count(i));
    }
    const ids = await h.send(topic, 30);
    await waitFor(() => seen.every((s) => s.size === 30), 'both consumers to see everything');
    for (const s of seen) for (const id of ids) assert.equal(s.get(id), 1);
    await first[1]!.shutdown();
    const again = h.consumer(opts(1));
    again.subscribe(topic);
    await again.start(count(1));
    const more = await h.send(topic, 5);
    await waitFor(() => more.every((id) => seen[1]!.has(id)), 'the restarted consumer to see new messages');
    for (const id of ids) assert.equal(seen[1]!.get(id), 1, 'nothing re-delivered after restart');
  } finally {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  }
});
