/**
 * Span attribute, metric and label names, and the metrics' bucket boundaries: the OpenTelemetry messaging semantic conventions
 * (`messaging.*`, `server.*`, `error.type`) with the RocketMQ-specific ones, and the Java 5
 * client's metric labels (docs/observability.md §1, §2). One table, so producer and consumers
 * spell them alike.
 */
export const MessagingAttribute = Object.freeze({
  SYSTEM: 'messaging.system',
  DESTINATION_NAME: 'messaging.destination.name',
  OPERATION_NAME: 'messaging.operation.name',
  OPERATION_TYPE: 'messaging.operation.type',
  MESSAGE_ID: 'messaging.message.id',
  MESSAGE_BODY_SIZE: 'messaging.message.body.size',
  BATCH_MESSAGE_COUNT: 'messaging.batch.message_count',
  CONSUMER_GROUP_NAME: 'messaging.consumer.group.name',
  CLIENT_ID: 'messaging.client.id',
  ROCKETMQ_MESSAGE_TAG: 'messaging.rocketmq.message.tag',
  ROCKETMQ_MESSAGE_KEYS: 'messaging.rocketmq.message.keys',
  ROCKETMQ_MESSAGE_TYPE: 'messaging.rocketmq.message.type',
  ROCKETMQ_MESSAGE_GROUP: 'messaging.rocketmq.message.group',
  ROCKETMQ_NAMESPACE: 'messaging.rocketmq.namespace',
  ROCKETMQ_CONSUMPTION_MODEL: 'messaging.rocketmq.consumption_model',
  SERVER_ADDRESS: 'server.address',
  SERVER_PORT: 'server.port',
  ERROR_TYPE: 'error.type',
  // The producer's (send spans and their attempt events); the last three as the Java agent's
  // experimental RocketMQ producer attributes.
  DESTINATION_PARTITION_ID: 'messaging.destination.partition.id',
  ROCKETMQ_BROKER_NAME: 'messaging.rocketmq.broker_name',
  ROCKETMQ_ATTEMPT: 'messaging.rocketmq.attempt',
  ROCKETMQ_ATTEMPT_LATENCY_MS: 'messaging.rocketmq.attempt.latency_ms',
  ROCKETMQ_HEDGE_BROKER_NAME: 'messaging.rocketmq.hedge.broker_name',
  ROCKETMQ_PRODUCER_GROUP: 'messaging.rocketmq.client_group',
  ROCKETMQ_BROKER_ADDRESS: 'messaging.rocketmq.broker_address',
  ROCKETMQ_SEND_RESULT: 'messaging.rocketmq.send_result',
});

/** `messaging.system`'s value. */
export const MESSAGING_SYSTEM = 'rocketmq';

/** `messaging.operation.type` values (semantic conventions 1.27+). */
export const OperationType = Object.freeze({
  SEND: 'send',
  RECEIVE: 'receive',
  PROCESS: 'process',
  SETTLE: 'settle',
  CREATE: 'create',
});

/** `messaging.rocketmq.message.type` values (Java 5's MessageType names, lower case as the conventions). */
export const RocketmqMessageType = Object.freeze({
  NORMAL: 'normal',
  FIFO: 'fifo',
  DELAY: 'delay',
  TRANSACTION: 'transaction',
});

/** The Java 5 client's metric labels (rocketmq-clients MetricLabels). */
export const JavaMetricLabel = Object.freeze({
  TOPIC: 'topic',
  CLIENT_ID: 'client_id',
  CONSUMER_GROUP: 'consumer_group',
  INVOCATION_STATUS: 'invocation_status',
});

/** RocketMQ attributes of received messages (docs/observability.md §1.1 "Consumer spans"). */
export const ConsumerAttribute = Object.freeze({
  /** Deliveries before this one (`MessageExt.reconsumeTimes`). */
  RECONSUME_TIMES: 'messaging.rocketmq.message.reconsume_times',
  /** As the Java agent's experimental attributes. */
  QUEUE_ID: 'messaging.rocketmq.queue_id',
  QUEUE_OFFSET: 'messaging.rocketmq.queue_offset',
  /** Why a trace context in the message was not used (docs/observability.md §1.2). */
  TRACE_CONTEXT_INVALID: 'messaging.rocketmq.trace_context.invalid',
});

/** The consumers' `messaging.operation.name` values (named after the client's calls). */
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
  /** Messages the producer tried to send (batch messages each). */
  SENT_MESSAGES: 'messaging.client.sent.messages',
  CONSUMED_MESSAGES: 'messaging.client.consumed.messages',
  PROCESS_DURATION: 'messaging.process.duration',
  OPERATION_DURATION: 'messaging.client.operation.duration',
});

/** The conventions' advised boundaries (seconds) of the duration histograms. */
export const MESSAGING_DURATION_BUCKETS_S: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
]);

/** The Java 5 client's metrics (rocketmq-clients `HistogramEnum`, `GaugeEnum`). */
export const JavaMetric = Object.freeze({
  /** Milliseconds per send call. */
  SEND_COST_TIME: 'rocketmq_send_cost_time',
  DELIVERY_LATENCY: 'rocketmq_delivery_latency',
  AWAIT_TIME: 'rocketmq_await_time',
  PROCESS_TIME: 'rocketmq_process_time',
  CACHED_MESSAGES: 'rocketmq_consumer_cached_messages',
  CACHED_BYTES: 'rocketmq_consumer_cached_bytes',
});

/** The Java 5 client's bucket boundaries (ms) of each histogram. */
export const JavaMetricBuckets = Object.freeze({
  SEND_COST_TIME: Object.freeze([1, 5, 10, 20, 50, 200, 500]),
  DELIVERY_LATENCY: Object.freeze([1, 5, 10, 20, 50, 200, 500]),
  AWAIT_TIME: Object.freeze([1, 5, 20, 100, 1000, 5000, 10_000]),
  PROCESS_TIME: Object.freeze([1, 5, 10, 100, 1000, 10_000, 60_000]),
});
