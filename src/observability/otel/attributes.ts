/**
 * Span and metric attribute names: the OpenTelemetry messaging semantic conventions
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
