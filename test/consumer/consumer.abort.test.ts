/**
 * AbortSignal on the waiting calls of LitePullConsumer (`poll`, `messages`) and PushConsumer
 * (`lag`), on an embedded cluster: aborted before the call nothing waits; aborted while it waits
 * the waiter or request leaves at once, no message is taken, and the next call works.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { InvalidArgumentError } from '../../src/errors.js';
import { AbortError } from '../../src/errors/abort.js';
import { RequestCode } from '../../src/protocol/codes.js';
import type { ClientInstance } from '../../src/client/client-instance.js';
import type { LitePullCache } from '../../src/consumer/lite-pull/cache.js';
import type { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { countRequests, pendingRequests } from '../helpers/request-counter.js';
import { liteScenario, pollUntil } from './lite-pull-helpers.js';
import { scenario, waitFor } from './helpers.js';

function aborted(): AbortSignal {
  const c = new AbortController();
  c.abort();
  return c.signal;
}

const cacheOf = (c: LitePullConsumer): LitePullCache => (c as unknown as { cache: LitePullCache }).cache;
const Q0 = (topic: string) => ({ topic, brokerName: 'broker-a', queueId: 0 });

test('LitePullConsumer.poll: aborted before or while it waits, it rejects and takes no message', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.assign([Q0(topic)]);
    await c.start();
    await assert.rejects(c.poll(1000, { signal: aborted() }), AbortError);
    await assert.rejects(c.poll(1000, { signal: 'x' as unknown as AbortSignal }), InvalidArgumentError);
    const controller = new AbortController();
    const waiting = c.poll(60_000, { signal: controller.signal });
    await waitFor(() => cacheOf(c).pollers === 1, 'the poll waiting');
    controller.abort();
    await assert.rejects(waiting, AbortError);
    assert.equal(cacheOf(c).pollers, 0);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    // Nothing was taken by the aborted poll: every message from offset 0 comes to the next ones.
    await h.send(topic, 3);
    const got = await pollUntil(c, 3);
    assert.deepEqual(
      got.map((m) => m.queueOffset),
      [0, 1, 2],
    );
  });
});

test('LitePullConsumer.messages({ signal }): an abort ends the loop with AbortError', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 2);
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.assign([Q0(topic)]);
    await c.start();
    const controller = new AbortController();
    const offsets: number[] = [];
    await assert.rejects(async () => {
      for await (const m of c.messages({ signal: controller.signal })) {
        offsets.push(m.queueOffset);
        if (offsets.length === 2) controller.abort();
      }
    }, AbortError);
    assert.deepEqual(offsets, [0, 1]);
    assert.equal(cacheOf(c).pollers, 0);
  });
});

test('PushConsumer.lag: aborted while a broker hangs, it rejects at once and leaves no request', async () => {
  await scenario({ brokers: 1, faultInjection: true }, 2, async ({ h, topic, group }) => {
    const c = h.consumer({ consumerGroup: group });
    c.subscribe(topic);
    await c.start(() => undefined);
    const held = (c as unknown as { rebalancer: { table: Map<string, unknown> } }).rebalancer.table.size;
    assert.ok(held >= 2, `${held} queues held`);
    const instance = (c as unknown as { instance: ClientInstance }).instance;
    await assert.rejects(c.lag({ signal: aborted() }), AbortError);
    const broker = h.cluster.broker('broker-a');
    broker.faults.set({ hang: true, requestCodes: [RequestCode.GET_MAX_OFFSET] });
    const asks = countRequests([RequestCode.GET_MAX_OFFSET]);
    try {
      const controller = new AbortController();
      const lagging = c.lag({ signal: controller.signal });
      await waitFor(
        () => pendingRequests(instance.pool, RequestCode.GET_MAX_OFFSET) === held,
        'requests pending',
      );
      await waitFor(() => asks.count() === held, 'a GET_MAX_OFFSET per queue on the wire');
      controller.abort();
      await assert.rejects(lagging, AbortError);
      assert.equal(pendingRequests(instance.pool, RequestCode.GET_MAX_OFFSET), 0);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    } finally {
      broker.faults.clear();
      asks.stop();
    }
    const lag = await c.lag();
    assert.equal(lag.length, held);
    // reply() with an aborted signal rejects before it looks at the message or sends anything.
    const replies = countRequests([RequestCode.SEND_REPLY_MESSAGE_V2]);
    try {
      await assert.rejects(c.reply({} as ConsumerMessage, 'r', undefined, { signal: aborted() }), AbortError);
      assert.equal(replies.count(), 0);
    } finally {
      replies.stop();
    }
  });
});

test('LitePullConsumer seek, offsetForTimestamp, committed and commit: aborted while the broker hangs, they reject and the position stays', async () => {
  await liteScenario({ brokers: 1, faultInjection: true }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 3);
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', autoCommit: false });
    const q = Q0(topic);
    c.assign([q]);
    await c.start();
    for (const call of [
      () => c.seek(q, 1, { signal: aborted() }),
      () => c.seekToEnd(q, { signal: aborted() }),
      () => c.offsetForTimestamp(q, 0, { signal: aborted() }),
      () => c.committed(q, { signal: aborted() }),
      () => c.commit(undefined, { signal: aborted() }),
      () => c.fetchMessageQueues(topic, { signal: aborted() }),
    ])
      await assert.rejects(call(), AbortError);
    const broker = h.cluster.broker('broker-a');
    broker.faults.set({
      hang: true,
      requestCodes: [RequestCode.GET_MAX_OFFSET, RequestCode.SEARCH_OFFSET_BY_TIMESTAMP],
    });
    try {
      const seek = new AbortController();
      const seeking = c.seekToEnd(q, { signal: seek.signal });
      const search = new AbortController();
      const searching = c.offsetForTimestamp(q, Date.now(), { signal: search.signal });
      seek.abort();
      search.abort();
      await assert.rejects(seeking, AbortError);
      await assert.rejects(searching, AbortError);
      assert.equal(getEventListeners(seek.signal, 'abort').length, 0);
    } finally {
      broker.faults.clear();
    }
    // The aborted seekToEnd changed nothing: polling still starts at offset 0.
    const got = await pollUntil(c, 3);
    assert.deepEqual(
      got.map((m) => m.queueOffset),
      [0, 1, 2],
    );
  });
});
