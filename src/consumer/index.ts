export {
  PushConsumer,
  type ConsumeHandler,
  type MessageHandler,
  type BatchHandler,
  type QueueLag,
  type HandlerErrorEvent,
  type OffsetsCommittedEvent,
  type CommitFailedEvent,
  type PushConsumerEvents,
} from './push/push-consumer.js';
export type { PauseTarget } from './core/pause.js';
export type { LitePullConsumerEvents } from './lite-pull/events.js';
export {
  PUSH_CONSUMER_DEFAULTS,
  resolvePushConsumerOptions,
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
  type MessageModelName,
  type ConsumeFromWhereName,
} from './push/options.js';
export type { ConsumerMessage } from './core/message-view.js';
export type { SubscriptionExpression } from './core/subscription.js';
export type { RebalanceEvent } from './core/rebalance.js';
export type { ConsumeTraceContext } from './core/handler-pool.js';
export type { AllocateStrategy, AllocateStrategyName, AllocateContext } from './allocate/index.js';
export { LitePullConsumer } from './lite-pull/lite-pull-consumer.js';
export {
  LITE_PULL_CONSUMER_DEFAULTS,
  resolveLitePullConsumerOptions,
  type LitePullConsumerOptions,
  type ResolvedLitePullConsumerOptions,
} from './lite-pull/options.js';

export {
  SimpleConsumer,
  checkReceiveArgs,
  type SimpleConsumerEvents,
  type DeadLetterFailedEvent,
} from './simple/simple-consumer.js';
export {
  SIMPLE_CONSUMER_DEFAULTS,
  resolveSimpleConsumerOptions,
  type SimpleConsumerOptions,
  type ResolvedSimpleConsumerOptions,
} from './simple/options.js';
export type { PoppedMessage } from './simple/pop-response.js';
export type { PopQueueLag } from './simple/lag.js';
