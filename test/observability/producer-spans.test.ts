/**
 * Producer spans against the embedded cluster with the OpenTelemetry SDK in memory: one `send`
 * span per send call of every kind, its attempts as events, the result as attributes, and the
 * span's context in the stored message (docs/observability.md §1.1, §1.2).
 */
import { after, afterEach, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as api from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { readTopic, uniqueTopic, waitFor, type ReadBack } from '../producer/cluster-helpers.js';
import { installOtelSdk, traceparentOf, type OtelSdk } from './producer-otel-sdk.js';

let cluster: EmbeddedCluster;
let sdk: OtelSdk;
const producers: Producer[] = [];

async function startProducer(options: Partial<ProducerOptions> = {}): Promise<Producer> {
  const p = new Producer({
    namesrvAddr: cluster.namesrvAddr,
    producerGroup: `OTEL_PG_${producers.length}`,
    ...options,
  });
  producers.push(p);
  await p.start();
  return p;
}

async function newTopic(prefix: string): Promise<string> {
  const topic = uniqueTopic(prefix);
  await cluster.createTopic(topic, 4);
  return topic;
}

function sendSpans(topic: string): ReadableSpan[] {
  return sdk.spans().filter((s) => s.name === `send ${topic}`);
}

function onlySendSpan(topic: string): ReadableSpan {
  const spans = sendSpans(topic);
  assert.equal(spans.length, 1, `one send span for ${topic}, got ${spans.length}`);
  return spans[0] as ReadableSpan;
}

/** Spans end when the send's promise settles; the test reads them one turn later. */
const settled = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('producer spans', () => {
  before(async () => {
    sdk = installOtelSdk(false);
    cluster = await EmbeddedCluster.start({ brokers: 2, faultInjection: true });
  });
  after(async () => {
    for (const p of producers.splice(0)) await p.shutdown();
    await cluster.stop();
    await sdk.uninstall();
  });
  afterEach(() => sdk.reset());

  it('a send: one PRODUCER span "send <topic>" with the result, its attempt, and its context in the stored message', async () => {
    const topic = await newTopic('OtelSend');
    const p = await startProducer();
    const r = await p.send({ topic, body: 'one', tags: 'TagA', keys: ['k1', 'k2'] });
    await settled();
    const span = onlySendSpan(topic);
    assert.equal(span.kind, api.SpanKind.PRODUCER);
    assert.equal(span.status.code, api.SpanStatusCode.UNSET);
    const a = span.attributes;
    assert.equal(a['messaging.system'], 'rocketmq');
    assert.equal(a['messaging.destination.name'], topic);
    assert.equal(a['messaging.operation.name'], 'send');
    assert.equal(a['messaging.operation.type'], 'send');
    assert.equal(a['messaging.message.id'], r.msgId);
    assert.equal(a['messaging.destination.partition.id'], String(r.messageQueue.queueId));
    assert.equal(a['messaging.rocketmq.broker_name'], r.messageQueue.brokerName);
    assert.equal(a['messaging.rocketmq.message.tag'], 'TagA');
    assert.deepEqual(a['messaging.rocketmq.message.keys'], ['k1', 'k2']);
    assert.equal(a['messaging.rocketmq.message.type'], 'normal');
    assert.equal(a['messaging.rocketmq.send_result'], 'SEND_OK');
    assert.equal(a['messaging.client.id'], p.clientId);
    assert.equal(a['server.address'], '127.0.0.1');
    assert.equal(typeof a['server.port'], 'number');
    assert.equal(span.events.length, 1);
    const attempt = span.events[0];
    assert.equal(attempt?.name, 'send attempt');
    assert.equal(attempt?.attributes?.['messaging.rocketmq.broker_name'], r.messageQueue.brokerName);
    assert.equal(attempt?.attributes?.['messaging.rocketmq.attempt'], 1);
    assert.equal(attempt?.attributes?.['error.type'], undefined);
    const [stored] = (await readTopic(cluster, topic)).filter((m) => m.properties.UNIQ_KEY === r.msgId);
    assert.equal(stored?.properties.traceparent, traceparentOf(span));
  });

  it('a send inside an active span is its child, in its trace', async () => {
    const topic = await newTopic('OtelParent');
    const p = await startProducer();
    const tracer = api.trace.getTracer('test');
    await tracer.startActiveSpan('app work', async (parent) => {
      await p.send({ topic, body: 'child' });
      parent.end();
    });
    await settled();
    const span = onlySendSpan(topic);
    const parent = sdk.spans().find((s) => s.name === 'app work');
    assert.ok(parent);
    assert.equal(span.spanContext().traceId, parent.spanContext().traceId);
    assert.equal(span.parentSpanContext?.spanId, parent.spanContext().spanId);
  });

  it('a broker failing then a retry: two attempt events, the first with its error.type, the span OK', async () => {
    const topic = await newTopic('OtelRetry');
    const p = await startProducer({ sendLatencyFaultEnable: false });
    cluster.broker('broker-a').faults.set({ errorCode: ResponseCode.SYSTEM_BUSY });
    try {
      // Round robin over both brokers' 8 queues without fault tolerance: of 8 sends, some start on broker-a.
      for (let i = 0; i < 8; i++) await p.send({ topic, body: `retry ${i}` });
    } finally {
      cluster.broker('broker-a').faults.clear();
    }
    await settled();
    const spans = sendSpans(topic);
    assert.equal(spans.length, 8);
    const retried = spans.filter((s) => s.events.length === 2);
    assert.ok(retried.length >= 1, 'some send was retried');
    for (const s of retried) {
      const [first, second] = s.events;
      assert.equal(first?.attributes?.['messaging.rocketmq.broker_name'], 'broker-a');
      assert.equal(first?.attributes?.['error.type'], 'BrokerResponseError');
      assert.equal(second?.attributes?.['messaging.rocketmq.broker_name'], 'broker-b');
      assert.equal(second?.attributes?.['messaging.rocketmq.attempt'], 2);
      assert.equal(s.status.code, api.SpanStatusCode.UNSET);
    }
  });

  it('a send that fails: error.type and ERROR status', async () => {
    const topic = await newTopic('OtelFail');
    const p = await startProducer({ sendLatencyFaultEnable: false, retryTimesWhenSendFailed: 1 });
    for (const b of ['broker-a', 'broker-b'])
      cluster.broker(b).faults.set({ errorCode: ResponseCode.SYSTEM_BUSY });
    try {
      await assert.rejects(p.send({ topic, body: 'fails' }), { name: 'SendFailedError' });
    } finally {
      for (const b of ['broker-a', 'broker-b']) cluster.broker(b).faults.clear();
    }
    await settled();
    const span = onlySendSpan(topic);
    assert.equal(span.status.code, api.SpanStatusCode.ERROR);
    assert.equal(span.attributes['error.type'], 'SendFailedError');
    assert.equal(span.events.filter((e) => e.name === 'send attempt').length, 2);
    assert.ok(span.events.some((e) => e.name === 'exception'));
  });

  it('bad input: the span ends with InvalidArgumentError, nothing is sent', async () => {
    const topic = await newTopic('OtelBad');
    const p = await startProducer();
    await assert.rejects(p.send({ topic, body: '' }), { name: 'InvalidArgumentError' });
    await settled();
    const span = onlySendSpan(topic);
    assert.equal(span.attributes['error.type'], 'InvalidArgumentError');
    assert.equal(span.status.code, api.SpanStatusCode.ERROR);
  });

  it('sendOneway and a selected-queue send each have their span; a messageGroup send is fifo', async () => {
    const topic = await newTopic('OtelKinds');
    const p = await startProducer();
    await p.sendOneway({ topic, body: 'oneway' });
    const r = await p.send({ topic, body: 'grouped' }, { shardingKey: 'order-7' });
    await settled();
    const spans = sendSpans(topic);
    assert.equal(spans.length, 2);
    const grouped = spans.find((s) => s.attributes['messaging.message.id'] === r.msgId);
    assert.equal(grouped?.attributes['messaging.rocketmq.message.type'], 'fifo');
    assert.equal(grouped?.attributes['messaging.rocketmq.message.group'], 'order-7');
    const oneway = spans.find((s) => s !== grouped);
    assert.equal(oneway?.events.length, 1);
    // The oneway message's id is the prepared UNIQ_KEY; its stored copy (no answer says when it
    // is stored) carries its context.
    const onewayId = oneway?.attributes['messaging.message.id'];
    let onewayStored: ReadBack | undefined;
    await waitFor(
      async () => {
        onewayStored = (await readTopic(cluster, topic)).find((m) => m.properties.UNIQ_KEY === onewayId);
        return onewayStored !== undefined;
      },
      10_000,
      'the oneway message stored',
    );
    assert.equal(onewayStored?.properties.traceparent, oneway && traceparentOf(oneway));
  });

  it('sendBatch: a create span per message, each its own trace, and a CLIENT send span linked to them', async () => {
    const topic = await newTopic('OtelBatch');
    const p = await startProducer();
    const r = await p.sendBatch([0, 1, 2].map((i) => ({ topic, body: `batch ${i}` })));
    await settled();
    const send = onlySendSpan(topic);
    assert.equal(send.kind, api.SpanKind.CLIENT);
    assert.equal(send.attributes['messaging.batch.message_count'], 3);
    const creates = sdk.spans().filter((s) => s.name === `create ${topic}`);
    assert.equal(creates.length, 3);
    for (const c of creates) {
      assert.equal(c.kind, api.SpanKind.PRODUCER);
      assert.equal(c.attributes['messaging.operation.type'], 'create');
    }
    assert.equal(new Set(creates.map((c) => c.spanContext().traceId)).size, 3, 'one trace per message');
    assert.deepEqual(
      send.links.map((l) => l.context.spanId).sort(),
      creates.map((c) => c.spanContext().spanId).sort(),
    );
    const ids = r.msgId.split(',');
    const stored = await readTopic(cluster, topic);
    const parents = ids.map((id) => stored.find((m) => m.properties.UNIQ_KEY === id)?.properties.traceparent);
    assert.deepEqual([...parents].sort(), creates.map(traceparentOf).sort());
  });

  it('autoBatch: each send call its own span, each stored message its own context', async () => {
    const topic = await newTopic('OtelAuto');
    const p = await startProducer({ autoBatch: true, batchMaxDelayMs: 5 });
    const results = await Promise.all([0, 1, 2, 3].map((i) => p.send({ topic, body: `auto ${i}` })));
    await settled();
    const spans = sendSpans(topic);
    assert.equal(spans.length, 4);
    const stored = await readTopic(cluster, topic);
    for (const r of results) {
      const span = spans.find((s) => s.attributes['messaging.message.id'] === r.msgId);
      assert.ok(span, `a span for ${r.msgId}`);
      const m = stored.find((x) => x.properties.UNIQ_KEY === r.msgId);
      assert.equal(m?.properties.traceparent, traceparentOf(span));
    }
  });

  it('a transactional send: its half message span is typed transaction', async () => {
    const topic = await newTopic('OtelTx');
    const tp = new TransactionProducer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'OTEL_TXP',
      checkListener: () => 'COMMIT',
    });
    producers.push(tp);
    await tp.start();
    const r = await tp.sendMessageInTransaction({ topic, body: 'tx' }, () => 'COMMIT');
    await settled();
    const span = onlySendSpan(topic);
    assert.equal(span.attributes['messaging.rocketmq.message.type'], 'transaction');
    assert.equal(span.attributes['messaging.message.id'], r.msgId);
  });
});
