/**
 * The PushConsumer's `process <topic>` spans and consumer metrics (docs/observability.md §1.1,
 * §2.2) on the embedded cluster with the real SDK in memory: the span continues the trace the
 * message carries, for concurrent, orderly and POP-mode consumption; a batch call links its
 * messages; failures are marked; a malformed or Proxy-style context; the option off.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import * as assert from 'node:assert/strict';
import * as api from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import type { PushConsumerOptions } from '../../src/consumer/push/options.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { setOpenTelemetryApiForTest } from '../../src/observability/otel/api.js';
import { Rpc, sendV2Header } from '../server/broker/rpc-helpers.js';
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
  waitFor,
  type Bench,
  type Sdk,
} from './consumer-helpers.js';

const FAST: Partial<PushConsumerOptions> = {
  rebalanceInterval: 500,
  persistConsumerOffsetInterval: 200,
  heartbeatBrokerInterval: 500,
  pollNameServerInterval: 500,
  brokerSuspendMaxTimeMillis: 1000,
  pullTimeDelayMillsWhenException: 200,
  awaitTerminationMillisWhenShutdown: 5000,
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
};

let sdk: Sdk;
let bench: Bench;
let consumers: PushConsumer[];

function consumer(options: Partial<PushConsumerOptions> = {}): PushConsumer {
  const c = new PushConsumer({
    namesrvAddr: bench.cluster.namesrvAddr,
    consumerGroup: unique('G'),
    ...FAST,
    ...options,
  });
  consumers.push(c);
  return c;
}

async function sendTraced(topic: string, parent: string, body = 'x'): Promise<string> {
  const r = await bench.producer.send({
    topic,
    body,
    tags: 'TagA',
    keys: ['k1', 'k2'],
    properties: { traceparent: parent },
  });
  return r.msgId;
}

describe('PushConsumer process spans', () => {
  beforeEach(async () => {
    sdk = registerSdk();
    bench = await clusterWithProducer();
    consumers = [];
  });
  afterEach(async () => {
    for (const c of consumers) await c.shutdown().catch(() => undefined);
    await bench.close();
    await sdk.close();
    setOpenTelemetryApiForTest(undefined);
  });

  it("concurrent consumption: the process span is the sender's child and the handler's spans are its children", async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 2);
    const id = await sendTraced(topic, TRACEPARENT, 'hello');
    const c = consumer();
    c.subscribe(topic, '*');
    const seen: string[] = [];
    await c.start(async (m: ConsumerMessage) => {
      const inner = api.trace.getTracer('app').startSpan('app work');
      await new Promise((r) => setTimeout(r, 1));
      inner.end();
      seen.push(m.msgId);
    });
    await waitFor(() => spansNamed(sdk, `process ${topic}`).length === 1, 'the process span');
    const [span] = spansNamed(sdk, `process ${topic}`);
    assert.equal(span!.kind, api.SpanKind.CONSUMER);
    assert.equal(span!.spanContext().traceId, TRACE_ID);
    assert.equal(span!.parentSpanContext?.spanId, SENDER_SPAN_ID);
    assert.equal(span!.parentSpanContext?.isRemote, true);
    const a = span!.attributes;
    assert.equal(a['messaging.system'], 'rocketmq');
    assert.equal(a['messaging.destination.name'], topic);
    assert.equal(a['messaging.operation.name'], 'process');
    assert.equal(a['messaging.operation.type'], 'process');
    assert.equal(a['messaging.consumer.group.name'], c.options.consumerGroup);
    assert.equal(a['messaging.message.id'], id);
    assert.equal(a['messaging.rocketmq.message.tag'], 'TagA');
    assert.deepEqual(a['messaging.rocketmq.message.keys'], ['k1', 'k2']);
    assert.equal(a['messaging.rocketmq.message.type'], 'normal');
    assert.equal(a['messaging.rocketmq.message.reconsume_times'], 0);
    assert.equal(a['messaging.rocketmq.consumption_model'], 'clustering');
    assert.equal(a['messaging.message.body.size'], 5);
    assert.equal(a['messaging.client.id'], c.clientId);
    assert.equal(typeof a['messaging.rocketmq.queue_id'], 'number');
    assert.equal(span!.status.code, api.SpanStatusCode.UNSET);
    const inner = spansNamed(sdk, 'app work');
    assert.equal(inner.length, 1);
    assert.equal(inner[0]!.parentSpanContext?.spanId, span!.spanContext().spanId);
    assert.equal(inner[0]!.spanContext().traceId, TRACE_ID);
    assert.deepEqual(seen, [id]);
  });

  it('orderly consumption: the process span continues the sender trace', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    const other = '1'.repeat(32);
    await sendTraced(topic, TRACEPARENT);
    await sendTraced(topic, traceparent(other, '2'.repeat(16)));
    const c = consumer({ consumeOrderly: true });
    c.subscribe(topic, '*');
    await c.start(() => undefined);
    await waitFor(() => spansNamed(sdk, `process ${topic}`).length === 2, 'two process spans');
    const traces = spansNamed(sdk, `process ${topic}`).map((s) => [
      s.spanContext().traceId,
      s.parentSpanContext?.spanId,
    ]);
    assert.deepEqual(traces, [
      [TRACE_ID, SENDER_SPAN_ID],
      [other, '2'.repeat(16)],
    ]);
  });

  it('POP-mode consumption (clientRebalance false): the process span continues the sender trace', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 2);
    const group = unique('G');
    const admin = new Admin({ namesrvAddr: bench.cluster.namesrvAddr });
    await admin.start();
    try {
      await admin.setMessageRequestMode(topic, group, 'POP', 0);
    } finally {
      await admin.shutdown();
    }
    const c = consumer({ consumerGroup: group, clientRebalance: false });
    c.subscribe(topic, '*');
    await c.start(() => undefined);
    await sendTraced(topic, TRACEPARENT);
    await waitFor(() => spansNamed(sdk, `process ${topic}`).length === 1, 'the process span', 30_000);
    const [span] = spansNamed(sdk, `process ${topic}`);
    assert.equal(span!.spanContext().traceId, TRACE_ID);
    assert.equal(span!.parentSpanContext?.spanId, SENDER_SPAN_ID);
  });

  it('a batch handler call: one process span, the application context its parent, a link per message', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    const traceIds = ['a', 'b', 'c'].map((ch) => ch.repeat(32));
    for (const t of traceIds) await sendTraced(topic, traceparent(t, '3'.repeat(16)));
    const c = consumer({ consumeMessageBatchMaxSize: 8, pullBatchSize: 8 });
    c.subscribe(topic, '*');
    let calls = 0;
    await c.start({
      eachBatch: () => {
        calls++;
      },
    });
    await waitFor(
      () => spansNamed(sdk, `process ${topic}`).reduce((n, s) => n + s.links.length, 0) === 3,
      'links to the three messages',
    );
    const spans = spansNamed(sdk, `process ${topic}`);
    assert.equal(spans.length, calls);
    const linked = spans.flatMap((s) => s.links.map((l) => l.context.traceId)).sort();
    assert.deepEqual(linked, traceIds);
    for (const s of spans) {
      assert.ok(!traceIds.includes(s.spanContext().traceId), 'a batch span starts its own trace');
      assert.equal(s.parentSpanContext, undefined);
      if (s.links.length > 1) assert.equal(s.attributes['messaging.batch.message_count'], s.links.length);
    }
  });

  it('a handler that throws: span status ERROR with error.type, the metrics labelled failure', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    await sendTraced(topic, TRACEPARENT);
    const c = consumer();
    c.subscribe(topic, '*');
    await c.start(() => {
      throw new RangeError('no good');
    });
    await waitFor(() => spansNamed(sdk, `process ${topic}`).length >= 1, 'the failed process span');
    const [span] = spansNamed(sdk, `process ${topic}`);
    assert.equal(span!.status.code, api.SpanStatusCode.ERROR);
    assert.equal(span!.status.message, 'no good');
    assert.equal(span!.attributes['error.type'], 'RangeError');
    assert.equal(span!.events[0]?.name, 'exception');
    const failed = await sdk.points('rocketmq_process_time');
    assert.ok(total(failed, { topic, invocation_status: 'failure' }) >= 1);
    assert.equal(total(failed, { topic, invocation_status: 'success' }), 0);
    const duration = await sdk.points('messaging.process.duration');
    assert.ok(total(duration, { 'messaging.destination.name': topic, 'error.type': 'RangeError' }) >= 1);
  });

  it('a malformed traceparent: a new trace that says why, and the message is still consumed', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    const id = await sendTraced(topic, '00-not-a-trace-context');
    const c = consumer();
    c.subscribe(topic, '*');
    const seen: string[] = [];
    await c.start((m: ConsumerMessage) => void seen.push(m.msgId));
    await waitFor(() => spansNamed(sdk, `process ${topic}`).length === 1, 'the process span');
    const [span] = spansNamed(sdk, `process ${topic}`);
    assert.equal(span!.parentSpanContext, undefined);
    assert.notEqual(span!.spanContext().traceId, TRACE_ID);
    assert.match(
      String(span!.attributes['messaging.rocketmq.trace_context.invalid']),
      /malformed traceparent/,
    );
    assert.deepEqual(seen, [id]);
  });

  it("the 5.x Proxy's TRACE_CONTEXT system property is the parent when there is no traceparent", async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    const rpc = await Rpc.connect(bench.cluster.brokers[0]!.addr);
    try {
      const r = await rpc.request(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({
          topic,
          body: 'x',
          props: { TRACE_CONTEXT: TRACEPARENT, UNIQ_KEY: 'AC11000100002A9F0000000000000001' },
        }),
        Buffer.from('x'),
      );
      assert.equal(r.code, ResponseCode.SUCCESS);
    } finally {
      rpc.close();
    }
    const c = consumer();
    c.subscribe(topic, '*');
    await c.start(() => undefined);
    await waitFor(() => spansNamed(sdk, `process ${topic}`).length === 1, 'the process span');
    const [span] = spansNamed(sdk, `process ${topic}`);
    assert.equal(span!.spanContext().traceId, TRACE_ID);
    assert.equal(span!.parentSpanContext?.spanId, SENDER_SPAN_ID);
  });

  it('consumed counts, handler times and await times equal the messages sent; the cached gauges fall to 0 after the drain', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 2);
    const n = 20;
    for (let i = 0; i < n; i++) await bench.producer.send({ topic, body: `m${i}` });
    const c = consumer();
    c.subscribe(topic, '*');
    let consumed = 0;
    await c.start(() => void consumed++);
    await waitFor(() => consumed === n && spansNamed(sdk, `process ${topic}`).length === n, 'every message');
    const group = c.options.consumerGroup;
    const java = { topic, consumer_group: group, client_id: c.clientId };
    assert.equal(
      total(await sdk.points('messaging.client.consumed.messages'), { 'messaging.destination.name': topic }),
      n,
    );
    assert.equal(
      total(await sdk.points('rocketmq_process_time'), { ...java, invocation_status: 'success' }),
      n,
    );
    assert.equal(total(await sdk.points('rocketmq_await_time'), java), n);
    assert.equal(total(await sdk.points('rocketmq_delivery_latency'), java), n);
    const processTime = (await sdk.points('rocketmq_process_time'))[0]!.value as Histogram;
    assert.deepEqual(processTime.buckets.boundaries, [1, 5, 10, 100, 1000, 10_000, 60_000]);
    await waitFor(() => [...c.internals.table.values()].every((e) => e.pq.msgCount === 0), 'the drain');
    const cached = await sdk.points('rocketmq_consumer_cached_messages');
    assert.equal(cached.filter((p) => p.attributes.topic === topic).length, 1);
    assert.equal(total(cached, java), 0);
    assert.equal(total(await sdk.points('rocketmq_consumer_cached_bytes'), java), 0);
  });

  it('openTelemetry: false gives no spans and no metrics, and the API absent neither', async () => {
    const topic = unique('T');
    await bench.cluster.createTopic(topic, 1);
    await sendTraced(topic, TRACEPARENT);
    let consumed = 0;
    const off = consumer({ openTelemetry: false });
    off.subscribe(topic, '*');
    await off.start(() => void consumed++);
    setOpenTelemetryApiForTest(null);
    const absent = consumer();
    absent.subscribe(topic, '*');
    await absent.start(() => void consumed++);
    await waitFor(() => consumed === 2, 'both groups consumed');
    assert.equal(sdk.spans().length, 0);
    assert.equal(total(await sdk.points('messaging.client.consumed.messages')), 0);
  });
});
