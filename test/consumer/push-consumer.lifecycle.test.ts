import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { RebalanceEvent } from '../../src/consumer/core/rebalance.js';
import { scenario, stream, waitFor } from './helpers.js';

test('a member joins and another leaves mid-stream: queues move at once and no message is lost', async () => {
  await scenario({}, 4, async ({ h, topic, group }) => {
    const seen = new Map<string, string[]>();
    let leftAt = Infinity;
    const redeliveredAfterLeave: string[] = [];
    const handler =
      (name: string) =>
      (m: ConsumerMessage): void => {
        const history = seen.get(m.msgId) ?? [];
        history.push(
          `${name} ${m.queue.brokerName}/${m.queue.queueId}@${m.queueOffset} t=${Date.now() - leftAt}`,
        );
        if (history.length > 1 && Date.now() > leftAt) redeliveredAfterLeave.push(history.join(' | '));
        seen.set(m.msgId, history);
      };
    // The 60 s timer cannot be what rebalances: NOTIFY_CONSUMER_IDS_CHANGED must.
    const member = async (name: string) => {
      const c = h.consumer({
        consumerGroup: group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        rebalanceInterval: 60_000,
      });
      c.subscribe(topic);
      await c.start(handler(name));
      return c;
    };
    const a = await member('a');
    const { sent, stop } = stream(h, topic, 5);
    await waitFor(() => seen.size >= 50, 'the first consumer to consume');
    const aEvents: RebalanceEvent[] = [];
    a.on('rebalance', (e) => aEvents.push(e));
    const b = await member('b');
    await waitFor(
      () => aEvents.some((e) => e.topic === topic && e.removed.length > 0),
      'the first consumer to give queues away',
    );
    const share = () => [...b.internals.table.keys()].filter((k) => k.startsWith(topic)).length;
    await waitFor(() => share() === 4, 'the new member to take half of 8 queues');
    const before = seen.size;
    await waitFor(() => seen.size >= before + 50, 'consumption to go on');
    await a.shutdown();
    leftAt = Date.now();
    await waitFor(() => share() === 8, 'the survivor to take every queue');
    await stop();
    await waitFor(() => sent.every((id) => seen.has(id)), 'every sent message');
    // A join may re-deliver what the old owner had in flight (at-least-once, as Java); a clean
    // leave waits for its handlers and commits synchronously, so it re-delivers nothing.
    assert.deepEqual(redeliveredAfterLeave, []);
  });
});

test('a clean shutdown and restart re-deliver nothing', async () => {
  await scenario({ brokers: 1 }, 4, async ({ h, topic, group }) => {
    const seen = new Map<string, number>();
    const handler = async (m: ConsumerMessage): Promise<void> => {
      await new Promise((r) => setTimeout(r, 2));
      seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
    };
    const opts = {
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' as const,
      persistConsumerOffsetInterval: 60_000,
    };
    const first = h.consumer(opts);
    first.subscribe(topic);
    await first.start(handler);
    const ids = await h.send(topic, 100);
    await waitFor(() => seen.size === 100, 'the first run');
    // The 60 s persist timer never fired: only shutdown commits.
    await first.shutdown();
    const second = h.consumer(opts);
    second.subscribe(topic);
    await second.start(handler);
    await waitFor(
      () => [...second.internals.table.keys()].filter((k) => k.startsWith(topic)).length === 4,
      'queues',
    );
    const more = await h.send(topic, 10);
    await waitFor(() => more.every((id) => seen.has(id)), 'new messages');
    for (const id of [...ids, ...more]) assert.equal(seen.get(id), 1, `message ${id} consumed once`);
  });
});

test('a slow handler keeps the process-queue cache bounded by the pull thresholds', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    await h.send(topic, 300);
    let maxCached = 0;
    let consumed = 0;
    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      pullThresholdForQueue: 20,
      pullBatchSize: 8,
      consumeThreadMax: 4,
    });
    c.subscribe(topic);
    await c.start(async () => {
      for (const e of c.internals.table.values()) maxCached = Math.max(maxCached, e.pq.msgCount);
      await new Promise((r) => setTimeout(r, 5));
      consumed++;
    });
    await waitFor(() => consumed >= 150, 'half the backlog', 20_000);
    assert.ok(maxCached <= 20 + 8, `cache stayed within threshold + one pull: ${maxCached}`);
    assert.ok(maxCached > 0);
  });
});

test('a queue whose pull stalls longer than pullMaxIdleTime is re-created and consumption goes on', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (msg: string) => void warnings.push(msg) };
    const seen = new Set<string>();
    // A 1 s long poll against a 300 ms idle limit: every rebalance finds the pulls stalled.
    const c = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      pullMaxIdleTime: 300,
      brokerSuspendMaxTimeMillis: 1000,
      rebalanceInterval: 200,
      logger,
    });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      seen.add(m.msgId);
    });
    await waitFor(() => warnings.some((w) => w.includes('stalled')), 'a stalled queue to be re-created');
    const ids = await h.send(topic, 20);
    await waitFor(() => ids.every((id) => seen.has(id)), 'every message after the re-creation');
  });
});

test('a shutdown while handlers run lets them finish and commits them: the restart delivers every other message, none twice', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    const seen = new Map<string, number>();
    let running = 0;
    const handler = async (m: ConsumerMessage): Promise<void> => {
      running++;
      await new Promise((r) => setTimeout(r, 30));
      seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
      running--;
    };
    const options = {
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' as const,
      consumeThreadMax: 4,
      persistConsumerOffsetInterval: 60_000,
    };
    const ids = await h.send(topic, 60);
    const first = h.consumer(options);
    first.subscribe(topic);
    await first.start(handler);
    await waitFor(() => seen.size >= 10 && running > 0, 'the first consumer mid-stream');
    await first.shutdown();
    assert.equal(running, 0, 'shutdown waited for the running handlers');
    assert.ok(seen.size < ids.length, 'the shutdown came mid-stream');
    const second = h.consumer(options);
    second.subscribe(topic);
    await second.start(handler);
    await waitFor(() => ids.every((id) => seen.has(id)), 'every message');
    await new Promise((r) => setTimeout(r, 300));
    for (const id of ids) assert.equal(seen.get(id), 1, `message ${id} consumed once`);
  });
});
