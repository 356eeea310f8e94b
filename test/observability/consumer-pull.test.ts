/**
 * The pull-style consumers' spans and metrics (docs/observability.md §1.1, §2.2) on the embedded
 * cluster with the real SDK in memory: SimpleConsumer receive (kind CLIENT, a link to each
 * message's producer), ack and changeInvisibleDuration (settle); LitePullConsumer poll.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import * as assert from 'node:assert/strict';
import * as api from '@opentelemetry/api';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import { setOpenTelemetryApiForTest } from '../../src/observability/otel/api.js';
import {
  clusterWithProducer,
  registerSdk,
  SENDER_SPAN_ID,
  spansNamed,
  total,
  TRACE_ID,
  TRACEPARENT,
  traceparent,
  unique,
  type Bench,
  type Sdk,
} from './consumer-helpers.js';

let sdk: Sdk;
let bench: Bench;
let closers: Array<() => Promise<void>>;

async function simpleConsumer(topic: string, openTelemetry = true): Promise<SimpleConsumer> {
  const c = new SimpleConsumer({
    namesrvAddr: bench.cluster.namesrvAddr,
    consumerGroup: unique('G'),
    subscriptions: { [topic]: '*' },
    awaitDuration: 300,
    invisibleDuration: 30_000,
    pollNameServerInterval: 500,
    openTelemetry,
  });
  closers.push(() => c.shutdown());
  await c.start();
  return c;
}

async function receiveAtLeast(c: SimpleConsumer, n: number): Promise<PoppedMessage[]> {
  const got: PoppedMessage[] = [];
  const deadline = Date.now() + 15_000;
  while (got.length < n && Date.now() < deadline) got.push(...(await c.receive(32)));
  assert.equal(got.length, n);
  return got;
}

describe('pull-style consumer spans', () => {
  beforeEach(async () => {
    sdk = registerSdk();
    bench = await clusterWithProducer();
    closers = [];
  });
  afterEach(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await bench.close();
    await sdk.close();
    setOpenTelemetryApiForTest(undefined);
  });

  it("SimpleConsumer receive: a CLIENT span linked to the sender's span; ack and changeInvisibleDuration are settle spans", async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    const sent = await bench.producer.send({ topic, body: 'x', properties: { traceparent: TRACEPARENT } });
    const c = await simpleConsumer(topic);
    const [m] = await receiveAtLeast(c, 1);
    assert.equal(m!.msgId, sent.msgId);
    const receives = spansNamed(sdk, `receive ${topic}`).filter((s) => s.links.length > 0);
    assert.equal(receives.length, 1);
    const r = receives[0]!;
    assert.equal(r.kind, api.SpanKind.CLIENT);
    assert.equal(r.attributes['messaging.operation.type'], 'receive');
    assert.equal(r.attributes['messaging.batch.message_count'], 1);
    assert.equal(r.attributes['messaging.message.id'], sent.msgId);
    assert.equal(r.links[0]!.context.traceId, TRACE_ID);
    assert.equal(r.links[0]!.context.spanId, SENDER_SPAN_ID);
    assert.notEqual(r.spanContext().traceId, TRACE_ID, 'receive is not part of the sender trace');

    // The application's own process span around the settle: the ack span is its child.
    const app = api.trace.getTracer('app').startSpan('app process');
    await api.context.with(api.trace.setSpan(api.context.active(), app), async () => {
      await c.changeInvisibleDuration(m!, 20_000);
      await c.ack(m!);
    });
    app.end();
    const [ack] = spansNamed(sdk, `ack ${topic}`);
    assert.equal(ack!.kind, api.SpanKind.CLIENT);
    assert.equal(ack!.attributes['messaging.operation.type'], 'settle');
    assert.equal(ack!.attributes['messaging.operation.name'], 'ack');
    assert.equal(ack!.parentSpanContext?.spanId, app.spanContext().spanId);
    const [change] = spansNamed(sdk, `change_invisible_duration ${topic}`);
    assert.equal(change!.attributes['messaging.operation.type'], 'settle');

    const consumed = await sdk.points('messaging.client.consumed.messages');
    assert.equal(
      total(consumed, { 'messaging.destination.name': topic, 'messaging.operation.name': 'receive' }),
      1,
    );
    const durations = await sdk.points('messaging.client.operation.duration');
    assert.equal(
      total(durations, { 'messaging.destination.name': topic, 'messaging.operation.name': 'ack' }),
      1,
    );
    assert.ok(total(durations, { 'messaging.operation.name': 'receive' }) >= 1);
  });

  it('SimpleConsumer: a refused ack is an ERROR settle span with error.type; a malformed traceparent is recorded on the receive', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    await bench.producer.send({ topic, body: 'x', properties: { traceparent: 'garbage' } });
    const c = await simpleConsumer(topic);
    const [m] = await receiveAtLeast(c, 1);
    const r = spansNamed(sdk, `receive ${topic}`).find(
      (s) => s.attributes['messaging.batch.message_count'] === 1,
    );
    assert.match(String(r!.attributes['messaging.rocketmq.trace_context.invalid']), /malformed traceparent/);
    await c.ack(m!);
    await assert.rejects(c.ack(m!));
    const acks = spansNamed(sdk, `ack ${topic}`);
    assert.equal(acks.length, 2);
    const failed = acks.find((s) => s.status.code === api.SpanStatusCode.ERROR);
    assert.equal(typeof failed!.attributes['error.type'], 'string');
  });

  it('SimpleConsumer with openTelemetry false: no spans', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    await bench.producer.send({ topic, body: 'x', properties: { traceparent: TRACEPARENT } });
    const c = await simpleConsumer(topic, false);
    const [m] = await receiveAtLeast(c, 1);
    await c.ack(m!);
    assert.equal(sdk.spans().length, 0);
  });

  it('LitePullConsumer poll: a receive span per poll that returned messages, linked to each sender', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    const traceIds = ['d', 'e'].map((ch) => ch.repeat(32));
    for (const t of traceIds)
      await bench.producer.send({
        topic,
        body: 'x',
        properties: { traceparent: traceparent(t, '4'.repeat(16)) },
      });
    const c = new LitePullConsumer({
      namesrvAddr: bench.cluster.namesrvAddr,
      consumerGroup: unique('G'),
      rebalanceInterval: 500,
      autoCommitIntervalMillis: 200,
      heartbeatBrokerInterval: 500,
      pollNameServerInterval: 500,
      brokerSuspendMaxTimeMillis: 1000,
      pullTimeDelayMillsWhenException: 200,
      pollTimeoutMillis: 300,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    closers.push(() => c.shutdown());
    c.subscribe(topic, '*');
    await c.start();
    const got: ConsumerMessage[] = [];
    const deadline = Date.now() + 15_000;
    while (got.length < 2 && Date.now() < deadline) got.push(...(await c.poll()));
    assert.equal(got.length, 2);
    const receives = spansNamed(sdk, `receive ${topic}`);
    assert.ok(receives.length >= 1 && receives.length <= 2, 'no span for an empty poll');
    assert.deepEqual(receives.flatMap((s) => s.links.map((l) => l.context.traceId)).sort(), traceIds);
    assert.equal(receives[0]!.kind, api.SpanKind.CLIENT);
    assert.equal(
      total(await sdk.points('messaging.client.consumed.messages'), { 'messaging.destination.name': topic }),
      2,
    );
  });
});
