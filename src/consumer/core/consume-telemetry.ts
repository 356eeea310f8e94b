/**
 * OpenTelemetry of the consumers (docs/observability.md §1.1 "Consumer spans", §2.2 "Consumer
 * metrics"): the `process <topic>` span of each handler call (handler-pool.ts runs the handler in
 * it), `receive <topic>` and settle spans of the pull-style consumers, and the consumer metrics,
 * OpenTelemetry's and the Java 5 client's. One object per started consumer: its instruments are
 * created when it starts (the global meter provider has no proxy) and its gauge callback removed
 * when it stops. A consumer whose telemetry is off has none of this, and its hot paths test one
 * field.
 *
 * Spans get their attributes only when they record (an SDK is registered and sampled them), so an
 * installed API without an SDK costs a no-op span per call, not an attribute table.
 */
import type {
  Attributes,
  BatchObservableCallback,
  Context,
  Counter,
  Histogram,
  Link,
  Meter,
  ObservableGauge,
  Span,
  Tracer,
} from '@opentelemetry/api';
import type { ClientTelemetry, OpenTelemetryApi } from '../../observability/otel/api.js';
import {
  ConsumerAttribute,
  ConsumerOperation,
  InvocationStatus,
  JavaMetric,
  JavaMetricBuckets,
  JavaMetricLabel,
  MESSAGING_DURATION_BUCKETS_S,
  MESSAGING_SYSTEM,
  MessagingAttribute,
  MessagingMetric,
  OperationType,
} from '../../observability/otel/attributes.js';
import { meterRecords } from '../../observability/otel/meter-in-use.js';
import { TracerInUse } from '../../observability/otel/tracer-in-use.js';
import type { ConsumerMessage } from './message-view.js';
import { errorTypeOf, messageAttributes, producerContextOf } from './message-telemetry.js';

/** Who is consuming: labels of every span and metric. */
export interface ConsumeTelemetryScope {
  /** The group as the application named it (no namespace). */
  readonly consumerGroup: string;
  readonly clientId: string;
  readonly namespace: string | undefined;
  /** `clustering` or `broadcasting`; absent for the POP-based SimpleConsumer. */
  readonly consumptionModel?: string | undefined;
  /** The local cache per topic, read by the cached-messages gauges; absent: no gauges. */
  readonly cache?: (() => Iterable<CachedTopicFigures>) | undefined;
}

/** What one topic holds in the consumer's local cache (push process queues, POP in flight). */
export interface CachedTopicFigures {
  readonly topic: string;
  readonly count: number;
  readonly bytes: number;
}

/** The label sets of one topic, built once and reused by every record. */
interface TopicLabels {
  /** messaging.* of the process operation (process duration, consumed messages). */
  readonly process: Attributes;
  /** topic, client_id, consumer_group (delivery latency, await time, gauges). */
  readonly java: Attributes;
  readonly javaSuccess: Attributes;
  readonly javaFailure: Attributes;
}

/** A receive or settle operation in progress (SimpleConsumer, LitePullConsumer). */
interface OperationSpan {
  readonly span: Span;
  readonly operation: string;
  /** Undefined until known (a receive over several topics). */
  topic: string | undefined;
  /** performance.now() at the start. */
  readonly startedMs: number;
}

/**
 * What the pool keeps for a call measured without a span (metrics on, no tracer provider): its
 * figures are still recorded at the end.
 */
export const NO_SPAN: unknown = Object.freeze({ noSpan: true });

export class ConsumeTelemetry {
  private readonly api: OpenTelemetryApi;
  private readonly tracer: Tracer;
  private readonly meter: Meter;
  private readonly labels = new Map<string, TopicLabels>();
  private readonly consumed: Counter;
  private readonly processDuration: Histogram;
  private readonly operationDuration: Histogram;
  private readonly deliveryLatency: Histogram;
  private readonly awaitTime: Histogram;
  private readonly processTime: Histogram;
  private readonly gauges: ObservableGauge[] = [];
  private readonly observe: BatchObservableCallback | undefined;
  /** A meter provider was registered at start: the instruments record. */
  readonly metricsOn: boolean;
  private readonly tracers: TracerInUse;

  constructor(
    telemetry: ClientTelemetry,
    private readonly scope: ConsumeTelemetryScope,
  ) {
    this.api = telemetry.api;
    this.tracer = telemetry.tracer;
    const meter = telemetry.meter();
    this.meter = meter;
    this.metricsOn = meterRecords(this.api, meter);
    this.tracers = new TracerInUse(this.api);
    const seconds = { explicitBucketBoundaries: [...MESSAGING_DURATION_BUCKETS_S] };
    this.consumed = meter.createCounter(MessagingMetric.CONSUMED_MESSAGES, {
      description: 'Messages delivered to the application',
      unit: '{message}',
    });
    this.processDuration = meter.createHistogram(MessagingMetric.PROCESS_DURATION, {
      description: 'Duration of handler calls',
      unit: 's',
      advice: seconds,
    });
    this.operationDuration = meter.createHistogram(MessagingMetric.OPERATION_DURATION, {
      description: 'Duration of receive and settle operations',
      unit: 's',
      advice: seconds,
    });
    const ms = (
      buckets: readonly number[],
    ): { unit: string; advice: { explicitBucketBoundaries: number[] } } => ({
      unit: 'ms',
      advice: { explicitBucketBoundaries: [...buckets] },
    });
    this.deliveryLatency = meter.createHistogram(JavaMetric.DELIVERY_LATENCY, {
      description: 'From the store time of a message to its arrival at the client',
      ...ms(JavaMetricBuckets.DELIVERY_LATENCY),
    });
    this.awaitTime = meter.createHistogram(JavaMetric.AWAIT_TIME, {
      description: 'From the hand-off of messages to the handler pool to the handler start',
      ...ms(JavaMetricBuckets.AWAIT_TIME),
    });
    this.processTime = meter.createHistogram(JavaMetric.PROCESS_TIME, {
      description: 'Handler time per message',
      ...ms(JavaMetricBuckets.PROCESS_TIME),
    });
    const cache = scope.cache;
    if (cache !== undefined) {
      const messages = meter.createObservableGauge(JavaMetric.CACHED_MESSAGES, {
        description: 'Messages in the local cache',
        unit: '{message}',
      });
      const bytes = meter.createObservableGauge(JavaMetric.CACHED_BYTES, {
        description: 'Message bytes in the local cache',
        unit: 'By',
      });
      this.gauges.push(messages, bytes);
      this.observe = (result): void => {
        const totals = new Map<string, { count: number; bytes: number }>();
        for (const f of cache()) {
          const t = totals.get(f.topic);
          if (t === undefined) totals.set(f.topic, { count: f.count, bytes: f.bytes });
          else {
            t.count += f.count;
            t.bytes += f.bytes;
          }
        }
        // A topic seen once keeps being reported, so its gauge falls to 0 instead of vanishing.
        for (const topic of this.labels.keys())
          if (!totals.has(topic)) totals.set(topic, { count: 0, bytes: 0 });
        for (const [topic, t] of totals) {
          const labels = this.labelsOf(topic).java;
          result.observe(messages, t.count, labels);
          result.observe(bytes, t.bytes, labels);
        }
      };
      meter.addBatchObservableCallback(this.observe, this.gauges);
    } else this.observe = undefined;
  }

  /**
   * A tracer provider is registered now (the tracer is the API's proxy, so one registered after
   * start counts). Without one, a process span would be a no-op: the call is not worth the
   * properties decode and the context it costs.
   */
  tracingOn(): boolean {
    return this.tracers.registered();
  }

  /** Anything to do for a handler call: metrics or tracing. */
  enabled(): boolean {
    return this.metricsOn || this.tracingOn();
  }

  /** Stops the gauges (the consumer stopped). */
  close(): void {
    if (this.observe === undefined || this.gauges.length === 0) return;
    this.meter.removeBatchObservableCallback(this.observe, this.gauges.splice(0));
  }

  private labelsOf(topic: string): TopicLabels {
    let l = this.labels.get(topic);
    if (l !== undefined) return l;
    const s = this.scope;
    const java = Object.freeze({
      [JavaMetricLabel.TOPIC]: topic,
      [JavaMetricLabel.CLIENT_ID]: s.clientId,
      [JavaMetricLabel.CONSUMER_GROUP]: s.consumerGroup,
    });
    l = {
      process: Object.freeze(this.operationLabels(ConsumerOperation.PROCESS, OperationType.PROCESS, topic)),
      java,
      javaSuccess: Object.freeze({ ...java, [JavaMetricLabel.INVOCATION_STATUS]: InvocationStatus.SUCCESS }),
      javaFailure: Object.freeze({ ...java, [JavaMetricLabel.INVOCATION_STATUS]: InvocationStatus.FAILURE }),
    };
    this.labels.set(topic, l);
    return l;
  }

  private operationLabels(operation: string, type: string, topic: string): Attributes {
    return {
      [MessagingAttribute.SYSTEM]: MESSAGING_SYSTEM,
      [MessagingAttribute.OPERATION_NAME]: operation,
      [MessagingAttribute.OPERATION_TYPE]: type,
      [MessagingAttribute.DESTINATION_NAME]: topic,
      [MessagingAttribute.CONSUMER_GROUP_NAME]: this.scope.consumerGroup,
    };
  }

  /** The attributes every consumer span has. */
  private spanAttributes(operation: string, type: string, topic: string): Attributes {
    const s = this.scope;
    const a = this.operationLabels(operation, type, topic);
    a[MessagingAttribute.CLIENT_ID] = s.clientId;
    if (s.namespace !== undefined && s.namespace !== '')
      a[MessagingAttribute.ROCKETMQ_NAMESPACE] = s.namespace;
    if (s.consumptionModel !== undefined)
      a[MessagingAttribute.ROCKETMQ_CONSUMPTION_MODEL] = s.consumptionModel;
    return a;
  }

  /** Messages reached the client (handed to the handler pool, or returned by a receive). */
  delivered(messages: readonly ConsumerMessage[], nowMs: number): void {
    const first = messages[0];
    if (first === undefined) return;
    const from = first.storeTimestamp > 0 ? first.storeTimestamp : first.bornTimestamp;
    const latency = nowMs - from;
    // As Java: clocks apart by more than the latency give no figure.
    if (latency >= 0) this.deliveryLatency.record(latency, this.labelsOf(first.topic).java);
  }

  /**
   * Starts the process span of a handler call, returns the context the handler runs in. One
   * message: its producer's context is the parent. A batch: the application's current context is
   * the parent and each message's producer context a link (the conventions' rule for a span
   * covering many messages).
   */
  startProcess(
    messages: readonly ConsumerMessage[],
    queuedAtMs: number,
    startedMs: number,
  ): [Span, Context] | undefined {
    // queuedAtMs, startedMs: performance.now() readings.
    const api = this.api;
    const first = messages[0]!;
    const topic = first.topic;
    if (queuedAtMs > 0 && this.metricsOn)
      this.awaitTime.record(Math.max(0, startedMs - queuedAtMs), this.labelsOf(topic).java);
    if (!this.tracingOn()) return undefined;
    const name = `process ${topic}`;
    const kind = api.SpanKind.CONSUMER;
    if (messages.length === 1) {
      const parent = producerContextOf(api, first);
      const span = this.tracer.startSpan(name, { kind }, parent.context);
      if (span.isRecording()) {
        const a = this.spanAttributes(ConsumerOperation.PROCESS, OperationType.PROCESS, topic);
        messageAttributes(a, first);
        a[ConsumerAttribute.QUEUE_ID] = first.queue.queueId;
        a[MessagingAttribute.ROCKETMQ_BROKER_NAME] = first.queue.brokerName;
        if (parent.invalid !== undefined) a[ConsumerAttribute.TRACE_CONTEXT_INVALID] = parent.invalid;
        span.setAttributes(a);
      }
      return [span, api.trace.setSpan(api.ROOT_CONTEXT, span)];
    }
    const active = api.context.active();
    const span = this.tracer.startSpan(name, { kind }, active);
    if (span.isRecording()) {
      const a = this.spanAttributes(ConsumerOperation.PROCESS, OperationType.PROCESS, topic);
      a[MessagingAttribute.BATCH_MESSAGE_COUNT] = messages.length;
      a[ConsumerAttribute.QUEUE_ID] = first.queue.queueId;
      a[MessagingAttribute.ROCKETMQ_BROKER_NAME] = first.queue.brokerName;
      const invalid = this.addLinks(span, messages);
      if (invalid !== undefined) a[ConsumerAttribute.TRACE_CONTEXT_INVALID] = invalid;
      span.setAttributes(a);
    }
    return [span, api.trace.setSpan(active, span)];
  }

  /** Links `span` to each message's producer context; the first reason a context was unusable. */
  private addLinks(span: Span, messages: readonly ConsumerMessage[]): string | undefined {
    const api = this.api;
    const links: Link[] = [];
    let invalid: string | undefined;
    for (const m of messages) {
      const extracted = producerContextOf(api, m);
      invalid ??= extracted.invalid;
      const context = api.trace.getSpanContext(extracted.context);
      if (context !== undefined && api.trace.isSpanContextValid(context))
        links.push({ context, attributes: { [MessagingAttribute.MESSAGE_ID]: m.msgId } });
    }
    if (links.length > 0) span.addLinks(links);
    return invalid;
  }

  /** Runs `fn` with `context` active (the handler pool's call in its span). */
  within<This, A, R>(context: Context, fn: (this: This, arg: A) => R, self: This, arg: A): R {
    return this.api.context.with(context, fn, self, arg);
  }

  /** Ends a handler call's span (`startProcess`'s, opaque to the pool) and records its metrics. */
  endProcess(
    processSpan: unknown,
    messages: readonly ConsumerMessage[],
    startedMs: number,
    error: unknown,
    failed: boolean,
  ): void {
    const now = performance.now();
    const span = processSpan === NO_SPAN ? undefined : (processSpan as Span);
    const labels = this.labelsOf(messages[0]!.topic);
    let otel = labels.process;
    if (failed) {
      const type = errorTypeOf(error);
      if (span !== undefined) this.failSpan(span, error, type);
      otel = { ...otel, [MessagingAttribute.ERROR_TYPE]: type };
    }
    span?.end();
    if (!this.metricsOn) return;
    const ms = now - startedMs;
    this.processDuration.record(ms / 1000, otel);
    this.consumed.add(messages.length, otel);
    // As Java: one record per message, each with the call's time.
    const java = failed ? labels.javaFailure : labels.javaSuccess;
    for (let i = 0; i < messages.length; i++) this.processTime.record(ms, java);
  }

  private failSpan(span: Span, error: unknown, type: string): void {
    if (!span.isRecording()) return;
    span.setAttribute(MessagingAttribute.ERROR_TYPE, type);
    if (error instanceof Error) span.recordException(error);
    span.setStatus({
      code: this.api.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }

  /**
   * A receive of a pull-style consumer (SimpleConsumer receive, LitePullConsumer poll) as a
   * `receive <topic>` span, kind CLIENT, its parent the application's current context, linked to
   * each received message's producer; with the message count, the operation's duration and the
   * consumed messages. `topic` undefined: named after the messages' topic once they are in. An
   * empty result leaves no span when `emptyToo` is false (a poll loop would flood the exporter).
   */
  async traceReceive<M extends ConsumerMessage>(
    topic: string | undefined,
    emptyToo: boolean,
    receive: () => Promise<M[]>,
  ): Promise<M[]> {
    const op = this.startOperation(ConsumerOperation.RECEIVE, topic);
    let messages: M[];
    try {
      messages = await receive();
    } catch (error) {
      this.endOperation(op, error);
      throw error;
    }
    if (messages.length === 0 && !emptyToo) return messages;
    const span = op.span;
    const first = messages[0];
    if (op.topic === undefined && first !== undefined) {
      op.topic = first.topic;
      span.updateName(`${ConsumerOperation.RECEIVE} ${first.topic}`);
      span.setAttribute(MessagingAttribute.DESTINATION_NAME, first.topic);
    }
    if (span.isRecording()) {
      span.setAttribute(MessagingAttribute.BATCH_MESSAGE_COUNT, messages.length);
      if (messages.length === 1) span.setAttribute(MessagingAttribute.MESSAGE_ID, first!.msgId);
      const invalid = this.addLinks(span, messages);
      if (invalid !== undefined) span.setAttribute(ConsumerAttribute.TRACE_CONTEXT_INVALID, invalid);
    }
    this.endOperation(op, undefined);
    if (first === undefined) return messages;
    this.delivered(messages, Date.now());
    const topics = new Map<string, number>();
    for (const m of messages) topics.set(m.topic, (topics.get(m.topic) ?? 0) + 1);
    for (const [t, n] of topics)
      this.consumed.add(n, this.operationLabels(ConsumerOperation.RECEIVE, OperationType.RECEIVE, t));
    return messages;
  }

  /**
   * A settle call (`ack`, `change_invisible_duration`) of `messages` as a `<operation> <topic>`
   * span, kind CLIENT, operation type `settle`, its parent the application's current context.
   */
  async traceSettle<T>(
    operation: string,
    messages: readonly ConsumerMessage[],
    settle: () => Promise<T>,
  ): Promise<T> {
    const first = messages[0];
    const op = this.startOperation(operation, first?.topic);
    if (op.span.isRecording() && first !== undefined) {
      if (messages.length === 1) op.span.setAttribute(MessagingAttribute.MESSAGE_ID, first.msgId);
      else op.span.setAttribute(MessagingAttribute.BATCH_MESSAGE_COUNT, messages.length);
    }
    try {
      const result = await settle();
      this.endOperation(op, undefined);
      return result;
    } catch (error) {
      this.endOperation(op, error);
      throw error;
    }
  }

  private startOperation(operation: string, topic: string | undefined): OperationSpan {
    const startedMs = performance.now();
    const name = topic === undefined ? operation : `${operation} ${topic}`;
    const span = this.tracer.startSpan(name, { kind: this.api.SpanKind.CLIENT });
    if (span.isRecording()) {
      const a = this.spanAttributes(operation, operationTypeOf(operation), topic ?? '');
      if (topic === undefined) delete a[MessagingAttribute.DESTINATION_NAME];
      span.setAttributes(a);
    }
    return { span, operation, topic, startedMs };
  }

  /** Ends a receive or settle span, failed when `error` is given; records its duration. */
  private endOperation(op: OperationSpan, error: unknown): void {
    const now = performance.now();
    const labels = this.operationLabels(op.operation, operationTypeOf(op.operation), op.topic ?? '');
    if (op.topic === undefined) delete labels[MessagingAttribute.DESTINATION_NAME];
    if (error !== undefined) {
      const errorType = errorTypeOf(error);
      this.failSpan(op.span, error, errorType);
      labels[MessagingAttribute.ERROR_TYPE] = errorType;
    }
    op.span.end();
    this.operationDuration.record((now - op.startedMs) / 1000, labels);
  }
}

function operationTypeOf(operation: string): string {
  return operation === ConsumerOperation.RECEIVE ? OperationType.RECEIVE : OperationType.SETTLE;
}
