/**
 * PushConsumerOptions: Java `DefaultMQPushConsumer` / `ClientConfig` names and defaults
 * (docs/consumers.md §1.1), one frozen defaults object and one validator that rejects unknown keys.
 * Deviations from Java are marked "Deviation" in the TSDoc and listed in docs/consumers.md §1.
 */
import {
  CLIENT_DEFAULTS,
  resolveClientOptions,
  resolveTraceOptions,
  type ClientOptions,
  type ClientTraceOptions,
  type ResolvedClientOptions,
  type TraceOptions,
} from '../../client/client-options.js';
import { InvalidArgumentError } from '../../errors.js';
import { checkBoolean, checkEnum, checkInt, keyList, MAX_INT, stripUndefined } from '../../options.js';
import { checkGroup } from '../../protocol/validation.js';
import {
  resolveAllocateStrategy,
  type AllocateStrategy,
  type AllocateStrategyName,
  type AllocateStrategyOptions,
} from '../allocate/index.js';

export type MessageModelName = 'CLUSTERING' | 'BROADCASTING';
export type ConsumeFromWhereName =
  'CONSUME_FROM_LAST_OFFSET' | 'CONSUME_FROM_FIRST_OFFSET' | 'CONSUME_FROM_TIMESTAMP';

/** The push consumer's own options; the shared ones are `ClientOptions` (client/client-options.ts). */
export interface PushConsumerOptions extends ClientOptions, ClientTraceOptions {
  /** Consumer group; required, `DEFAULT_CONSUMER` is refused as in Java. */
  consumerGroup: string;
  /** @default 'CLUSTERING' */
  messageModel?: MessageModelName;
  /**
   * Where a queue without a stored offset starts (§2.5). Deviation: LAST_OFFSET means "nothing
   * stored before this consumer subscribed", never "skip what was sent after": such a queue starts
   * at the first message stored at or after the subscription time (consumer/core/start-position.ts),
   * also when the broker answers 0 for a queue still in memory.
   * @default 'CONSUME_FROM_LAST_OFFSET'
   */
  consumeFromWhere?: ConsumeFromWhereName;
  /** `yyyyMMddHHmmss` (local time) for CONSUME_FROM_TIMESTAMP. @default now − 30 min */
  consumeTimestamp?: string;
  /**
   * Queue allocation: a strategy name or a function (see `allocate/`). @default 'AVG'
   */
  allocateStrategy?: AllocateStrategyName | AllocateStrategy;
  /** Settings of the strategy: `messageQueues` (CONFIG), `consumeridcs` (MACHINE_ROOM), … @default {} */
  allocateStrategyOptions?: AllocateStrategyOptions;
  /** One handler call at a time per queue, in offset order, with queue locks. @default false */
  consumeOrderly?: boolean;
  /**
   * Kept for Java configurations; handlers in flight are bounded by consumeThreadMax.
   * @default min(20, consumeThreadMax)
   */
  consumeThreadMin?: number;
  /** Most handler calls in flight at once (Java's consume thread pool size). @default 20 */
  consumeThreadMax?: number;
  /** Concurrent mode: stop pulling a queue while last − first cached offset exceeds this. @default 2000 */
  consumeConcurrentlyMaxSpan?: number;
  /** Cached messages per queue before pulls pause. @default 1000 */
  pullThresholdForQueue?: number;
  /** Cached body MiB per queue before pulls pause. @default 100 */
  pullThresholdSizeForQueue?: number;
  /** Cached messages per topic (split over its queues); −1 = off. @default -1 */
  pullThresholdForTopic?: number;
  /** Cached body MiB per topic (split over its queues); −1 = off. @default -1 */
  pullThresholdSizeForTopic?: number;
  /** Pause between pulls of one queue (ms). @default 0 */
  pullInterval?: number;
  /** Messages asked for per pull. @default 32 */
  pullBatchSize?: number;
  /** Messages per handler call with `eachBatch`. @default 1 */
  consumeMessageBatchMaxSize?: number;
  /** Send the subscription with every pull (FLAG_SUBSCRIPTION). @default false */
  postSubscriptionWhenPull?: boolean;
  /** −1 = 16 (concurrent) or unlimited (orderly). @default -1 */
  maxReconsumeTimes?: number;
  /** Orderly: how long a failing queue waits before the retry in place (ms, 10–30000). @default 1000 */
  suspendCurrentQueueTimeMillis?: number;
  /** Handler call budget in **minutes** (Java's unit; fractions allowed). @default 15 */
  consumeTimeout?: number;
  /**
   * How long shutdown waits for running handlers (ms). Deviation: Java's 0 drops their results,
   * so finished work is re-delivered after every restart; a bounded wait lets them commit.
   * @default 30000
   */
  awaitTerminationMillisWhenShutdown?: number;
  /** Offset commit period (ms). @default 5000 */
  persistConsumerOffsetInterval?: number;
  /** Rebalance period (ms); Java's `-Drocketmq.client.rebalance.waitInterval`. @default 20000 */
  rebalanceInterval?: number;
  /** Delay after a failed pull (ms). @default 3000 */
  pullTimeDelayMillsWhenException?: number;
  /** Broker-side long-poll hold (ms). @default 15000 */
  brokerSuspendMaxTimeMillis?: number;
  /** Client-side timeout of a long-polling pull (ms). @default 30000 */
  consumerTimeoutMillisWhenSuspend?: number;
  /** A queue whose pull stalled this long is re-created (ms). @default 120000 */
  pullMaxIdleTime?: number;
  /** Orderly lock renewal period (ms). @default 20000 */
  lockInterval?: number;
  /** Orderly: a lock not renewed for this long counts as lost (ms). @default 30000 */
  lockMaxLiveTime?: number;
  /** Broadcasting offset files live under this folder. @default ~/.rocketmq_offsets */
  offsetStoreDir?: string;
  /** @default false */
  unitMode?: boolean;
  /**
   * false: a CLUSTERING, concurrent consumer asks the broker for its queues (QUERY_ASSIGNMENT,
   * docs/consumers.md §1.12), consuming POP-mode queues by POP and PULL-mode ones by pull, as the
   * group's mode (Admin.setMessageRequestMode) says. Orderly and BROADCASTING consumers always
   * rebalance themselves (Java `RebalancePushImpl#clientRebalance`). The broker knows only the
   * strategies AVG and AVG_BY_CIRCLE.
   * @default true
   */
  clientRebalance?: boolean;
  /** POP mode: how long a popped message stays invisible to the group (ms, 5000–300000). @default 60000 */
  popInvisibleTime?: number;
  /** POP mode: messages asked for per POP (1–32). @default 32 */
  popBatchNums?: number;
  /** POP mode: popped messages not yet acked per queue before POPs pause. @default 96 */
  popThresholdForQueue?: number;
}

export interface ResolvedPushConsumerOptions extends ResolvedClientOptions, TraceOptions {
  consumerGroup: string;
  messageModel: MessageModelName;
  consumeFromWhere: ConsumeFromWhereName;
  consumeTimestamp: string;
  allocateStrategy: AllocateStrategyName | AllocateStrategy;
  /** The strategy function, resolved (and its settings checked) at construction. */
  allocate: AllocateStrategy;
  consumeOrderly: boolean;
  consumeThreadMin: number;
  consumeThreadMax: number;
  consumeConcurrentlyMaxSpan: number;
  pullThresholdForQueue: number;
  pullThresholdSizeForQueue: number;
  pullThresholdForTopic: number;
  pullThresholdSizeForTopic: number;
  pullInterval: number;
  pullBatchSize: number;
  consumeMessageBatchMaxSize: number;
  postSubscriptionWhenPull: boolean;
  maxReconsumeTimes: number;
  suspendCurrentQueueTimeMillis: number;
  consumeTimeout: number;
  awaitTerminationMillisWhenShutdown: number;
  persistConsumerOffsetInterval: number;
  rebalanceInterval: number;
  pullTimeDelayMillsWhenException: number;
  brokerSuspendMaxTimeMillis: number;
  consumerTimeoutMillisWhenSuspend: number;
  pullMaxIdleTime: number;
  lockInterval: number;
  lockMaxLiveTime: number;
  offsetStoreDir: string | undefined;
  unitMode: boolean;
  clientRebalance: boolean;
  popInvisibleTime: number;
  popBatchNums: number;
  popThresholdForQueue: number;
}

export const PUSH_CONSUMER_DEFAULTS = Object.freeze({
  ...CLIENT_DEFAULTS,
  messageModel: 'CLUSTERING' as MessageModelName,
  consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' as ConsumeFromWhereName,
  allocateStrategy: 'AVG' as AllocateStrategyName,
  consumeOrderly: false,
  consumeThreadMin: 20,
  consumeThreadMax: 20,
  consumeConcurrentlyMaxSpan: 2000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  pullThresholdForTopic: -1,
  pullThresholdSizeForTopic: -1,
  pullInterval: 0,
  pullBatchSize: 32,
  consumeMessageBatchMaxSize: 1,
  postSubscriptionWhenPull: false,
  maxReconsumeTimes: -1,
  suspendCurrentQueueTimeMillis: 1000,
  consumeTimeout: 15,
  awaitTerminationMillisWhenShutdown: 30_000,
  persistConsumerOffsetInterval: 5000,
  rebalanceInterval: 20_000,
  pullTimeDelayMillsWhenException: 3000,
  brokerSuspendMaxTimeMillis: 15_000,
  consumerTimeoutMillisWhenSuspend: 30_000,
  pullMaxIdleTime: 120_000,
  lockInterval: 20_000,
  lockMaxLiveTime: 30_000,
  unitMode: false,
  clientRebalance: true,
  popInvisibleTime: 60_000,
  popBatchNums: 32,
  popThresholdForQueue: 96,
});

/** The push consumer's own option names (the shared ones are client-options.ts's). */
export const PUSH_CONSUMER_OPTION_NAMES = keyList<
  Omit<PushConsumerOptions, keyof ClientOptions | keyof ClientTraceOptions>
>({
  consumerGroup: true,
  messageModel: true,
  consumeFromWhere: true,
  consumeTimestamp: true,
  allocateStrategy: true,
  allocateStrategyOptions: true,
  consumeOrderly: true,
  consumeThreadMin: true,
  consumeThreadMax: true,
  consumeConcurrentlyMaxSpan: true,
  pullThresholdForQueue: true,
  pullThresholdSizeForQueue: true,
  pullThresholdForTopic: true,
  pullThresholdSizeForTopic: true,
  pullInterval: true,
  pullBatchSize: true,
  consumeMessageBatchMaxSize: true,
  postSubscriptionWhenPull: true,
  maxReconsumeTimes: true,
  suspendCurrentQueueTimeMillis: true,
  consumeTimeout: true,
  awaitTerminationMillisWhenShutdown: true,
  persistConsumerOffsetInterval: true,
  rebalanceInterval: true,
  pullTimeDelayMillsWhenException: true,
  brokerSuspendMaxTimeMillis: true,
  consumerTimeoutMillisWhenSuspend: true,
  pullMaxIdleTime: true,
  lockInterval: true,
  lockMaxLiveTime: true,
  offsetStoreDir: true,
  unitMode: true,
  clientRebalance: true,
  popInvisibleTime: true,
  popBatchNums: true,
  popThresholdForQueue: true,
});

/** The strategies a broker's QUERY_ASSIGNMENT knows (Java `QueryAssignmentProcessor`). */
const BROKER_STRATEGIES: readonly string[] = ['AVG', 'AVG_BY_CIRCLE'];

/**
 * Java `RebalancePushImpl#clientRebalance`: only a CLUSTERING, concurrent consumer with
 * `clientRebalance: false` takes its queues from the broker.
 */
export function rebalancesOnBroker(o: Readonly<ResolvedPushConsumerOptions>): boolean {
  return !o.clientRebalance && !o.consumeOrderly && o.messageModel === 'CLUSTERING';
}

function optionalString(field: string, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidArgumentError(field, 'must be a string');
  return value;
}

/** Java `UtilAll.timeMillisToHumanString3`: local `yyyyMMddHHmmss`. */
export function formatConsumeTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** `yyyyMMddHHmmss` (local time) → epoch ms; InvalidArgumentError when malformed. */
export function parseConsumeTimestamp(text: string, field = 'consumeTimestamp'): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) throw new InvalidArgumentError(field, `must be yyyyMMddHHmmss, got ${text}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (date.getMonth() !== mo - 1 || date.getDate() !== d)
    throw new InvalidArgumentError(field, `not a calendar date: ${text}`);
  return date.getTime();
}

/** Applies defaults and validates; throws `InvalidArgumentError` naming the option. */
export function resolvePushConsumerOptions(options: PushConsumerOptions): ResolvedPushConsumerOptions {
  const shared = resolveClientOptions(options, {
    client: 'PushConsumer',
    own: PUSH_CONSUMER_OPTION_NAMES,
    trace: true,
  });
  const o = { ...PUSH_CONSUMER_DEFAULTS, ...stripUndefined(options) } as PushConsumerOptions &
    typeof PUSH_CONSUMER_DEFAULTS;
  const groupProblem = checkGroup(o.consumerGroup, 'consumerGroup');
  if (groupProblem !== undefined) throw new InvalidArgumentError('consumerGroup', groupProblem);
  if (o.consumerGroup === 'DEFAULT_CONSUMER')
    throw new InvalidArgumentError('consumerGroup', 'DEFAULT_CONSUMER is reserved; choose a group name');
  const consumeTimestamp =
    optionalString('consumeTimestamp', o.consumeTimestamp) ??
    formatConsumeTimestamp(Date.now() - 30 * 60_000);
  parseConsumeTimestamp(consumeTimestamp);
  const strategy = o.allocateStrategy;
  const allocate = resolveAllocateStrategy(strategy, o.allocateStrategyOptions ?? {});
  const consumeTimeout = o.consumeTimeout;
  if (typeof consumeTimeout !== 'number' || !(consumeTimeout > 0) || !Number.isFinite(consumeTimeout))
    throw new InvalidArgumentError(
      'consumeTimeout',
      `must be a positive number of minutes, got ${String(consumeTimeout)}`,
    );
  const threadMax = checkInt('consumeThreadMax', o.consumeThreadMax, 1, 1000);
  // Java rejects min > max; an unset min follows a smaller max instead.
  const threadMin = checkInt(
    'consumeThreadMin',
    options.consumeThreadMin ?? Math.min(threadMax, o.consumeThreadMin),
    1,
    1000,
  );
  if (threadMin > threadMax)
    throw new InvalidArgumentError('consumeThreadMin', 'must not exceed consumeThreadMax');
  const clientRebalance = checkBoolean('clientRebalance', o.clientRebalance);
  if (
    !clientRebalance &&
    !checkBoolean('consumeOrderly', o.consumeOrderly) &&
    (o.messageModel as string) !== 'BROADCASTING' &&
    !(typeof strategy === 'string' && BROKER_STRATEGIES.includes(strategy))
  )
    throw new InvalidArgumentError(
      'allocateStrategy',
      `with clientRebalance: false the broker allocates, and it knows only ${BROKER_STRATEGIES.join(' and ')}`,
    );
  const topicThreshold = (field: string, v: number, max: number): number =>
    v === -1 ? -1 : checkInt(field, v, 1, max);
  return {
    ...shared,
    consumerGroup: o.consumerGroup,
    messageModel: checkEnum<MessageModelName>('messageModel', o.messageModel, ['CLUSTERING', 'BROADCASTING']),
    consumeFromWhere: checkEnum<ConsumeFromWhereName>('consumeFromWhere', o.consumeFromWhere, [
      'CONSUME_FROM_LAST_OFFSET',
      'CONSUME_FROM_FIRST_OFFSET',
      'CONSUME_FROM_TIMESTAMP',
    ]),
    consumeTimestamp,
    allocateStrategy: strategy,
    allocate,
    consumeOrderly: checkBoolean('consumeOrderly', o.consumeOrderly),
    consumeThreadMin: threadMin,
    consumeThreadMax: threadMax,
    consumeConcurrentlyMaxSpan: checkInt(
      'consumeConcurrentlyMaxSpan',
      o.consumeConcurrentlyMaxSpan,
      1,
      65535,
    ),
    pullThresholdForQueue: checkInt('pullThresholdForQueue', o.pullThresholdForQueue, 1, 65535),
    pullThresholdSizeForQueue: checkInt('pullThresholdSizeForQueue', o.pullThresholdSizeForQueue, 1, 1024),
    pullThresholdForTopic: topicThreshold('pullThresholdForTopic', o.pullThresholdForTopic, 6_553_500),
    pullThresholdSizeForTopic: topicThreshold(
      'pullThresholdSizeForTopic',
      o.pullThresholdSizeForTopic,
      102_400,
    ),
    pullInterval: checkInt('pullInterval', o.pullInterval, 0, 65535),
    pullBatchSize: checkInt('pullBatchSize', o.pullBatchSize, 1, 1024),
    consumeMessageBatchMaxSize: checkInt('consumeMessageBatchMaxSize', o.consumeMessageBatchMaxSize, 1, 1024),
    postSubscriptionWhenPull: checkBoolean('postSubscriptionWhenPull', o.postSubscriptionWhenPull),
    maxReconsumeTimes: checkInt('maxReconsumeTimes', o.maxReconsumeTimes, -1, MAX_INT),
    suspendCurrentQueueTimeMillis: checkInt(
      'suspendCurrentQueueTimeMillis',
      o.suspendCurrentQueueTimeMillis,
      10,
      30_000,
    ),
    consumeTimeout,
    awaitTerminationMillisWhenShutdown: checkInt(
      'awaitTerminationMillisWhenShutdown',
      o.awaitTerminationMillisWhenShutdown,
      0,
      MAX_INT,
    ),
    persistConsumerOffsetInterval: checkInt(
      'persistConsumerOffsetInterval',
      o.persistConsumerOffsetInterval,
      10,
      MAX_INT,
    ),
    rebalanceInterval: checkInt('rebalanceInterval', o.rebalanceInterval, 10, MAX_INT),
    pullTimeDelayMillsWhenException: checkInt(
      'pullTimeDelayMillsWhenException',
      o.pullTimeDelayMillsWhenException,
      0,
      MAX_INT,
    ),
    brokerSuspendMaxTimeMillis: checkInt(
      'brokerSuspendMaxTimeMillis',
      o.brokerSuspendMaxTimeMillis,
      0,
      MAX_INT,
    ),
    consumerTimeoutMillisWhenSuspend: checkInt(
      'consumerTimeoutMillisWhenSuspend',
      o.consumerTimeoutMillisWhenSuspend,
      1,
      MAX_INT,
    ),
    pullMaxIdleTime: checkInt('pullMaxIdleTime', o.pullMaxIdleTime, 10, MAX_INT),
    lockInterval: checkInt('lockInterval', o.lockInterval, 10, MAX_INT),
    lockMaxLiveTime: checkInt('lockMaxLiveTime', o.lockMaxLiveTime, 10, MAX_INT),
    offsetStoreDir: optionalString('offsetStoreDir', o.offsetStoreDir),
    unitMode: checkBoolean('unitMode', o.unitMode),
    clientRebalance,
    popInvisibleTime: checkInt('popInvisibleTime', o.popInvisibleTime, 5000, 300_000),
    popBatchNums: checkInt('popBatchNums', o.popBatchNums, 1, 32),
    popThresholdForQueue: checkInt('popThresholdForQueue', o.popThresholdForQueue, 1, 65535),
    ...resolveTraceOptions(o.enableMsgTrace, o.customizedTraceTopic),
  };
}
