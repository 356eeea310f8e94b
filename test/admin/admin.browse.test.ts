/**
 * Admin's paged readers on an embedded cluster: a topic between two store times (offset look-up
 * by time, then pages through the per-queue cursor), a group's dead letters newest first, and
 * the request mode (PULL/POP) a group was switched to.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import type { BrowsePage, DeadLetterPage } from '../../src/admin/browse.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { InvalidArgumentError, TopicNotFoundError } from '../../src/errors.js';
import { scenario, waitFor, type Scenario } from '../consumer/helpers.js';

async function withAdmin(
  brokers: number,
  queues: number,
  fn: (s: Scenario & { admin: Admin }) => Promise<void>,
): Promise<void> {
  await scenario({ brokers }, queues, async (s) => {
    const admin = new Admin({ namesrvAddr: s.h.cluster.namesrvAddr });
    try {
      await fn({ ...s, admin });
    } finally {
      await admin.close();
    }
  });
}

/** Resolves once the clock has passed `t` (store times are milliseconds). */
async function after(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((r) => setTimeout(r, 2));
}

test('browse by store time: the pages of the range hold each message stored in it once, and none outside it', async () => {
  await withAdmin(2, 2, async ({ h, topic, admin }) => {
    const send = async (n: number, label: string): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++)
        ids.push((await h.producer.send({ topic, body: `${label}${i}`, keys: label })).msgId);
      return ids;
    };
    await send(5, 'early');
    await after(Date.now());
    const begin = Date.now();
    const inside = await send(9, 'inside');
    await after(Date.now());
    const end = Date.now() - 1;
    await send(4, 'late');

    const seen: string[] = [];
    let page: BrowsePage = await admin.browseMessages({ topic, begin, end, pageSize: 4 });
    let pages = 1;
    for (;;) {
      assert.ok(page.messages.length <= 4, 'a page is bounded by pageSize');
      for (const m of page.messages) {
        assert.ok(m.storeTimestamp >= begin && m.storeTimestamp <= end, 'stored within the range');
        seen.push(m.msgId);
      }
      if (!page.next) break;
      page = await admin.browseMessages({ topic, begin, end, pageSize: 4, cursor: page.next });
      pages++;
      assert.ok(pages < 20, 'the cursor moves forward');
    }
    assert.deepEqual([...seen].sort(), [...inside].sort());
    assert.ok(pages >= 3, `9 messages in pages of 4 take at least 3 pages, took ${pages}`);

    // one queue only: what the range holds of that queue
    const q0 = await admin.browseMessages({ topic, begin, end, queueId: 0, pageSize: 256 });
    assert.ok(q0.messages.every((m) => m.queueId === 0));
    assert.ok(q0.queues.every((q) => q.queueId === 0));
  });
});

test('browse by store time: end before begin, an unknown topic, a queue or broker out of range and a foreign cursor are typed errors', async () => {
  await withAdmin(1, 2, async ({ topic, admin }) => {
    const now = Date.now();
    await assert.rejects(admin.browseMessages({ topic, begin: now, end: now - 1 }), (e: unknown) => {
      assert.ok(e instanceof InvalidArgumentError);
      assert.equal(e.field, 'end');
      return true;
    });
    await assert.rejects(
      admin.browseMessages({ topic: 'NoSuchTopic_x', begin: 0, end: now }),
      TopicNotFoundError,
    );
    await assert.rejects(admin.browseMessages({ topic, begin: 0, end: now, queueId: 2 }), (e: unknown) => {
      assert.ok(e instanceof InvalidArgumentError);
      assert.equal(e.field, 'queueId');
      return true;
    });
    await assert.rejects(
      admin.browseMessages({ topic, begin: 0, end: now, brokerName: 'nobody' }),
      InvalidArgumentError,
    );
    await assert.rejects(
      admin.browseMessages({ topic, begin: 0, end: now, pageSize: 0 }),
      InvalidArgumentError,
    );
    await assert.rejects(
      admin.browseMessages({
        topic,
        begin: 0,
        end: now,
        cursor: [{ topic: 'Other', brokerName: 'broker-a', queueId: 0, offset: 0, endOffset: 1 }],
      }),
      InvalidArgumentError,
    );
    // an empty range is an empty last page, not an error
    const empty = await admin.browseMessages({ topic, begin: 0, end: now });
    assert.deepEqual(empty.messages, []);
    assert.equal(empty.next, undefined);
  });
});

test('dead letters: none for a group that never failed, then newest first with their original topic, paged to the oldest', async () => {
  await withAdmin(1, 2, async ({ h, topic, group, admin }) => {
    const none = await admin.deadLetters(group);
    assert.equal(none.exists, false);
    assert.deepEqual(none.messages, []);
    assert.equal(none.next, undefined);
    await assert.rejects(admin.deadLetters('bad group!'), InvalidArgumentError);

    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      maxReconsumeTimes: 0,
    });
    c.subscribe(topic, '*');
    const failed = new Set<string>();
    await c.start((m: ConsumerMessage) => {
      failed.add(m.msgId);
      throw new Error('always fails');
    });
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      sent.push((await h.producer.send({ topic, body: `dead${i}`, keys: `k${i}`, tags: 'T' })).msgId);
      await after(Date.now());
    }
    let first: DeadLetterPage | undefined;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      first = await admin.deadLetters(group, 2).catch(() => undefined);
      if (first && first.total >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(first && first.total === 3, 'three dead letters');
    assert.equal(first.exists, true);
    assert.equal(first.messages.length, 2);
    assert.ok(first.messages.every((m) => m.originalTopic === topic && m.topic === `%DLQ%${group}`));
    assert.ok(first.messages[0]!.storeTimestamp >= first.messages[1]!.storeTimestamp, 'newest first');
    assert.ok(first.next);
    const second = await admin.deadLetters(group, 2, first.next);
    assert.equal(second.messages.length, 1);
    assert.equal(second.next, undefined);
    const all = [...first.messages, ...second.messages];
    assert.deepEqual(all.map((m) => m.msgId).sort(), [...sent].sort());
    assert.deepEqual(
      all.map((m) => m.keys[0]),
      ['k2', 'k1', 'k0'],
    );
    await waitFor(() => failed.size === 3, 'each delivered once');
  });
});

test('request mode: POP after SET_MESSAGE_REQUEST_MODE, read back for a group with a member online; undefined with none', async () => {
  await withAdmin(1, 2, async ({ h, topic, group, admin }) => {
    assert.equal(await admin.messageRequestMode(topic, group), undefined, 'no member online');
    const c = h.consumer({ consumerGroup: group, clientRebalance: false });
    c.subscribe(topic, '*');
    await c.start(() => undefined);
    const online = async (): Promise<'PULL' | 'POP' | undefined> => admin.messageRequestMode(topic, group);
    let mode = await online();
    for (let i = 0; mode === undefined && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      mode = await online();
    }
    assert.equal(mode, 'PULL');
    await admin.setMessageRequestMode(topic, group, 'POP');
    assert.equal(await online(), 'POP');
  });
});
