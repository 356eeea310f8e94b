/**
 * rocketmq-ts: what an application imports, as an explicit list.
 *
 * Two more entry points carry the rest, so that importing `Producer` loads neither codec
 * internals nobody calls nor the embedded broker and its store (test/package proves it):
 * - `rocketmq-ts/protocol`: codes, commands, frame and header codecs, message formats;
 *   `rocketmq-ts/remoting`: connections, pool, remoting server, frame parser, opaque counter;
 * - `rocketmq-ts/server`: `EmbeddedCluster`, `NameServer`, `Broker`, the message store.
 */

// errors: every class an application may catch, all extending RocketMQError (src/errors/, by family)
export {
  // base
  RocketMQError,
  InvalidArgumentError,
  IllegalStateError,
  // connection
  ConnectError,
  TlsVerificationError,
  TimeoutError,
  ConnectionClosedError,
  ProtocolError,
  BackpressureError,
  // what a broker or NameServer answered
  BrokerResponseError,
  MessageTypeMismatchError,
  AccessDeniedError,
  TopicNotFoundError,
  BrokerNotFoundError,
  BrokerUnavailableError,
  RequestNotSupportedError,
  AuthAdminNotSupportedError,
  // producer
  SendFailedError,
  SendResultUnknownError,
  NotStoreOkError,
  QueueSendFailedError,
  TimerNotSupportedError,
  RecallDisabledError,
  RecallRejectedError,
  RequestTimeoutError,
  // consumers
  HandlerTimeoutError,
  UnsupportedCompressionError,
  OffsetCommitError,
  OffsetReadError,
  ReplyNotPossibleError,
  PopNotSupportedError,
  InvalidReceiptHandleError,
  AckFailedError,
  FilterExpressionError,
  // admin
  ConsumerGroupNotFoundError,
  ConsumerNotOnlineError,
  ConsumerGroupOnlineError,
  ProducerGroupNotOnlineError,
  MessageNotFoundError,
  ProxyEndpointError,
  // NameServer, lifecycle, abort
  NameServerUnreachableError,
  NotANameServerError,
  StartCancelledError,
  AbortError,
} from './errors.js';
export type { RocketMQErrorOptions, SendAttempt, QueueRef, ResponseDetails } from './errors.js';
// `{ signal }`: the per-call options of every call that waits
export type { CallOptions } from './remoting/abort.js';
export type { LifecycleState } from './client/lifecycle.js';

// producer
export { Producer } from './producer/producer.js';
export type { ProducerEvents, SendTraceContext } from './producer/producer.js';
export { PRODUCER_DEFAULTS, DEFAULT_RETRY_RESPONSE_CODES } from './producer/options.js';
export type { ProducerOptions, LatencyFaultStrategyName } from './producer/options.js';
// ACL credentials and TLS, taken by every client
export type { ClientConnectionOptions, ClientTlsOptions, Credentials } from './client/connection-options.js';
// the options every client shares (Java ClientConfig), which each class's options extend
export type { ClientOptions, ClientTraceOptions, ResolvedClientOptions } from './client/client-options.js';
export type { Message } from './producer/message.js';
export type { SendResult, SendStatus } from './producer/send-result.js';
export type {
  BrokerHealth,
  BrokerIsolatedEvent,
  BrokerRecoveredEvent,
  FailureKind,
} from './producer/fault/latency-fault-tolerance.js';
export type { MessageQueue } from './client/route.js';
export type { SendOptions, QueueSelector } from './producer/queue-select.js';
export { TransactionProducer, TRANSACTION_PRODUCER_DEFAULTS } from './producer/transaction-producer.js';
export type {
  TransactionProducerOptions,
  TransactionSendResult,
  TransactionCheckMessage,
  LocalTransactionState,
  LocalTransaction,
  CheckListener,
} from './producer/transaction-producer.js';
export type { ReplyMessage } from './producer/request-reply.js';
export type { ReceivedMessage } from './producer/received-message.js';
export type { RouteUpdatedEvent } from './client/client-instance.js';
export type {
  ConnectEvent,
  DisconnectEvent,
  ConnectionEvents,
  ClientInstanceEvents,
} from './client/instance-events.js';

// consumers: push (callback), lite pull (poll / for await), simple (POP)
export {
  PushConsumer,
  PUSH_CONSUMER_DEFAULTS,
  LitePullConsumer,
  LITE_PULL_CONSUMER_DEFAULTS,
  type PushConsumerOptions,
  type PushConsumerEvents,
  type ConsumeHandler,
  type MessageHandler,
  type BatchHandler,
  type QueueLag,
  type HandlerErrorEvent,
  type OffsetsCommittedEvent,
  type CommitFailedEvent,
  type RebalanceEvent,
  type PauseTarget,
  type LitePullConsumerEvents,
  type ConsumeTraceContext,
  type MessageModelName,
  type ConsumeFromWhereName,
  type SubscriptionExpression,
  type AllocateStrategy,
  type AllocateStrategyName,
  type AllocateContext,
  type LitePullConsumerOptions,
  type ConsumerMessage,
} from './consumer/index.js';
export {
  SimpleConsumer,
  type SimpleConsumerOptions,
  type SimpleConsumerEvents,
  type DeadLetterFailedEvent,
  type PoppedMessage,
  type PopQueueLag,
} from './consumer/index.js';
export type { SimpleConsumerMessagesOptions } from './consumer/simple/iterate.js';

// admin: the Admin client (mqadmin as a library) and its result types
export * from './admin/index.js';

// values an application compares against: broker response codes and message property names
export { ResponseCode, responseCodeName } from './protocol/codes.js';
export type { ResponseCodeName } from './protocol/codes.js';
export { PropertyKey } from './protocol/message/properties.js';
export type { PropertyKeyName } from './protocol/message/properties.js';

// logging and diagnostics_channel tracing
export { consoleLogger, silentLogger } from './observability/logger.js';
export type { Logger, LogLevel } from './observability/logger.js';
export { SEND_CHANNEL, REQUEST_CHANNEL, CONSUME_CHANNEL } from './observability/channels.js';
export type { RequestTraceContext } from './observability/channels.js';

// types the public classes' signatures name (options as resolved, health, trace and running-info figures)
export type { PemInput } from './client/connection-options.js';
export type { ResolvedProducerOptions } from './producer/options.js';
export type { BrokerHedgeStats, HedgedDuplicateEvent } from './producer/hedge.js';
export type { TraceStats } from './producer/trace/dispatcher.js';
export type { ResolvedPushConsumerOptions } from './consumer/push/options.js';
export type { ResolvedLitePullConsumerOptions } from './consumer/lite-pull/options.js';
export type { ResolvedSimpleConsumerOptions } from './consumer/simple/options.js';
export type { AllocateStrategyOptions, MachineRoomResolver } from './consumer/allocate/index.js';
export type {
  ConsumeStatusData,
  PopProcessQueueInfoData,
  ProcessQueueInfoData,
} from './protocol/body/consumer-running-info.js';
