/**
 * The consumers' span attribute and metric names (docs/observability.md §1.1 "Consumer spans",
 * §2.2 "Consumer metrics") beyond the shared table in attributes.ts: RocketMQ-specific attributes
 * of received messages, the OpenTelemetry messaging metrics and the Java 5 client's consumer
 * metrics with its bucket boundaries (rocketmq-clients `HistogramEnum`, `GaugeEnum`).
 */
export const ConsumerAttribute = Object.freeze({
  /** Deliveries before this one (`MessageExt.reconsumeTimes`). */
  RECONSUME_TIMES: 'messaging.rocketmq.message.reconsume_times',
  /** As the Java agent's experimental attributes. */
  QUEUE_ID: 'messaging.rocketmq.queue_id',
  QUEUE_OFFSET: 'messaging.rocketmq.queue_offset',
  BROKER_NAME: 'messaging.rocketmq.broker_name',
  /** Why a trace context in the message was not used (docs/observability.md §1.2). */
  TRACE_CONTEXT_INVALID: 'messaging.rocketmq.trace_context.invalid',
});

/** `messaging.operation.name` values of the consumers (named after the client's calls). */
export const ConsumerOperation = Object.freeze({
  PROCESS: 'process',
  RECEIVE: 'receive',
  ACK: 'ack',
  CHANGE_INVISIBLE_DURATION: 'change_invisible_duration',
});

/** `invocation_status` values (Java 5 `InvocationStatus`). */
export const InvocationStatus = Object.freeze({ SUCCESS: 'success', FAILURE: 'failure' });

/** The OpenTelemetry messaging metrics (semantic conventions 1.27+). */
export const MessagingMetric = Object.freeze({
  CONSUMED_MESSAGES: 'messaging.client.consumed.messages',
  PROCESS_DURATION: 'messaging.process.duration',
  OPERATION_DURATION: 'messaging.client.operation.duration',
});

/** The conventions' advised boundaries (seconds) of the duration histograms. */
export const MESSAGING_DURATION_BUCKETS_S: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
]);

/** The Java 5 client's consumer metrics. */
export const JavaConsumerMetric = Object.freeze({
  DELIVERY_LATENCY: 'rocketmq_delivery_latency',
  AWAIT_TIME: 'rocketmq_await_time',
  PROCESS_TIME: 'rocketmq_process_time',
  CACHED_MESSAGES: 'rocketmq_consumer_cached_messages',
  CACHED_BYTES: 'rocketmq_consumer_cached_bytes',
});

/** The Java 5 client's bucket boundaries (ms) of each histogram. */
export const JavaConsumerBuckets = Object.freeze({
  DELIVERY_LATENCY: Object.freeze([1, 5, 10, 20, 50, 200, 500]),
  AWAIT_TIME: Object.freeze([1, 5, 20, 100, 1000, 5000, 10_000]),
  PROCESS_TIME: Object.freeze([1, 5, 10, 100, 1000, 10_000, 60_000]),
});
