/**
 * Traces across Java and Node on real Apache RocketMQ (4.9.7 and 5.5.0, one broker each): the
 * OpenTelemetry Java agent (interop-test/otel-agent.ts) on the driver's producer and consumer,
 * the OpenTelemetry SDK in memory in this process for our clients.
 *
 * - Java only, first: the agent's producer writes `traceparent` into the stored message (read
 *   back with our Admin) and the agent's consumer continues that trace.
 * - A trace started by the Java producer continues in our PushConsumer's `process` span: same
 *   traceId, and its parent is the Java producer's span.
 * - A trace started by our Producer continues in the Java consumer: the agent's process span has
 *   our send span's traceId, with our span as its parent.
 * - Batches: a Java batch under the agent has one send span, whose context reaches the stored
 *   messages through a 4.9.x broker only; each message of our batch carries its own create span,
 *   which the Java consumer's process span continues.
 * - The agent's JVM connects to loopback only (seen under strace, where installed).
 *
 * One message per send and `consumeMessageBatchMaxSize` 1 on the Java side, so the agent makes
 * one process span per message whose parent is the message's context (for a batch it would make
 * links instead). The Java-only test runs the agent's default (older) messaging conventions, the
 * tests with our clients its current ones, whose span names are ours. docs/observability.md §1.3
 * says what each side does.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Admin } from '../src/admin/admin.js';
import { PushConsumer } from '../src/consumer/index.js';
import type { Producer } from '../src/producer/producer.js';
import { detMessage } from './deterministic.js';
import { INTEROP_VERSIONS, type ConsumeResult, type ProduceResult } from './java.js';
import { interopProducer } from './our-clients.js';
import { parseTraceparent, runDriverWithAgent, type AgentConventions, type AgentSpan } from './otel-agent.js';
import { RealCluster } from './real-cluster.js';

const COUNT = 3;

/** strace, to see every address a JVM under the agent connects to; the check skips without it. */
const STRACE = spawnSync('strace', ['-V'], { encoding: 'utf8' }).status === 0;

/** The IPv4/IPv6 addresses of every `connect()` in an `strace -e trace=connect` log. */
function connectedAddresses(log: string): string[] {
  const out: string[] = [];
  for (const m of log.matchAll(/inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"/g)) {
    const address = m[1] ?? m[2];
    if (address !== undefined) out.push(address);
  }
  return out;
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The agent's spans of one kind on `topic`, by the message id they carry. */
function agentSpansByMessage(spans: readonly AgentSpan[], kind: AgentSpan['kind'], topic: string) {
  const out = new Map<string, AgentSpan>();
  for (const s of spans) {
    if (s.kind !== kind || s.attributes['messaging.destination.name'] !== topic) continue;
    const id = s.attributes['messaging.message.id'];
    if (typeof id === 'string') out.set(id, s);
  }
  return out;
}

function describeSpans(spans: readonly AgentSpan[]): string {
  return JSON.stringify(
    spans.map((s) => ({ name: s.name, kind: s.kind, traceId: s.traceId, attributes: s.attributes })),
  ).slice(0, 3000);
}

function describeOurSpans(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      kind: SpanKind[s.kind],
      traceId: s.spanContext().traceId,
      parent: s.parentSpanContext?.spanId,
      attributes: s.attributes,
    })),
  ).slice(0, 3000);
}

describe('OpenTelemetry traces across the Java agent and our clients', { concurrency: 1 }, () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();

  before(() => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  after(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    await provider.shutdown();
  });

  for (const { version } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 600_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let admin: Admin;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
      const closers: (() => Promise<unknown>)[] = [];

      async function topicFor(name: string): Promise<string> {
        const topic = `otel_${name}_${run}`;
        await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
        return topic;
      }

      before(async () => {
        cluster = await RealCluster.start({ version, brokers: ['broker-a'] });
        admin = new Admin({ namesrvAddr: cluster.namesrvAddr, mqClientApiTimeout: 10_000 });
      });

      after(async () => {
        for (const close of closers.reverse()) await close().catch(() => undefined);
        await admin?.close().catch(() => undefined);
        await cluster?.stop();
      });

      function produceWithAgent(topic: string, conventions: AgentConventions) {
        const args = ['produce', '--namesrv', cluster.namesrvAddr, '--topic', topic];
        return runDriverWithAgent<ProduceResult>(
          version,
          'java-producer',
          [...args, '--count', String(COUNT)],
          {
            conventions,
          },
        );
      }

      function consumeWithAgent(topic: string, conventions: AgentConventions) {
        const args = [
          'consume',
          '--namesrv',
          cluster.namesrvAddr,
          '--topic',
          topic,
          '--group',
          `otel_cg_${topic}`,
        ];
        return runDriverWithAgent<ConsumeResult>(
          version,
          'java-consumer',
          [...args, '--expect', String(COUNT), '--timeout-ms', '90000'],
          { conventions },
        );
      }

      it('Java producer and Java consumer under the agent: the stored message carries traceparent, the consumer continues the trace', async () => {
        const topic = await topicFor('java_java');
        const produced = await produceWithAgent(topic, 'default');
        assert.equal(produced.result.sent, COUNT, JSON.stringify(produced.result.errors));
        const sends = agentSpansByMessage(produced.spans, 'PRODUCER', topic);
        assert.equal(sends.size, COUNT, `one send span per message: ${describeSpans(produced.spans)}`);

        for (const msgId of produced.result.msgIds) {
          const send = sends.get(msgId);
          assert.ok(send, `send span of ${msgId}`);
          assert.equal(send.parentSpanId, '', 'the Java producer starts the trace');
          assert.equal(send.attributes['messaging.system'], 'rocketmq');
          // The agent's default: the older messaging conventions.
          assert.equal(send.name, `${topic} publish`);
          const stored = await admin.viewMessage(msgId, topic);
          const tp = parseTraceparent(stored.properties['traceparent']);
          assert.ok(tp, `stored traceparent of ${msgId}: ${JSON.stringify(stored.properties)}`);
          assert.equal(tp.traceId, send.traceId);
          assert.equal(tp.spanId, send.spanId, 'the agent injects its send span');
        }

        const consumed = await consumeWithAgent(topic, 'default');
        assert.equal(consumed.result.missingCount, 0, JSON.stringify(consumed.result.missing));
        assert.equal(consumed.result.corruptCount, 0);
        const processes = agentSpansByMessage(consumed.spans, 'CONSUMER', topic);
        for (const msgId of produced.result.msgIds) {
          const send = sends.get(msgId);
          const process = processes.get(msgId);
          assert.ok(send && process, `process span of ${msgId}: ${describeSpans(consumed.spans)}`);
          assert.equal(process.traceId, send.traceId, `${msgId}: one trace from send to process`);
          assert.equal(process.parentSpanId, send.spanId, `${msgId}: the send span is the parent`);
          assert.equal(process.name, `${topic} process`);
        }
      });

      it('a Java batch under the agent: one send span, whose context the stored messages carry on 4.9.x only', async () => {
        const topic = await topicFor('java_batch');
        const args = ['produce', '--namesrv', cluster.namesrvAddr, '--topic', topic];
        const produced = await runDriverWithAgent<ProduceResult>(version, 'java-producer', [
          ...args,
          ...['--count', String(COUNT), '--batch', String(COUNT)],
        ]);
        assert.equal(produced.result.sent, COUNT, JSON.stringify(produced.result.errors));
        const sends = produced.spans.filter((s) => s.kind === 'PRODUCER');
        assert.equal(sends.length, 1, `one send span for the batch: ${describeSpans(produced.spans)}`);
        const send = sends[0];
        assert.ok(send);
        for (const msgId of produced.result.msgIds) {
          const stored = await admin.viewMessage(msgId, topic);
          const tp = parseTraceparent(stored.properties['traceparent']);
          if (version.startsWith('4.')) {
            // The agent writes the context into the batch's own properties; a 4.9.x broker copies
            // those into every message it stores from the batch.
            assert.ok(tp, `${msgId}: ${JSON.stringify(stored.properties)}`);
            assert.equal(tp.spanId, send.spanId);
          } else {
            // A 5.x broker stores each message of a batch with its own properties only.
            assert.equal(tp, undefined, `${msgId}: ${JSON.stringify(stored.properties)}`);
          }
        }
      });

      it(
        'the agent sends nothing off the machine: a producer under it connects to loopback only',
        { skip: STRACE ? false : 'strace is not installed (apt-get install strace)' },
        async () => {
          const topic = await topicFor('no_network');
          const dir = mkdtempSync(join(tmpdir(), 'rmq-otel-strace-'));
          try {
            const log = join(dir, 'connect.log');
            const produced = await runDriverWithAgent<ProduceResult>(
              version,
              'java-producer',
              ['produce', '--namesrv', cluster.namesrvAddr, '--topic', topic, '--count', '1'],
              { launcher: ['strace', '-f', '-qq', '-e', 'trace=connect', '-o', log] },
            );
            assert.equal(produced.result.sent, 1, JSON.stringify(produced.result.errors));
            assert.equal(agentSpansByMessage(produced.spans, 'PRODUCER', topic).size, 1);
            const addresses = connectedAddresses(readFileSync(log, 'utf8'));
            assert.ok(addresses.includes('127.0.0.1'), `strace saw the broker connection: ${addresses}`);
            const elsewhere = addresses.filter((a) => !/^127\.|^::1$|^::ffff:127\./.test(a));
            assert.deepEqual(elsewhere, [], 'no connection leaves the loopback interface');
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      );

      it('a trace started by the Java producer continues in our PushConsumer process span', async () => {
        const topic = await topicFor('java_ts');
        const produced = await produceWithAgent(topic, 'current');
        assert.equal(produced.result.sent, COUNT, JSON.stringify(produced.result.errors));
        const sends = agentSpansByMessage(produced.spans, 'PRODUCER', topic);
        assert.equal(sends.size, COUNT, describeSpans(produced.spans));
        // Under the current conventions the agent names its send span as ours does.
        for (const send of sends.values()) assert.equal(send.name, `send ${topic}`);

        exporter.reset();
        const seen = new Set<string>();
        const consumer = new PushConsumer({
          namesrvAddr: cluster.namesrvAddr,
          consumerGroup: `otel_ts_cg_${run}`,
          instanceName: `otel_ts_cg_${run}`,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          rebalanceInterval: 1000,
          pollNameServerInterval: 1000,
        });
        closers.push(() => consumer.shutdown());
        consumer.subscribe(topic, '*');
        await consumer.start((m) => {
          seen.add(m.msgId);
        });
        const processSpans = (): ReadableSpan[] =>
          exporter
            .getFinishedSpans()
            .filter((s) => s.kind === SpanKind.CONSUMER && s.name === `process ${topic}`);
        // The process span ends after the handler returns: wait for the spans, not the messages.
        await waitFor(`${COUNT} process spans`, () => seen.size >= COUNT && processSpans().length >= COUNT);
        await consumer.shutdown();

        const spans = processSpans();
        for (const msgId of produced.result.msgIds) {
          const send = sends.get(msgId);
          assert.ok(send, `Java send span of ${msgId}`);
          const ours = spans.find((s) => s.attributes['messaging.message.id'] === msgId);
          assert.ok(ours, `our process span of ${msgId}: ${describeOurSpans(exporter.getFinishedSpans())}`);
          assert.equal(ours.spanContext().traceId, send.traceId, `${msgId}: the Java producer's trace`);
          assert.equal(ours.parentSpanContext?.spanId, send.spanId, `${msgId}: parent = Java send span`);
          assert.equal(ours.parentSpanContext?.isRemote, true);
          assert.equal(ours.attributes['messaging.system'], 'rocketmq');
          assert.equal(ours.attributes['messaging.destination.name'], topic);
        }
      });

      it('a trace started by our Producer continues in the Java consumer', async () => {
        const topic = await topicFor('ts_java');
        exporter.reset();
        const producer: Producer = await interopProducer(cluster.namesrvAddr, `otel_${run}`);
        closers.push(() => producer.shutdown());
        const msgIds: string[] = [];
        for (let seq = 0; seq < COUNT; seq++) {
          const m = detMessage(seq);
          const r = await producer.send({
            topic,
            body: m.body,
            tags: m.tags,
            keys: m.keys,
            properties: m.properties,
          });
          msgIds.push(r.msgId);
        }
        await producer.shutdown();
        const ourSends = exporter
          .getFinishedSpans()
          .filter((s) => s.kind === SpanKind.PRODUCER && s.name === `send ${topic}`);
        assert.equal(ourSends.length, COUNT, describeOurSpans(exporter.getFinishedSpans()));

        const consumed = await consumeWithAgent(topic, 'current');
        assert.equal(consumed.result.missingCount, 0, JSON.stringify(consumed.result.missing));
        assert.equal(consumed.result.corruptCount, 0);
        const processes = agentSpansByMessage(consumed.spans, 'CONSUMER', topic);
        for (const msgId of msgIds) {
          const stored = await admin.viewMessage(msgId, topic);
          const tp = parseTraceparent(stored.properties['traceparent']);
          assert.ok(
            tp,
            `our producer stored a traceparent in ${msgId}: ${JSON.stringify(stored.properties)}`,
          );
          const ours = ourSends.find((s) => s.spanContext().spanId === tp.spanId);
          assert.ok(ours, `the stored traceparent names our send span: ${describeOurSpans(ourSends)}`);
          assert.equal(ours.spanContext().traceId, tp.traceId);
          const process = processes.get(msgId);
          assert.ok(process, `Java process span of ${msgId}: ${describeSpans(consumed.spans)}`);
          assert.equal(process.traceId, tp.traceId, `${msgId}: our producer's trace`);
          assert.equal(process.parentSpanId, tp.spanId, `${msgId}: parent = our send span`);
          // Under the current conventions the agent's process span looks like ours.
          assert.equal(process.name, `process ${topic}`);
          assert.equal(process.attributes['messaging.operation.type'], 'process');
          assert.equal(process.attributes['messaging.consumer.group.name'], `otel_cg_${topic}`);
        }
      });

      it('our batch: every message carries its own create span, and the Java consumer continues each', async () => {
        const topic = await topicFor('ts_batch');
        exporter.reset();
        const producer: Producer = await interopProducer(cluster.namesrvAddr, `otel_batch_${run}`);
        closers.push(() => producer.shutdown());
        const batch = Array.from({ length: COUNT }, (_, seq) => {
          const m = detMessage(seq);
          return { topic, body: m.body, tags: m.tags, keys: m.keys, properties: m.properties };
        });
        const sent = await producer.sendBatch(batch);
        await producer.shutdown();
        const msgIds = sent.msgId.split(',');
        assert.equal(msgIds.length, COUNT);
        const creates = exporter
          .getFinishedSpans()
          .filter((s) => s.kind === SpanKind.PRODUCER && s.name === `create ${topic}`);
        assert.equal(creates.length, COUNT, describeOurSpans(exporter.getFinishedSpans()));

        const consumed = await consumeWithAgent(topic, 'current');
        assert.equal(consumed.result.missingCount, 0, JSON.stringify(consumed.result.missing));
        const processes = agentSpansByMessage(consumed.spans, 'CONSUMER', topic);
        const parents = new Set<string>();
        for (const msgId of msgIds) {
          const stored = await admin.viewMessage(msgId, topic);
          const tp = parseTraceparent(stored.properties['traceparent']);
          assert.ok(tp, `${msgId}: ${JSON.stringify(stored.properties)}`);
          const create = creates.find((s) => s.spanContext().spanId === tp.spanId);
          assert.ok(create, `${msgId}: its traceparent names one of our create spans`);
          assert.equal(create.spanContext().traceId, tp.traceId);
          parents.add(tp.spanId);
          const process = processes.get(msgId);
          assert.ok(process, `Java process span of ${msgId}: ${describeSpans(consumed.spans)}`);
          assert.equal(process.traceId, tp.traceId, `${msgId}: our create span's trace`);
          assert.equal(process.parentSpanId, tp.spanId, `${msgId}: parent = our create span`);
        }
        assert.equal(parents.size, COUNT, 'each message of the batch has its own context');
      });
    });
  }
});
