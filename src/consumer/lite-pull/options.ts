/**
 * LitePullConsumerOptions: Java `DefaultLitePullConsumer` names and defaults (docs/consumers.md §2).
 * The client options every class shares are client/client-options.ts's; the consumer options
 * both consumers share (group, model, allocation, thresholds, timeouts) are validated by the
 * push consumer's resolver, so a value means the same in both;
 * the lite-only ones are checked here. Unknown keys are rejected against the lite list, so a
 * push-only option (consumeThreadMax, consumeOrderly, …) is refused.
 */
import { resolveClientOptions, type ClientOptions } from '../../client/client-options.js';
import { checkBoolean, checkInt, keyList, MAX_INT, stripUndefined } from '../../options.js';
import {
  resolvePushConsumerOptions,
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
} from '../push/options.js';

/**
 * Consumer options with the same meaning and default in both consumers; their TSDoc is in
 * PushConsumerOptions. The options every client shares are client-options.ts's.
 */
const SHARED_OPTION_NAMES = [
  'consumerGroup',
  'messageModel',
  'consumeFromWhere',
  'consumeTimestamp',
  'allocateStrategy',
  'allocateStrategyOptions',
  'pullThresholdForQueue',
  'pullThresholdSizeForQueue',
  'consumerTimeoutMillisWhenSuspend',
  'rebalanceInterval',
  'pullTimeDelayMillsWhenException',
  'offsetStoreDir',
  'unitMode',
] as const satisfies ReadonlyArray<keyof PushConsumerOptions>;

export interface LitePullConsumerOptions
  extends ClientOptions, Pick<PushConsumerOptions, (typeof SHARED_OPTION_NAMES)[number]> {
  /** Most messages one `poll()` returns, and messages asked for per pull. @default 10 */
  pullBatchSize?: number;
  /** Pulls pause while more than this many messages wait for `poll()` in all queues. @default 10000 */
  pullThresholdForAll?: number;
  /** Pulls of a queue pause while its waiting messages span more offsets than this. @default 2000 */
  consumeMaxSpan?: number;
  /** How long `poll()` without an argument waits for messages (ms). @default 5000 */
  pollTimeoutMillis?: number;
  /** Commit the offsets of polled messages every autoCommitIntervalMillis. @default true */
  autoCommit?: boolean;
  /** @default 5000 */
  autoCommitIntervalMillis?: number;
  /**
   * Java's timeout of a non-blocking pull; this consumer's pulls always long-poll, so they use
   * consumerTimeoutMillisWhenSuspend. Kept for Java configurations. @default 10000
   */
  consumerPullTimeoutMillis?: number;
  /** Broker-side long-poll hold (ms). @default 20000 */
  brokerSuspendMaxTimeMillis?: number;
  /**
   * Java's period for checking the queues of subscribed topics; here the client core refreshes
   * the routes of every topic in use every pollNameServerInterval. Kept for Java configurations.
   * @default 30000
   */
  topicMetadataCheckIntervalMillis?: number;
}

/** The shared (push-resolved) options plus the lite-only ones. */
export interface ResolvedLitePullConsumerOptions extends ResolvedPushConsumerOptions {
  pullThresholdForAll: number;
  consumeMaxSpan: number;
  pollTimeoutMillis: number;
  autoCommit: boolean;
  autoCommitIntervalMillis: number;
  consumerPullTimeoutMillis: number;
  topicMetadataCheckIntervalMillis: number;
}

export const LITE_PULL_CONSUMER_DEFAULTS = Object.freeze({
  pullBatchSize: 10,
  pullThresholdForAll: 10_000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  consumeMaxSpan: 2000,
  pollTimeoutMillis: 5000,
  autoCommit: true,
  autoCommitIntervalMillis: 5000,
  consumerPullTimeoutMillis: 10_000,
  brokerSuspendMaxTimeMillis: 20_000,
  consumerTimeoutMillisWhenSuspend: 30_000,
  topicMetadataCheckIntervalMillis: 30_000,
});

const OPTION_NAMES: readonly string[] = [
  ...SHARED_OPTION_NAMES,
  ...keyList<Omit<LitePullConsumerOptions, (typeof SHARED_OPTION_NAMES)[number] | keyof ClientOptions>>({
    pullBatchSize: true,
    pullThresholdForAll: true,
    consumeMaxSpan: true,
    pollTimeoutMillis: true,
    autoCommit: true,
    autoCommitIntervalMillis: true,
    consumerPullTimeoutMillis: true,
    brokerSuspendMaxTimeMillis: true,
    topicMetadataCheckIntervalMillis: true,
  }),
];

/** Applies defaults and validates; throws `InvalidArgumentError` naming the option. */
export function resolveLitePullConsumerOptions(
  options: LitePullConsumerOptions,
): ResolvedLitePullConsumerOptions {
  // Key checks here, against the lite list: a push-only option is refused, and so is the trace
  // pair (no SubBefore/SubAfter records are written around poll(), unlike push consumption).
  resolveClientOptions(options, {
    client: 'LitePullConsumer',
    own: OPTION_NAMES,
  });
  const o = { ...LITE_PULL_CONSUMER_DEFAULTS, ...stripUndefined(options) };
  const consumeMaxSpan = checkInt('consumeMaxSpan', o.consumeMaxSpan, 1, 65535);
  const autoCommitIntervalMillis = checkInt(
    'autoCommitIntervalMillis',
    o.autoCommitIntervalMillis,
    10,
    MAX_INT,
  );
  const {
    pullThresholdForAll,
    consumeMaxSpan: _span,
    pollTimeoutMillis,
    autoCommit,
    autoCommitIntervalMillis: _interval,
    consumerPullTimeoutMillis,
    topicMetadataCheckIntervalMillis,
    ...shared
  } = o;
  const push: PushConsumerOptions = {
    ...shared,
    consumerGroup: options.consumerGroup,
    consumeConcurrentlyMaxSpan: consumeMaxSpan,
    persistConsumerOffsetInterval: autoCommitIntervalMillis,
  };
  return {
    ...resolvePushConsumerOptions(push),
    pullThresholdForAll: checkInt('pullThresholdForAll', pullThresholdForAll, 1, MAX_INT),
    consumeMaxSpan,
    pollTimeoutMillis: checkInt('pollTimeoutMillis', pollTimeoutMillis, 0, MAX_INT),
    autoCommit: checkBoolean('autoCommit', autoCommit),
    autoCommitIntervalMillis,
    consumerPullTimeoutMillis: checkInt('consumerPullTimeoutMillis', consumerPullTimeoutMillis, 1, MAX_INT),
    topicMetadataCheckIntervalMillis: checkInt(
      'topicMetadataCheckIntervalMillis',
      topicMetadataCheckIntervalMillis,
      10,
      MAX_INT,
    ),
  };
}
