/**
 * LitePullConsumerOptions: Java `DefaultLitePullConsumer` names and defaults (consumer.md §2.11).
 * The options both consumers share (group, NameServer, model, allocation, thresholds, timeouts,
 * identity) are validated by the push consumer's resolver, so a value means the same in both;
 * the lite-only ones are checked here. Unknown keys are rejected against the lite list, so a
 * push-only option (consumeThreadMax, consumeOrderly, …) is refused.
 */
import { InvalidArgumentError } from '../errors.js';
import { checkBoolean, checkInt, keyList, rejectUnknownKeys, stripUndefined } from '../options.js';
import type { Logger } from '../observability/logger.js';
import type { AllocateStrategy, AllocateStrategyName, AllocateStrategyOptions } from './allocate/index.js';
import {
  resolvePushConsumerOptions,
  type ConsumeFromWhereName,
  type MessageModelName,
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
} from './options.js';

export interface LitePullConsumerOptions {
  /** Consumer group; required, `DEFAULT_CONSUMER` is refused as in Java. */
  consumerGroup: string;
  /** NameServer addresses, `"host:port;host:port"` or an array. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[];
  /** @default 'CLUSTERING' */
  messageModel?: MessageModelName;
  /** Where a queue with no committed offset starts. @default 'CONSUME_FROM_LAST_OFFSET' */
  consumeFromWhere?: ConsumeFromWhereName;
  /** `yyyyMMddHHmmss` (local time) for CONSUME_FROM_TIMESTAMP. @default now − 30 min */
  consumeTimestamp?: string;
  /** Queue allocation in subscribe mode: a strategy name or a function. @default 'AVG' */
  allocateStrategy?: AllocateStrategyName | AllocateStrategy;
  /** Settings of the strategy (see PushConsumerOptions). @default {} */
  allocateStrategyOptions?: AllocateStrategyOptions;
  /** Most messages one `poll()` returns, and messages asked for per pull. @default 10 */
  pullBatchSize?: number;
  /** Pulls pause while more than this many messages wait for `poll()` in all queues. @default 10000 */
  pullThresholdForAll?: number;
  /** Pulls of a queue pause while it has this many messages waiting. @default 1000 */
  pullThresholdForQueue?: number;
  /** Pulls of a queue pause while its waiting bodies exceed this many MiB. @default 100 */
  pullThresholdSizeForQueue?: number;
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
  /** Client-side timeout of a long-polling pull (ms). @default 30000 */
  consumerTimeoutMillisWhenSuspend?: number;
  /** How often the queues of `fetchMessageQueues` topics and assigned topics are re-read (ms). @default 30000 */
  topicMetadataCheckIntervalMillis?: number;
  /** Subscribe mode: rebalance period (ms). @default 20000 */
  rebalanceInterval?: number;
  /** Delay after a failed pull (ms). @default 3000 */
  pullTimeDelayMillsWhenException?: number;
  /** Broadcasting offset files live under this folder. @default ~/.rocketmq_offsets */
  offsetStoreDir?: string;
  /** @default false */
  unitMode?: boolean;
  /** Wraps topics and the group as `<namespace>%<name>`. @default undefined */
  namespace?: string;
  /** Clustering: `DEFAULT` becomes `<pid>#<hrtime>`. @default 'DEFAULT' */
  instanceName?: string;
  /** @default undefined */
  unitName?: string;
  /** @default the first non-internal IPv4, else 127.0.0.1 */
  clientIP?: string;
  /** @default 30000 */
  pollNameServerInterval?: number;
  /** @default 30000 */
  heartbeatBrokerInterval?: number;
  /** Timeout of offset and membership requests (ms). @default 3000 */
  mqClientApiTimeout?: number;
  /** LanguageCode sent in each command. @default 'JAVA' */
  language?: string;
  /** @default silentLogger */
  logger?: Logger;
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

const OPTION_NAMES = keyList<LitePullConsumerOptions>({
  consumerGroup: true,
  namesrvAddr: true,
  messageModel: true,
  consumeFromWhere: true,
  consumeTimestamp: true,
  allocateStrategy: true,
  allocateStrategyOptions: true,
  pullBatchSize: true,
  pullThresholdForAll: true,
  pullThresholdForQueue: true,
  pullThresholdSizeForQueue: true,
  consumeMaxSpan: true,
  pollTimeoutMillis: true,
  autoCommit: true,
  autoCommitIntervalMillis: true,
  consumerPullTimeoutMillis: true,
  brokerSuspendMaxTimeMillis: true,
  consumerTimeoutMillisWhenSuspend: true,
  topicMetadataCheckIntervalMillis: true,
  rebalanceInterval: true,
  pullTimeDelayMillsWhenException: true,
  offsetStoreDir: true,
  unitMode: true,
  namespace: true,
  instanceName: true,
  unitName: true,
  clientIP: true,
  pollNameServerInterval: true,
  heartbeatBrokerInterval: true,
  mqClientApiTimeout: true,
  language: true,
  logger: true,
});

const MAX_INT = 2 ** 31 - 1;

/** Applies defaults and validates; throws `InvalidArgumentError` naming the option. */
export function resolveLitePullConsumerOptions(
  options: LitePullConsumerOptions,
): ResolvedLitePullConsumerOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new InvalidArgumentError('options', 'must be an object');
  rejectUnknownKeys(options, OPTION_NAMES);
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
