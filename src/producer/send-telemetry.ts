/**
 * OpenTelemetry for the producer (docs/observability.md §1.1, §2.1): one `send <topic>` span per
 * send call, started in the caller's active context before the message is prepared, so that the
 * properties string (built once) carries that span's context; one `create <topic>` span per
 * message of a `sendBatch`, each message carrying its own; a span event per attempt and per
 * hedge (send-loop.ts's SendObserver); the send metrics.
 *
 * A producer without telemetry (option off, package absent) never reaches this file. With the
 * package but no SDK, `beginSend` finds a non-recording span with nothing to propagate and no
 * meter in use, and returns `undefined`: the send goes on as an untraced one.
 */
import type {
  Attributes,
  Context,
  Histogram,
  Link,
  ObservableCounter,
  ObservableResult,
  Span,
} from '@opentelemetry/api';
import type { ClientTelemetry, OpenTelemetryApi } from '../observability/otel/api.js';
import {
  InvocationStatus,
  JavaMetric,
  JavaMetricBuckets,
  JavaMetricLabel,
  MESSAGING_DURATION_BUCKETS_S,
  MESSAGING_SYSTEM,
  MessagingAttribute as A,
  MessagingMetric,
  OperationType,
  RocketmqMessageType,
} from '../observability/otel/attributes.js';
import { meterRecords } from '../observability/otel/meter-in-use.js';
import { TracerInUse } from '../observability/otel/tracer-in-use.js';
import { traceContextFields } from '../observability/otel/propagation.js';
import type { MessageQueue } from '../client/route.js';
import type { TraceFields } from './message.js';
import type { SendObserver } from './send-loop.js';
import type { SendResult } from './send-result.js';

/** Span event names. */
export const SendEvent = Object.freeze({ ATTEMPT: 'send attempt', HEDGE: 'send hedge' });

/** The message fields the span reads, of whatever the caller passed (it is validated later). */
interface MessageView {
  topic?: unknown;
  tags?: unknown;
  keys?: unknown;
  messageGroup?: unknown;
  delayTimeLevel?: unknown;
  deliverAt?: unknown;
  deliverAfterMs?: unknown;
}

const NO_FIELDS: MessageView = {};

function viewOf(message: unknown): MessageView {
  return message !== null && typeof message === 'object' ? (message as MessageView) : NO_FIELDS;
}

/** `error.type`: the error's class name (low cardinality: SendFailedError, TimeoutError, ...). */
export function errorTypeOf(err: unknown): string {
  return err instanceof Error ? err.name : '_OTHER';
}

/** `undefined` for an empty carrier (no valid context, or a propagator that writes nothing). */
function nonEmpty(fields: Record<string, string>): TraceFields | undefined {
  for (const _ in fields) return fields;
  return undefined;
}

interface Instruments {
  duration: Histogram;
  sent: ObservableCounter;
  sendCost: Histogram;
}

/** A count of sent messages under one attribute set. */
interface SentCount {
  readonly attributes: Attributes;
  count: number;
}

/**
 * One topic's metric attributes, built once, and its sent-message counts. The counts are
 * reported by an observable counter at collection: adding to a Counter would make the SDK hash
 * the attributes once more per send, for a sum this keeps for the price of an addition.
 */
interface TopicMetrics {
  ok: Attributes;
  javaOk: Attributes;
  javaFailure: Attributes;
  sent: SentCount;
  /** By `error.type`. */
  failed: Map<string, SentCount>;
}

/** What identifies the producer on its spans and metrics. */
export interface ProducerIdentity {
  clientId: string;
  producerGroup: string;
  namespace: string | undefined;
}

export class ProducerTelemetry {
  readonly api: OpenTelemetryApi;
  private instruments: Instruments | undefined;
  /** Every topic sent to since start (the SDK keeps as much: one series per attribute set). */
  private readonly topics = new Map<string, TopicMetrics>();
  private lastTopic: string | undefined;
  private lastMetrics: TopicMetrics | undefined;
  /** Whether an SDK's tracer provider is registered, asked before each send. */
  private readonly tracers: TracerInUse;
  private readonly observeSent = (result: ObservableResult): void => {
    for (const t of this.topics.values()) {
      if (t.sent.count > 0) result.observe(t.sent.count, t.sent.attributes);
      for (const f of t.failed.values()) result.observe(f.count, f.attributes);
    }
  };
  private lastSpanTopic: string | undefined;
  private lastSpanName = '';

  constructor(
    private readonly telemetry: ClientTelemetry,
    private readonly who: ProducerIdentity,
  ) {
    this.api = telemetry.api;
    this.tracers = new TracerInUse(telemetry.api);
  }

  /**
   * At producer start: the instruments, from the meter provider registered now (the global one
   * has no proxy, so one registered later is not seen by this producer).
   */
  start(): void {
    this.stop();
    const meter = this.telemetry.meter();
    if (!meterRecords(this.api, meter)) return;
    const instruments: Instruments = {
      duration: meter.createHistogram(MessagingMetric.OPERATION_DURATION, {
        unit: 's',
        description: 'Duration of a send call, retries and hedges included.',
        advice: { explicitBucketBoundaries: [...MESSAGING_DURATION_BUCKETS_S] },
      }),
      sent: meter.createObservableCounter(MessagingMetric.SENT_MESSAGES, {
        unit: '{message}',
        description: 'Messages the producer attempted to send.',
      }),
      sendCost: meter.createHistogram(JavaMetric.SEND_COST_TIME, {
        unit: 'ms',
        description: 'Cost time of a send call (the Java 5 client metric).',
        advice: { explicitBucketBoundaries: [...JavaMetricBuckets.SEND_COST_TIME] },
      }),
    };
    instruments.sent.addCallback(this.observeSent);
    this.instruments = instruments;
  }

  /** At shutdown: the meter stops asking this producer for its counts. */
  stop(): void {
    this.instruments?.sent.removeCallback(this.observeSent);
    this.instruments = undefined;
  }

  /**
   * No SDK's tracer provider registered and no span in the active context: a span would be a
   * no-op with nothing to propagate. Cheaper than starting one to find out.
   */
  private nothingToTrace(): boolean {
    if (this.tracers.registered()) return false;
    return this.api.trace.getSpan(this.api.context.active()) === undefined;
  }

  /**
   * The span of one send call (`send`, `sendOneway`, a request, a half message), started in the
   * active context; `undefined` when there is nothing to record or propagate.
   */
  beginSend(message: unknown, shardingKey: unknown, transaction: boolean): SendSpan | undefined {
    if (this.instruments === undefined && this.nothingToTrace()) return undefined;
    const api = this.api;
    const m = viewOf(message);
    const topic = typeof m.topic === 'string' ? m.topic : '';
    const parent = api.context.active();
    const group =
      typeof m.messageGroup === 'string'
        ? m.messageGroup
        : typeof shardingKey === 'string'
          ? shardingKey
          : undefined;
    // At start, where a sampler sees them (the conventions ask for that).
    const attributes = this.spanAttributes(
      m,
      topic,
      OperationType.SEND,
      this.messageType(m, group, transaction),
    );
    if (group !== undefined) attributes[A.ROCKETMQ_MESSAGE_GROUP] = group;
    const span = this.telemetry.tracer.startSpan(
      this.spanName(topic),
      { kind: api.SpanKind.PRODUCER, attributes },
      parent,
    );
    const recording = span.isRecording();
    const fields = this.fieldsOf(parent, span);
    if (!recording && fields === undefined && this.instruments === undefined) return undefined;
    return new SendSpan(this, topic, recording ? span : undefined, fields, undefined, 1);
  }

  /**
   * A `sendBatch`: a `create <topic>` span per message (PRODUCER, ended at once, its context in
   * that message) and the `send <topic>` span (CLIENT) linked to all of them, so every message
   * has its own trace when no parent is active.
   */
  beginBatch(messages: unknown): SendSpan | undefined {
    if (this.instruments === undefined && this.nothingToTrace()) return undefined;
    const api = this.api;
    const list: readonly unknown[] = Array.isArray(messages) ? messages : [];
    const first = viewOf(list[0]);
    const topic = typeof first.topic === 'string' ? first.topic : '';
    const parent = api.context.active();
    const tracer = this.telemetry.tracer;
    const links: Link[] = [];
    const batchFields: (TraceFields | undefined)[] = [];
    let carried = false;
    for (const message of list) {
      const m = viewOf(message);
      const attributes = this.spanAttributes(
        m,
        topic,
        OperationType.CREATE,
        this.messageType(m, m.messageGroup, false),
      );
      const create = tracer.startSpan(`create ${topic}`, { kind: api.SpanKind.PRODUCER, attributes }, parent);
      const fields = this.fieldsOf(parent, create);
      batchFields.push(fields);
      if (fields !== undefined) carried = true;
      if (create.isRecording()) links.push({ context: create.spanContext() });
      create.end();
    }
    const span = tracer.startSpan(`send ${topic}`, { kind: api.SpanKind.CLIENT, links }, parent);
    const recording = span.isRecording();
    if (!recording && !carried && this.instruments === undefined) return undefined;
    if (recording) {
      span.setAttributes(this.spanAttributes(first, topic, OperationType.SEND, undefined));
      span.setAttribute(A.BATCH_MESSAGE_COUNT, list.length);
    }
    return new SendSpan(
      this,
      topic,
      recording ? span : undefined,
      undefined,
      carried ? batchFields : undefined,
      list.length,
    );
  }

  /** The send metrics of one call that took `ms`; `errorType` undefined for a success. */
  recordSend(topic: string, count: number, ms: number, errorType: string | undefined): void {
    const i = this.instruments;
    if (i === undefined) return;
    const t = this.topicMetrics(topic);
    if (errorType === undefined) {
      i.duration.record(ms / 1000, t.ok);
      t.sent.count += count;
      i.sendCost.record(ms, t.javaOk);
      return;
    }
    let failed = t.failed.get(errorType);
    if (failed === undefined) {
      failed = { attributes: { ...t.ok, [A.ERROR_TYPE]: errorType }, count: 0 };
      t.failed.set(errorType, failed);
    }
    failed.count += count;
    i.duration.record(ms / 1000, failed.attributes);
    i.sendCost.record(ms, t.javaFailure);
  }

  /**
   * The propagator's fields for `span` as a child of `parent`, when its context is valid. Every
   * field the propagator owns is the span's: one it did not write (no `tracestate`) is listed
   * empty, so the message drops an app-set value of that name instead of pairing the app's
   * `tracestate` with our `traceparent` (an empty value is never written).
   */
  private fieldsOf(parent: Context, span: Span): TraceFields | undefined {
    const api = this.api;
    if (!api.trace.isSpanContextValid(span.spanContext())) return undefined;
    const fields = traceContextFields(api, api.trace.setSpan(parent, span));
    if (nonEmpty(fields) === undefined) return undefined;
    for (const name of api.propagation.fields()) if (!Object.hasOwn(fields, name)) fields[name] = '';
    return fields;
  }

  private spanName(topic: string): string {
    if (topic !== this.lastSpanTopic) {
      this.lastSpanTopic = topic;
      this.lastSpanName = topic === '' ? 'send' : `send ${topic}`;
    }
    return this.lastSpanName;
  }

  private messageType(m: MessageView, group: unknown, transaction: boolean): string {
    if (transaction) return RocketmqMessageType.TRANSACTION;
    if (group !== undefined) return RocketmqMessageType.FIFO;
    const delayed =
      (m.delayTimeLevel !== undefined && m.delayTimeLevel !== 0) ||
      m.deliverAt !== undefined ||
      m.deliverAfterMs !== undefined;
    return delayed ? RocketmqMessageType.DELAY : RocketmqMessageType.NORMAL;
  }

  private spanAttributes(
    m: MessageView,
    topic: string,
    operation: string,
    type: string | undefined,
  ): Attributes {
    const who = this.who;
    const attributes: Attributes = {
      [A.SYSTEM]: MESSAGING_SYSTEM,
      [A.DESTINATION_NAME]: topic,
      [A.OPERATION_NAME]: operation,
      [A.OPERATION_TYPE]: operation,
      [A.CLIENT_ID]: who.clientId,
      [A.ROCKETMQ_PRODUCER_GROUP]: who.producerGroup,
    };
    if (type !== undefined) attributes[A.ROCKETMQ_MESSAGE_TYPE] = type;
    if (who.namespace !== undefined) attributes[A.ROCKETMQ_NAMESPACE] = who.namespace;
    if (typeof m.tags === 'string' && m.tags !== '') attributes[A.ROCKETMQ_MESSAGE_TAG] = m.tags;
    if (typeof m.keys === 'string') attributes[A.ROCKETMQ_MESSAGE_KEYS] = [m.keys];
    else if (Array.isArray(m.keys) && m.keys.every((k) => typeof k === 'string'))
      attributes[A.ROCKETMQ_MESSAGE_KEYS] = [...(m.keys as string[])];
    return attributes;
  }

  private topicMetrics(topic: string): TopicMetrics {
    if (topic === this.lastTopic && this.lastMetrics !== undefined) return this.lastMetrics;
    let t = this.topics.get(topic);
    if (t === undefined) {
      const java = { [JavaMetricLabel.TOPIC]: topic, [JavaMetricLabel.CLIENT_ID]: this.who.clientId };
      const ok = {
        [A.SYSTEM]: MESSAGING_SYSTEM,
        [A.DESTINATION_NAME]: topic,
        [A.OPERATION_NAME]: OperationType.SEND,
        [A.OPERATION_TYPE]: OperationType.SEND,
      };
      t = {
        ok,
        javaOk: { ...java, [JavaMetricLabel.INVOCATION_STATUS]: InvocationStatus.SUCCESS },
        javaFailure: { ...java, [JavaMetricLabel.INVOCATION_STATUS]: InvocationStatus.FAILURE },
        sent: { attributes: ok, count: 0 },
        failed: new Map(),
      };
      this.topics.set(topic, t);
    }
    this.lastTopic = topic;
    this.lastMetrics = t;
    return t;
  }
}

/**
 * One send call's span (undefined when not recording) and timing; the send loop reports its
 * attempts here, and `watch` ends it when the call settles.
 */
export class SendSpan implements SendObserver {
  private attempts = 0;
  private address: string | undefined;
  /** A hedged send's losing attempt may settle after the span ended: it is not recorded. */
  private ended = false;
  private readonly startedAt = performance.now();

  constructor(
    private readonly owner: ProducerTelemetry,
    private readonly topic: string,
    private readonly span: Span | undefined,
    /** The single message's trace context for its properties. */
    readonly fields: TraceFields | undefined,
    /** Each batch message's own. */
    readonly batchFields: readonly (TraceFields | undefined)[] | undefined,
    private readonly count: number,
  ) {}

  attempt(mq: MessageQueue, address: string | undefined, latencyMs: number, error: unknown): void {
    this.attempts++;
    if (this.ended) return;
    if (error === undefined) this.address = address;
    const span = this.span;
    if (span === undefined) return;
    const attributes: Attributes = {
      [A.ROCKETMQ_ATTEMPT]: this.attempts,
      [A.ROCKETMQ_BROKER_NAME]: mq.brokerName,
      [A.DESTINATION_PARTITION_ID]: String(mq.queueId),
      [A.ROCKETMQ_ATTEMPT_LATENCY_MS]: latencyMs,
    };
    if (address !== undefined) attributes[A.ROCKETMQ_BROKER_ADDRESS] = address;
    if (error !== undefined) attributes[A.ERROR_TYPE] = errorTypeOf(error);
    span.addEvent(SendEvent.ATTEMPT, attributes);
  }

  hedge(from: MessageQueue, to: MessageQueue): void {
    if (this.ended) return;
    this.span?.addEvent(SendEvent.HEDGE, {
      [A.ROCKETMQ_BROKER_NAME]: from.brokerName,
      [A.ROCKETMQ_HEDGE_BROKER_NAME]: to.brokerName,
      [A.DESTINATION_PARTITION_ID]: String(to.queueId),
    });
  }

  /** Ends the span and records the metrics when `sent` settles; `msgId` is the prepared UNIQ_KEY. */
  watch(sent: Promise<SendResult | undefined>, msgId: string): void {
    sent.then(
      (result) => this.succeeded(result, msgId),
      (err: unknown) => this.failed(err),
    );
  }

  /** A send that failed before it was dispatched (bad input). */
  failed(err: unknown): void {
    this.ended = true;
    const span = this.span;
    const type = errorTypeOf(err);
    if (span !== undefined) {
      span.setAttribute(A.ERROR_TYPE, type);
      if (err instanceof Error) span.recordException(err);
      span.setStatus({
        code: this.owner.api.SpanStatusCode.ERROR,
        message: err instanceof Error ? err.message : String(err),
      });
      span.end();
    }
    this.owner.recordSend(this.topic, this.count, performance.now() - this.startedAt, type);
  }

  private succeeded(result: SendResult | undefined, msgId: string): void {
    this.ended = true;
    const span = this.span;
    if (span !== undefined) {
      const attributes: Attributes = {};
      if (this.count === 1) attributes[A.MESSAGE_ID] = result?.msgId ?? msgId;
      if (result !== undefined) {
        attributes[A.DESTINATION_PARTITION_ID] = String(result.messageQueue.queueId);
        attributes[A.ROCKETMQ_BROKER_NAME] = result.messageQueue.brokerName;
        attributes[A.ROCKETMQ_SEND_RESULT] = result.status;
      }
      const address = this.address;
      if (address !== undefined) {
        const colon = address.lastIndexOf(':');
        attributes[A.SERVER_ADDRESS] = colon < 0 ? address : address.slice(0, colon);
        if (colon >= 0) attributes[A.SERVER_PORT] = Number(address.slice(colon + 1));
      }
      span.setAttributes(attributes);
      span.end();
    }
    this.owner.recordSend(this.topic, this.count, performance.now() - this.startedAt, undefined);
  }
}
