/**
 * rocketmq-ts public API. Internals (header codecs, the CLI) stay unexported on purpose.
 */
export * from './errors.js';

// protocol: codes, commands, frames and message formats
export * from './protocol/codes.js';
export * from './protocol/command.js';
export * from './protocol/frame.js';
export * from './protocol/message/properties.js';
export * from './protocol/message/sysflag.js';
export * from './protocol/message/message-id.js';
export * from './protocol/message/compression.js';
export * from './protocol/message/stored-message.js';
export * from './protocol/perm.js';
export * from './protocol/validation.js';
export * from './protocol/acl.js';

// remoting and observability
export * from './remoting/index.js';
export * from './observability/logger.js';
export * from './observability/channels.js';

// producer
export { Producer } from './producer/producer.js';
export type { ProducerEvents, SendTraceContext } from './producer/producer.js';
export type { Message } from './producer/message.js';
export type { SendResult, SendStatus } from './producer/send-result.js';
export { SendFailedError, SendResultUnknownError } from './producer/errors.js';
export type { SendAttempt } from './producer/errors.js';
export { TopicRouteNotFoundError } from './client/errors.js';
export { PRODUCER_DEFAULTS, DEFAULT_RETRY_RESPONSE_CODES } from './producer/options.js';
export type { ProducerOptions, LatencyFaultStrategyName } from './producer/options.js';
export type {
  BrokerHealth,
  BrokerIsolatedEvent,
  BrokerRecoveredEvent,
  FailureKind,
} from './producer/fault/latency-fault-tolerance.js';
export type { MessageQueue } from './client/route.js';
export type { RouteUpdatedEvent } from './client/client-instance.js';

// consumer side (minimal pull reader)
export * from './consumer/index.js';

// embedded NameServer, Broker, store and cluster
export * from './server/index.js';
export * from './server/store/index.js';
