import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { clientInstances } from '../../src/client/instance-registry.js';
import type { ConsumeTraceContext } from '../../src/consumer/core/handler-pool.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { OffsetsCommittedEvent } from '../../src/consumer/push/push-consumer.js';
import { CONSUME_CHANNEL } from '../../src/observability/channels.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';
import { parseFastjsonBytes } from '../../src/protocol/fastjson.js';
import { runningStatus, scenario, waitFor } from './helpers.js';

/** Every delay level 100 ms, so a retry comes back at once. */
const FAST_DELAYS = Array.from({ length: 18 }, () => '100ms').join(' ');

test('every handler call is one span on rocketmq:consume; a throwing call ends in the span’s error event', async () => {
  const events: Array<{ kind: string; ctx: ConsumeTraceContext }> = [];
  const listeners = ['start', 'asyncEnd', 'error'].map((kind) => {
    const name = `tracing:${CONSUME_CHANNEL}:${kind}`;
    const fn = (ctx: unknown): void => void events.push({ kind, ctx: ctx as ConsumeTraceContext });
    diagnosticsChannel.subscribe(name, fn);
    return () => diagnosticsChannel.unsubscribe(name, fn);
  });
  try {
    await scenario(
      { brokers: 1, brokerOptions: { messageDelayLevel: FAST_DELAYS } },
      2,
      async ({ h, topic, group }) => {
        const calls: Array<{ msgId: string; offset: number; threw: boolean }> = [];
        const committed: OffsetsCommittedEvent[] = [];
        const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
        c.on('offsetsCommitted', (e) => committed.push(e));
        c.subscribe(topic);
        await c.start(async (m: ConsumerMessage) => {
          const threw = m.body.toString() === 'm2' && m.reconsumeTimes === 0;
          calls.push({ msgId: m.msgId, offset: m.queueOffset, threw });
          if (threw) throw new Error('first delivery fails');
        });
        const ids = await h.send(topic, 5);
        await waitFor(() => calls.length === 6, 'five deliveries and one retry');
        await waitFor(() => events.filter((e) => e.kind === 'asyncEnd').length === 6, 'every span ended');
        const starts = events.filter((e) => e.kind === 'start');
        assert.equal(starts.length, calls.length, 'one span per handler call');
        assert.deepEqual(starts.map((e) => e.ctx.msgIds[0]).sort(), calls.map((c) => c.msgId).sort());
        assert.ok(starts.every((e) => e.ctx.consumerGroup === group && e.ctx.offsets.length === 1));
        const errors = events.filter((e) => e.kind === 'error');
        assert.deepEqual(
          errors.map((e) => e.ctx.msgIds[0]),
          [ids[2]],
          'only the throwing call ends in error',
        );
        // Committed offsets reach the end of both queues (the retry came through %RETRY%).
        await waitFor(
          () =>
            committed.some(
              (e) => e.offsets.filter((o) => o.queue.topic === topic).reduce((a, o) => a + o.offset, 0) === 5,
            ),
          'an offsetsCommitted event covering the five messages',
        );
      },
    );
  } finally {
    for (const off of listeners) off();
  }
});

test('subscribing after start warns that the broker keeps the last heartbeat’s subscription, and the new topic is consumed', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    const later = `${topic}_later`;
    await h.cluster.createTopic(later, 2);
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (msg: string) => void warnings.push(msg) };
    const got: string[] = [];
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', logger });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => void got.push(m.topic));
    assert.deepEqual(
      warnings.filter((w) => w.includes('after start')),
      [],
    );
    c.subscribe(later, 'TagA');
    assert.ok(
      warnings.some((w) => /subscribed after start.*last heartbeat wins/.test(w)),
      warnings.join('\n'),
    );
    await h.send(later, 4, () => 'TagA');
    await waitFor(() => got.filter((t) => t === later).length === 4, 'the topic subscribed after start');
  });
});

test('GET_CONSUMER_RUNNING_INFO’s statusTable reports the topic’s pull and consume figures, none hard-coded', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    let consumed = 0;
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic);
    await c.start(async () => {
      // 5 ms asked; a timer may fire up to 1 ms early by Date.now (libuv's cached loop time).
      await new Promise((r) => setTimeout(r, 5));
      consumed++;
    });
    await h.send(topic, 20);
    await waitFor(() => consumed === 20, 'every message');
    const status = await runningStatus(c.clientId, group, topic);
    assert.ok(status.pullTPS! > 0, `pullTPS ${status.pullTPS}`);
    assert.ok(status.pullRT! > 0, `pullRT ${status.pullRT}`);
    assert.ok(status.consumeOKTPS! > 0 && status.consumeRT! >= 4, JSON.stringify(status));
    assert.equal(status.consumeFailedMsgs, 0);
  });
});

test('CONSUME_MESSAGE_DIRECTLY runs the handler on the message: CR_SUCCESS, or CR_THROW_EXCEPTION with the error', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    const direct: string[] = [];
    let delivered = 0;
    let directly = false;
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      if (!directly) return void delivered++;
      direct.push(`${m.topic}:${m.body.toString()}`);
      if (m.body.toString() === 'm1') throw new Error('handler says no');
    });
    await h.send(topic, 2);
    await waitFor(() => delivered === 2, 'the normal deliveries');
    directly = true;
    const stored = await h.cluster.brokers[0]!.broker.store.getMessages(topic, 0, 0, 2, 1 << 20);
    const instance = clientInstances().find((i) => i.clientId === c.clientId)!;
    const results: Array<Record<string, unknown>> = [];
    for (const record of stored.messages) {
      const response = await instance.inbound.dispatch(
        createRequest(
          RequestCode.CONSUME_MESSAGE_DIRECTLY,
          { consumerGroup: group, clientId: c.clientId, brokerName: 'broker-a' },
          record,
        ),
        { remoteAddress: '127.0.0.1:1' } as never,
      );
      assert.equal(response?.code, ResponseCode.SUCCESS);
      results.push(parseFastjsonBytes(response!.body!) as Record<string, unknown>);
    }
    assert.deepEqual(direct, [`${topic}:m0`, `${topic}:m1`]);
    assert.deepEqual(
      results.map((r) => r.consumeResult),
      ['CR_SUCCESS', 'CR_THROW_EXCEPTION'],
    );
    assert.match(String(results[1]!.remark), /handler says no/);
  });
});

test('a member subscribing a topic differently from what the broker keeps for the group is warned, at start and after it', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    const other = `${topic}_other`;
    await h.cluster.createTopic(other, 2);
    const brokerWarnings = (): string[] =>
      warnings.filter((w) => w.startsWith('the broker keeps another member'));
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (msg: string) => void warnings.push(msg) };
    const a = h.consumer({ consumerGroup: group });
    a.subscribe(topic, 'TagA');
    a.subscribe(other, 'TagA');
    await a.start(() => undefined);
    // Same filter: no warning.
    const same = h.consumer({ consumerGroup: group, logger });
    same.subscribe(topic, 'TagA');
    await same.start(() => undefined);
    assert.deepEqual(brokerWarnings(), []);
    await same.shutdown();
    // b heartbeats only when it must, so a's periodic heartbeat (500 ms) decides the table again.
    const b = h.consumer({ consumerGroup: group, logger, heartbeatBrokerInterval: 60_000 });
    b.subscribe(topic, 'TagB');
    await b.start(() => undefined);
    assert.equal(brokerWarnings().length, 1, warnings.join('\n'));
    await new Promise((r) => setTimeout(r, 800));
    b.subscribe(other, 'TagC');
    await waitFor(() => brokerWarnings().length === 2, 'the warning of the subscription after start');
  });
});
