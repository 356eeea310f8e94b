import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { waitFor } from './helpers.js';
import { liteScenario } from './lite-pull-helpers.js';

test('two subscribed lite pull members split the queues and poll every message once', async () => {
  await liteScenario({}, 4, async ({ h, topic, consumer }) => {
    const members: LitePullConsumer[] = [];
    for (let i = 0; i < 2; i++) {
      const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
      c.subscribe(topic, '*');
      await c.start();
      members.push(c);
    }
    const key = (q: { brokerName: string; queueId: number }): string => `${q.brokerName}:${q.queueId}`;
    await waitFor(() => {
      const held = members.flatMap((c) => c.assignment().map(key));
      return held.length === 8 && new Set(held).size === 8 && members.every((c) => c.assignment().length > 0);
    }, 'an allocation of the 8 queues over both members');
    const split = members.map((c) => new Set(c.assignment().map(key)));
    assert.equal(split[0]!.size + split[1]!.size, 8);
    for (const q of split[0]!) assert.ok(!split[1]!.has(q), `queue ${q} held by both`);

    const ids = await h.send(topic, 120);
    const seen = new Map<string, number>();
    const got: ConsumerMessage[][] = [[], []];
    const deadline = Date.now() + 15_000;
    while (seen.size < 120 && Date.now() < deadline) {
      const batches = await Promise.all(members.map((c) => c.poll(200)));
      batches.forEach((b, i) => {
        got[i]!.push(...b);
        for (const m of b) seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
      });
    }
    for (const id of ids) assert.equal(seen.get(id), 1, `message ${id} polled once`);
    got.forEach((list, i) => {
      assert.ok(list.length > 0, `member ${i} polled a share`);
      for (const m of list) assert.ok(split[i]!.has(key(m.queue)), 'polled only from its own queues');
    });
  });
});

test('a subscribed lite pull consumer filters by tag', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, 'A || C');
    await c.start();
    await h.send(topic, 30, (i) => ['A', 'B', 'C'][i % 3]);
    const tags: string[] = [];
    const deadline = Date.now() + 10_000;
    while (tags.length < 20 && Date.now() < deadline)
      for (const m of await c.poll(200)) tags.push(m.tags ?? '');
    await new Promise((r) => setTimeout(r, 200));
    for (const m of await c.poll(100)) tags.push(m.tags ?? '');
    assert.equal(tags.length, 20);
    assert.ok(tags.every((t) => t === 'A' || t === 'C'));
  });
});

test('a subscribed lite pull group resumes after a restart where it stopped', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
    const ids = await h.send(topic, 30);
    const seen = new Set<string>();
    const first = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    first.subscribe(topic);
    await first.start();
    while (seen.size < 12) for (const m of await first.poll(200)) seen.add(m.msgId);
    await first.shutdown();
    const second = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    second.subscribe(topic);
    await second.start();
    const deadline = Date.now() + 10_000;
    while (seen.size < 30 && Date.now() < deadline)
      for (const m of await second.poll(200)) {
        assert.ok(!seen.has(m.msgId), `message ${m.msgId} polled again after the restart`);
        seen.add(m.msgId);
      }
    assert.deepEqual([...seen].sort(), [...ids].sort());
  });
});
