/**
 * rocketmq-ts: what an application imports, as an explicit list.
 *
 * Two more entry points carry the rest, so that importing `Producer` loads neither codec
 * internals nobody calls nor the embedded broker and its store (test/package proves it):
 * - `rocketmq-ts/protocol`: codes, commands, frame and header codecs, message formats;
 *   `rocketmq-ts/remoting`: connections, pool, remoting server, frame parser, opaque counter;
 * - `rocketmq-ts/server`: `EmbeddedCluster`, `NameServer`, `Broker`, the message store.
 */

// errors: every class an application may catch, all extending RocketMQError
export {
  RocketMQError,
  InvalidArgumentError,
  ConnectError,
  TimeoutError,
  ConnectionClosedError,
  ProtocolError,
  BackpressureError,
  BrokerResponseError,
  IllegalStateError,
} from './errors.js';
export type { RocketMQErrorOptions } from './errors.js';
export { TopicRouteNotFoundError } from './client/errors.js';
export { SendFailedError, SendResultUnknownError } from './producer/errors.js';
export type { SendAttempt } from './producer/errors.js';

// producer
export { Producer } from './producer/producer.js';
export type { ProducerEvents, SendTraceContext } from './producer/producer.js';
export { PRODUCER_DEFAULTS, DEFAULT_RETRY_RESPONSE_CODES } from './producer/options.js';
export type { ProducerOptions, LatencyFaultStrategyName } from './producer/options.js';
export type { Message } from './producer/message.js';
export type { SendResult, SendStatus } from './producer/send-result.js';
export type {
  BrokerHealth,
  BrokerIsolatedEvent,
  BrokerRecoveredEvent,
  FailureKind,
} from './producer/fault/latency-fault-tolerance.js';
export type { MessageQueue } from './client/route.js';
export type { RouteUpdatedEvent } from './client/client-instance.js';

// consumer: the pull reader today; the push and simple consumers are exported here when they land
export {
  PullReader,
  DEFAULT_PULL_READER_OPTIONS,
  queuesFromRoute,
  type PullReaderOptions,
  type ReadMessage,
  type QueueLocation,
} from './consumer/index.js';
export {
  SimpleConsumer,
  PopNotSupportedError,
  InvalidReceiptHandleError,
  type SimpleConsumerOptions,
  type ReceivedMessage,
} from './consumer/index.js';

// admin: the admin client is exported here when it lands

// values an application compares against: broker response codes and message property names
export { ResponseCode, responseCodeName } from './protocol/codes.js';
export type { ResponseCodeName } from './protocol/codes.js';
export { PropertyKey } from './protocol/message/properties.js';
export type { PropertyKeyName } from './protocol/message/properties.js';

// logging and diagnostics_channel tracing
export { consoleLogger, silentLogger } from './observability/logger.js';
export type { Logger, LogLevel } from './observability/logger.js';
export { SEND_CHANNEL, REQUEST_CHANNEL } from './observability/channels.js';
export type { RequestTraceContext } from './observability/channels.js';
