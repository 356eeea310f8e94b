export {
  PullReader,
  DEFAULT_PULL_READER_OPTIONS,
  validatePullReaderOptions,
  queuesFromRoute,
  type PullReaderOptions,
  type ReadMessage,
  type QueueLocation,
} from './pull-reader.js';
export {
  PushConsumer,
  type ConsumeHandler,
  type MessageHandler,
  type BatchHandler,
  type QueueLag,
  type HandlerErrorEvent,
  type OffsetsCommittedEvent,
  type PushConsumerEvents,
} from './push-consumer.js';
export {
  PUSH_CONSUMER_DEFAULTS,
  resolvePushConsumerOptions,
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
  type MessageModelName,
  type ConsumeFromWhereName,
} from './options.js';
export type { ConsumerMessage } from './message-view.js';
export type { SubscriptionExpression } from './subscription.js';
export type { RebalanceEvent } from './rebalance.js';
export type { ConsumeTraceContext } from './handler-pool.js';
export { HandlerTimeoutError } from './handler-pool.js';
export type { AllocateStrategy, AllocateStrategyName, AllocateContext } from './allocate/index.js';
export { LitePullConsumer } from './lite-pull-consumer.js';
export { OffsetCommitError } from './lite-pull-offsets.js';
export {
  LITE_PULL_CONSUMER_DEFAULTS,
  resolveLitePullConsumerOptions,
  type LitePullConsumerOptions,
  type ResolvedLitePullConsumerOptions,
} from './lite-pull-options.js';

export { SimpleConsumer, checkReceiveArgs } from './simple-consumer.js';
export {
  SIMPLE_CONSUMER_DEFAULTS,
  resolveSimpleConsumerOptions,
  type SimpleConsumerOptions,
  type ResolvedSimpleConsumerOptions,
} from './simple-consumer-options.js';
export type { PoppedMessage } from './pop-response.js';
export { PopNotSupportedError, InvalidReceiptHandleError } from './pop-errors.js';
