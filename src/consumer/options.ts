/**
 * PushConsumerOptions: Java `DefaultMQPushConsumer` / `ClientConfig` names and defaults
 * (consumer.md §2.1), one frozen defaults object and one validator that rejects unknown keys.
 * Deviations from Java are marked "Deviation" in the TSDoc and listed in the README.
 */
import { InvalidArgumentError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger.js';
import { checkGroup } from '../protocol/validation.js';
import { parseNamesrvAddr } from '../producer/options.js';
import {
  resolveAllocateStrategy,
  type AllocateStrategy,
  type AllocateStrategyName,
  type AllocateStrategyOptions,
} from './allocate/index.js';

export type MessageModelName = 'CLUSTERING' | 'BROADCASTING';
export type ConsumeFromWhereName =
  'CONSUME_FROM_LAST_OFFSET' | 'CONSUME_FROM_FIRST_OFFSET' | 'CONSUME_FROM_TIMESTAMP';

export interface PushConsumerOptions {
  /** Consumer group; required, `DEFAULT_CONSUMER` is refused as in Java. */
  consumerGroup: string;
  /** NameServer addresses, `"host:port;host:port"` or an array. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[];
  /** @default 'CLUSTERING' */
  messageModel?: MessageModelName;
  /**
   * Where a group with no stored offset starts (§2.5). Deviation: with LAST_OFFSET a new group
   * really starts at the end even when the broker answers 0 for a queue still in memory.
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
  /** Kept for Java configurations; handlers in flight are bounded by consumeThreadMax. @default 20 */
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
  /** Timeout of offset, lock and membership requests (ms). @default 3000 */
  mqClientApiTimeout?: number;
  /** LanguageCode sent in each command. @default 'JAVA' */
  language?: string;
  /** @default silentLogger */
  logger?: Logger;
}

export interface ResolvedPushConsumerOptions {
  consumerGroup: string;
  namesrvAddr: readonly string[];
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
  namespace: string | undefined;
  instanceName: string;
  unitName: string | undefined;
  clientIP: string | undefined;
  pollNameServerInterval: number;
  heartbeatBrokerInterval: number;
  mqClientApiTimeout: number;
  language: string;
  logger: Logger;
}

export const PUSH_CONSUMER_DEFAULTS = Object.freeze({
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
  instanceName: 'DEFAULT',
  pollNameServerInterval: 30_000,
  heartbeatBrokerInterval: 30_000,
  mqClientApiTimeout: 3000,
  language: 'JAVA',
});

const OPTION_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(PUSH_CONSUMER_DEFAULTS),
  'consumerGroup',
  'namesrvAddr',
  'consumeTimestamp',
  'allocateStrategyOptions',
  'offsetStoreDir',
  'namespace',
  'unitName',
  'clientIP',
  'logger',
]);

/** Levenshtein distance, for "did you mean" on unknown option names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

function rejectUnknownKeys(options: object): void {
  for (const key of Object.keys(options)) {
    if (OPTION_NAMES.has(key)) continue;
    let best = '';
    let bestD = Infinity;
    for (const n of OPTION_NAMES) {
      const d = distance(key.toLowerCase(), n.toLowerCase());
      if (d < bestD) [best, bestD] = [n, d];
    }
    const hint = bestD <= Math.max(2, Math.floor(key.length / 3)) ? ` (did you mean '${best}'?)` : '';
    throw new InvalidArgumentError(key, `unknown option${hint}`);
  }
}

function int(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new InvalidArgumentError(field, `must be an integer in [${min}, ${max}], got ${String(value)}`);
  return value;
}

function bool(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidArgumentError(field, `must be a boolean, got ${typeof value}`);
  return value;
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw new InvalidArgumentError(field, `must be one of ${allowed.join(', ')}, got ${String(value)}`);
  return value as T;
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

const NAME_PATTERN = /^[%|a-zA-Z0-9_-]+$/;
const MAX_INT = 2 ** 31 - 1;

/** Applies defaults and validates; throws `InvalidArgumentError` naming the option. */
export function resolvePushConsumerOptions(options: PushConsumerOptions): ResolvedPushConsumerOptions {
  if (options === null || typeof options !== 'object')
    throw new InvalidArgumentError('options', 'must be an object');
  rejectUnknownKeys(options);
  const o = { ...PUSH_CONSUMER_DEFAULTS, ...stripUndefined(options) } as PushConsumerOptions &
    typeof PUSH_CONSUMER_DEFAULTS;
  const groupProblem = checkGroup(o.consumerGroup, 'consumerGroup');
  if (groupProblem !== undefined) throw new InvalidArgumentError('consumerGroup', groupProblem);
  if (o.consumerGroup === 'DEFAULT_CONSUMER')
    throw new InvalidArgumentError('consumerGroup', 'DEFAULT_CONSUMER is reserved; choose a group name');
  const namesrvRaw = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
  if (namesrvRaw === undefined)
    throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR)');
  const consumeTimestamp =
    optionalString('consumeTimestamp', o.consumeTimestamp) ??
    formatConsumeTimestamp(Date.now() - 30 * 60_000);
  parseConsumeTimestamp(consumeTimestamp);
  const strategy = o.allocateStrategy;
  const allocate = resolveAllocateStrategy(strategy, o.allocateStrategyOptions ?? {});
  const namespace = optionalString('namespace', o.namespace);
  if (namespace !== undefined && !NAME_PATTERN.test(namespace))
    throw new InvalidArgumentError('namespace', `must match ${NAME_PATTERN.source}`);
  const instanceName = optionalString('instanceName', o.instanceName) ?? PUSH_CONSUMER_DEFAULTS.instanceName;
  const unitName = optionalString('unitName', o.unitName);
  for (const [field, v] of [
    ['instanceName', instanceName],
    ['unitName', unitName],
  ] as const)
    if (v !== undefined && /[@\s]/.test(v))
      throw new InvalidArgumentError(field, 'must not contain "@" or spaces');
  const consumeTimeout = o.consumeTimeout;
  if (typeof consumeTimeout !== 'number' || !(consumeTimeout > 0) || !Number.isFinite(consumeTimeout))
    throw new InvalidArgumentError(
      'consumeTimeout',
      `must be a positive number of minutes, got ${String(consumeTimeout)}`,
    );
  const logger = o.logger ?? silentLogger;
  if (typeof logger !== 'object' || typeof logger.warn !== 'function')
    throw new InvalidArgumentError('logger', 'must implement Logger');
  const language = o.language;
  if (typeof language !== 'string' || !/^[A-Z_]+$/.test(language))
    throw new InvalidArgumentError('language', 'must be a LanguageCode name');
  const threadMin = int('consumeThreadMin', o.consumeThreadMin, 1, 1000);
  const threadMax = int('consumeThreadMax', o.consumeThreadMax, 1, 1000);
  if (threadMin > threadMax)
    throw new InvalidArgumentError('consumeThreadMin', 'must not exceed consumeThreadMax');
  const topicThreshold = (field: string, v: number, max: number): number =>
    v === -1 ? -1 : int(field, v, 1, max);
  return {
    consumerGroup: o.consumerGroup,
    namesrvAddr: Object.freeze(parseNamesrvAddr(namesrvRaw)),
    messageModel: oneOf('messageModel', o.messageModel, ['CLUSTERING', 'BROADCASTING']),
    consumeFromWhere: oneOf('consumeFromWhere', o.consumeFromWhere, [
      'CONSUME_FROM_LAST_OFFSET',
      'CONSUME_FROM_FIRST_OFFSET',
      'CONSUME_FROM_TIMESTAMP',
    ]),
    consumeTimestamp,
    allocateStrategy: strategy,
    allocate,
    consumeOrderly: bool('consumeOrderly', o.consumeOrderly),
    consumeThreadMin: threadMin,
    consumeThreadMax: threadMax,
    consumeConcurrentlyMaxSpan: int('consumeConcurrentlyMaxSpan', o.consumeConcurrentlyMaxSpan, 1, 65535),
    pullThresholdForQueue: int('pullThresholdForQueue', o.pullThresholdForQueue, 1, 65535),
    pullThresholdSizeForQueue: int('pullThresholdSizeForQueue', o.pullThresholdSizeForQueue, 1, 1024),
    pullThresholdForTopic: topicThreshold('pullThresholdForTopic', o.pullThresholdForTopic, 6_553_500),
    pullThresholdSizeForTopic: topicThreshold(
      'pullThresholdSizeForTopic',
      o.pullThresholdSizeForTopic,
      102_400,
    ),
    pullInterval: int('pullInterval', o.pullInterval, 0, 65535),
    pullBatchSize: int('pullBatchSize', o.pullBatchSize, 1, 1024),
    consumeMessageBatchMaxSize: int('consumeMessageBatchMaxSize', o.consumeMessageBatchMaxSize, 1, 1024),
    postSubscriptionWhenPull: bool('postSubscriptionWhenPull', o.postSubscriptionWhenPull),
    maxReconsumeTimes: int('maxReconsumeTimes', o.maxReconsumeTimes, -1, MAX_INT),
    suspendCurrentQueueTimeMillis: int(
      'suspendCurrentQueueTimeMillis',
      o.suspendCurrentQueueTimeMillis,
      10,
      30_000,
    ),
    consumeTimeout,
    awaitTerminationMillisWhenShutdown: int(
      'awaitTerminationMillisWhenShutdown',
      o.awaitTerminationMillisWhenShutdown,
      0,
      MAX_INT,
    ),
    persistConsumerOffsetInterval: int(
      'persistConsumerOffsetInterval',
      o.persistConsumerOffsetInterval,
      10,
      MAX_INT,
    ),
    rebalanceInterval: int('rebalanceInterval', o.rebalanceInterval, 10, MAX_INT),
    pullTimeDelayMillsWhenException: int(
      'pullTimeDelayMillsWhenException',
      o.pullTimeDelayMillsWhenException,
      0,
      MAX_INT,
    ),
    brokerSuspendMaxTimeMillis: int('brokerSuspendMaxTimeMillis', o.brokerSuspendMaxTimeMillis, 0, MAX_INT),
    consumerTimeoutMillisWhenSuspend: int(
      'consumerTimeoutMillisWhenSuspend',
      o.consumerTimeoutMillisWhenSuspend,
      1,
      MAX_INT,
    ),
    pullMaxIdleTime: int('pullMaxIdleTime', o.pullMaxIdleTime, 10, MAX_INT),
    lockInterval: int('lockInterval', o.lockInterval, 10, MAX_INT),
    lockMaxLiveTime: int('lockMaxLiveTime', o.lockMaxLiveTime, 10, MAX_INT),
    offsetStoreDir: optionalString('offsetStoreDir', o.offsetStoreDir),
    unitMode: bool('unitMode', o.unitMode),
    namespace,
    instanceName,
    unitName,
    clientIP: optionalString('clientIP', o.clientIP),
    pollNameServerInterval: int('pollNameServerInterval', o.pollNameServerInterval, 10, MAX_INT),
    heartbeatBrokerInterval: int('heartbeatBrokerInterval', o.heartbeatBrokerInterval, 10, MAX_INT),
    mqClientApiTimeout: int('mqClientApiTimeout', o.mqClientApiTimeout, 1, MAX_INT),
    language,
    logger,
  };
}

function stripUndefined(o: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}
