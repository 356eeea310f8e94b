/**
 * ProducerOptions: Java `DefaultMQProducer` / `ClientConfig` names and defaults, one frozen
 * defaults object and one validator. Deviations from Java are marked "Deviation" in the TSDoc
 * and listed in docs/producer.md §2.
 */
import {
  AUTO_CREATE_DEFAULTS,
  CLIENT_DEFAULTS,
  resolveClientOptions,
  resolveTraceOptions,
  type ClientOptions,
  type ClientTraceOptions,
  type ResolvedClientOptions,
  type TraceOptions,
} from '../client/client-options.js';
import { InvalidArgumentError } from '../errors.js';
import { ResponseCode } from '../protocol/codes.js';
import { DEFAULT_MIN_SHARE } from './fault/capacity-share.js';
import type { CompressionType } from '../protocol/message/sysflag.js';
import {
  checkBoolean,
  checkEnum,
  checkFraction,
  checkInt,
  checkString,
  keyList,
  MAX_INT,
} from '../options.js';

export type LatencyFaultStrategyName = 'adaptive' | 'java-4.9' | 'java-5';

/** Java `DefaultMQProducer.retryResponseCodes` (5.x list; 4.9 lacks SYSTEM_BUSY and GO_AWAY). */
export const DEFAULT_RETRY_RESPONSE_CODES: readonly number[] = Object.freeze([
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.SYSTEM_BUSY,
  ResponseCode.SERVICE_NOT_AVAILABLE,
  ResponseCode.NO_PERMISSION,
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.NO_BUYER_ID,
  ResponseCode.NOT_IN_CURRENT_UNIT,
  ResponseCode.GO_AWAY,
]);

/**
 * The producer's own options; the ones every client shares (namesrvAddr, namespace,
 * instanceName, clientIP, unitName, language, mqClientApiTimeout, the two intervals,
 * credentials, tls, logger, and the trace pair) are in `ClientOptions` (client/client-options.ts).
 */
export interface ProducerOptions extends ClientOptions, ClientTraceOptions {
  /** Producer group (the broker uses it for transaction checks). @default 'DEFAULT_PRODUCER' */
  producerGroup?: string;
  /** Budget for one whole send call, retries and route lookup included (ms). @default 3000 */
  sendMsgTimeout?: number;
  /** Extra attempts after a failed send (`send`, `sendBatch`). @default 2 */
  retryTimesWhenSendFailed?: number;
  /**
   * Java's retry count for callback sends. Every send here is promise based and uses
   * `retryTimesWhenSendFailed`; kept (and validated) so Java configurations carry over. @default 2
   */
  retryTimesWhenSendAsyncFailed?: number;
  /** A non-SEND_OK status (e.g. FLUSH_DISK_TIMEOUT) retries on another broker. @default false */
  retryAnotherBrokerWhenNotStoreOK?: boolean;
  /**
   * Broker response codes that retry on another broker; every other code rejects at once.
   * Replaces the default set (spread `DEFAULT_RETRY_RESPONSE_CODES` to extend it).
   * @default [1, 2, 14, 16, 17, 204, 205, 1500]
   */
  retryResponseCodes?: Iterable<number>;
  /** Bodies of at least this many bytes are zlib-compressed (not batches). @default 4096 */
  compressMsgBodyOverHowmuch?: number;
  /** Compression level: zlib 0..9, ZSTD 1..22 (LZ4 ignores it, as lz4-java does). @default 5 */
  compressLevel?: number;
  /**
   * Algorithm for bodies of at least `compressMsgBodyOverHowmuch` bytes (Java
   * `rocketmq.message.compressType`; LZ4 and ZSTD are read by Java clients from 4.9.4 on).
   * @default 'ZLIB'
   */
  compressType?: CompressionType;
  /**
   * Header encoding of every request this producer sends: 'JSON' (Java's default) or the
   * cheaper 'ROCKETMQ' binary form (docs/protocol.md §1.4). A 4.9 broker answers in kind, a 5.x
   * broker answers JSON; both are read. @default 'JSON'
   */
  serializeType?: 'JSON' | 'ROCKETMQ';
  /**
   * [5.x] Coalesce concurrent `send()`s to one topic into SEND_BATCH_MESSAGE
   * (src/producer/auto-batch.ts). @default false
   */
  autoBatch?: boolean;
  /** Longest a message is held for a batch, ms (Java `batchMaxDelayMs`; -1 there = 10). @default 10 */
  batchMaxDelayMs?: number;
  /** A batch is sent once it holds more than this, bytes (Java `batchMaxBytes`; 1 B..2 MiB). @default 32768 */
  batchMaxBytes?: number;
  /** While batches hold this many bytes, further sends go alone (Java `totalBatchMaxBytes`). @default 33554432 */
  totalBatchMaxBytes?: number;
  /**
   * Sends in flight at most; more wait for room until their sendMsgTimeout, then reject with
   * BackpressureError. Deviation: Java applies it to async sends only, and only with
   * `enableBackpressureForAsyncMode`; every send here is asynchronous. @default 10000
   */
  backPressureForAsyncSendNum?: number;
  /** Body bytes in flight at most (same waiting rule; at least 1 MiB). @default 104857600 */
  backPressureForAsyncSendSize?: number;
  /** Largest body (before compression) or batch accepted (bytes). @default 4194304 */
  maxMessageSize?: number;
  /** Queue count of a topic auto-created through `createTopicKey`. @default 4 */
  defaultTopicQueueNums?: number;
  /** Template topic for auto-creation. @default 'TBW102' */
  createTopicKey?: string;
  /**
   * Latency fault tolerance. Deviation: Java's default is false; ours is true with the
   * `adaptive` strategy, whose isolation is short, probe-driven and never starves a broker.
   * @default true
   */
  sendLatencyFaultEnable?: boolean;
  /** Which fault strategy (see `src/producer/fault/`). @default 'adaptive' */
  latencyFaultStrategy?: LatencyFaultStrategyName;
  /**
   * Latency thresholds (ms) of the `java-4.9` and `java-5` strategies; overrides the strategy's
   * table. Rejected with `adaptive`, which has no such table. @default strategy table
   */
  latencyMax?: readonly number[];
  /**
   * Isolation (ms) per `latencyMax` entry (`java-4.9`, `java-5`); overrides the strategy's
   * table. Rejected with `adaptive`. @default strategy table
   */
  notAvailableDuration?: readonly number[];
  /**
   * Cap (ms) on every attempt but the last, so a hung broker cannot eat the whole budget and
   * leave no retry; 0 turns it off (Java 5.3.3 `sendMsgMaxTimeoutPerRequest`, off there).
   * Deviation: on by default.
   * @default ceil(sendMsgTimeout / (retryTimesWhenSendFailed + 1))
   */
  sendAttemptTimeout?: number;
  /**
   * How often isolated brokers are probed (ms) by `java-5` and `adaptive`. Rejected with
   * `java-4.9`, which never probes. @default 2000 (adaptive: 500)
   */
  detectInterval?: number;
  /** Timeout of one probe (ms) (`java-5`, `adaptive`; rejected with `java-4.9`). @default 200 */
  detectTimeout?: number;
  /**
   * The `adaptive` strategy's floor, in [0, 1]: a broker that is answering gets the next send
   * whenever its recent share of the sends of a topic falls below `minBrokerShare / n` (n: the
   * topic's brokers), however slow it is, so consumers of a slow group still see its queues fill;
   * 0 turns the floor off. `brokerHealth()` reports it as `floor`. Rejected with the java-*
   * strategies. Deviation: no Java equivalent. @default 0.2 (a fifth of an equal share)
   */
  minBrokerShare?: number;
  /**
   * Hedged sends: an attempt still unanswered after `hedgeDelayMultiplier` × its broker's recent
   * p99 (at least `hedgeDelayFloorMs`) makes the fault strategy stop choosing that broker, and
   * the same message (same msgId) is sent to another broker; the first success wins and a late
   * success of the other is counted as a duplicate (`'hedgedDuplicate'` event, `brokerHealth()`).
   * Never applied to oneway sends or sends pinned to a queue (ordering). Consumers that must not
   * see a message twice dedupe on msgId, as with any retry. Deviation: no Java equivalent.
   * @default true
   */
  hedgeSends?: boolean;
  /** Hedge delay as a multiple of the broker's recent p99 latency. @default 10 */
  hedgeDelayMultiplier?: number;
  /**
   * Lower bound of the hedge delay (ms). No send is hedged before some broker has answered 32
   * sends (a cold producer's first sends are slow for reasons no other broker fixes).
   * @default 50
   */
  hedgeDelayFloorMs?: number;
}

/** Options after defaults and validation. */
export interface ResolvedProducerOptions extends ResolvedClientOptions, TraceOptions {
  producerGroup: string;
  sendMsgTimeout: number;
  retryTimesWhenSendFailed: number;
  retryTimesWhenSendAsyncFailed: number;
  retryAnotherBrokerWhenNotStoreOK: boolean;
  retryResponseCodes: Set<number>;
  compressMsgBodyOverHowmuch: number;
  compressLevel: number;
  compressType: CompressionType;
  serializeType: 'JSON' | 'ROCKETMQ';
  autoBatch: boolean;
  batchMaxDelayMs: number;
  batchMaxBytes: number;
  totalBatchMaxBytes: number;
  backPressureForAsyncSendNum: number;
  backPressureForAsyncSendSize: number;
  maxMessageSize: number;
  defaultTopicQueueNums: number;
  createTopicKey: string;
  sendLatencyFaultEnable: boolean;
  latencyFaultStrategy: LatencyFaultStrategyName;
  latencyMax: readonly number[] | undefined;
  notAvailableDuration: readonly number[] | undefined;
  sendAttemptTimeout: number;
  detectInterval: number | undefined;
  detectTimeout: number;
  minBrokerShare: number;
  hedgeSends: boolean;
  hedgeDelayMultiplier: number;
  hedgeDelayFloorMs: number;
}

export const PRODUCER_DEFAULTS = Object.freeze({
  ...CLIENT_DEFAULTS,
  producerGroup: 'DEFAULT_PRODUCER',
  sendMsgTimeout: 3000,
  retryTimesWhenSendFailed: 2,
  retryTimesWhenSendAsyncFailed: 2,
  retryAnotherBrokerWhenNotStoreOK: false,
  retryResponseCodes: DEFAULT_RETRY_RESPONSE_CODES,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  compressType: 'ZLIB' as CompressionType,
  serializeType: 'JSON' as 'JSON' | 'ROCKETMQ',
  autoBatch: false,
  batchMaxDelayMs: 10,
  batchMaxBytes: 32 * 1024,
  totalBatchMaxBytes: 32 * 1024 * 1024,
  backPressureForAsyncSendNum: 10_000,
  backPressureForAsyncSendSize: 100 * 1024 * 1024,
  maxMessageSize: 4 * 1024 * 1024,
  ...AUTO_CREATE_DEFAULTS,
  sendLatencyFaultEnable: true,
  latencyFaultStrategy: 'adaptive' as LatencyFaultStrategyName,
  detectTimeout: 200,
  minBrokerShare: DEFAULT_MIN_SHARE,
  hedgeSends: true,
  hedgeDelayMultiplier: 10,
  hedgeDelayFloorMs: 50,
});

const GROUP_PATTERN = /^[%|a-zA-Z0-9_-]+$/;
const COMPRESSION_TYPES: readonly CompressionType[] = ['ZLIB', 'LZ4', 'ZSTD'];
const SERIALIZE_TYPES: readonly ('JSON' | 'ROCKETMQ')[] = ['JSON', 'ROCKETMQ'];
const STRATEGIES: readonly LatencyFaultStrategyName[] = ['adaptive', 'java-4.9', 'java-5'];

/** Options only some strategies read; setting one for another strategy is a mistake worth a throw. */
const STRATEGY_OPTIONS: Readonly<
  Record<
    'latencyMax' | 'notAvailableDuration' | 'detectInterval' | 'detectTimeout' | 'minBrokerShare',
    readonly LatencyFaultStrategyName[]
  >
> = Object.freeze({
  latencyMax: ['java-4.9', 'java-5'],
  notAvailableDuration: ['java-4.9', 'java-5'],
  detectInterval: ['adaptive', 'java-5'],
  detectTimeout: ['adaptive', 'java-5'],
  minBrokerShare: ['adaptive'],
});

/** The producer's own option names (the shared ones are client-options.ts's). */
export const PRODUCER_OPTION_NAMES = keyList<
  Omit<ProducerOptions, keyof ClientOptions | keyof ClientTraceOptions>
>({
  producerGroup: true,
  sendMsgTimeout: true,
  retryTimesWhenSendFailed: true,
  retryTimesWhenSendAsyncFailed: true,
  retryAnotherBrokerWhenNotStoreOK: true,
  retryResponseCodes: true,
  compressMsgBodyOverHowmuch: true,
  compressLevel: true,
  compressType: true,
  serializeType: true,
  autoBatch: true,
  batchMaxDelayMs: true,
  batchMaxBytes: true,
  totalBatchMaxBytes: true,
  backPressureForAsyncSendNum: true,
  backPressureForAsyncSendSize: true,
  maxMessageSize: true,
  defaultTopicQueueNums: true,
  createTopicKey: true,
  sendLatencyFaultEnable: true,
  latencyFaultStrategy: true,
  latencyMax: true,
  notAvailableDuration: true,
  sendAttemptTimeout: true,
  detectInterval: true,
  detectTimeout: true,
  minBrokerShare: true,
  hedgeSends: true,
  hedgeDelayMultiplier: true,
  hedgeDelayFloorMs: true,
});

function name(field: string, value: unknown, maxLength = 255): string {
  return checkString(field, value, { maxLength, pattern: GROUP_PATTERN });
}

function durations(field: string, value: unknown): readonly number[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0)
    throw new InvalidArgumentError(field, 'must be a non-empty array of ms');
  return Object.freeze(value.map((v: unknown, i) => checkInt(`${field}[${i}]`, v, 0)));
}

/** Applies defaults and validates; throws `InvalidArgumentError` naming the option. */
/** How a subclass (TransactionProducer) adds its own option names to the producer's. */
export interface ProducerOptionsClass {
  client: string;
  own: readonly string[];
}

/** Applies defaults and validates; throws `InvalidArgumentError` naming the option. */
export function resolveProducerOptions(
  options: ProducerOptions,
  subclass: ProducerOptionsClass = { client: 'Producer', own: [] },
): ResolvedProducerOptions {
  const shared = resolveClientOptions(options, {
    client: subclass.client,
    own: [...PRODUCER_OPTION_NAMES, ...subclass.own],
    trace: true,
  });
  const o = options;
  const sendMsgTimeout = checkInt('sendMsgTimeout', o.sendMsgTimeout ?? PRODUCER_DEFAULTS.sendMsgTimeout, 1);
  const retries = checkInt(
    'retryTimesWhenSendFailed',
    o.retryTimesWhenSendFailed ?? PRODUCER_DEFAULTS.retryTimesWhenSendFailed,
    0,
    100,
  );
  const strategy = checkEnum(
    'latencyFaultStrategy',
    o.latencyFaultStrategy ?? PRODUCER_DEFAULTS.latencyFaultStrategy,
    STRATEGIES,
  );
  const latencyMax = durations('latencyMax', o.latencyMax);
  const notAvailableDuration = durations('notAvailableDuration', o.notAvailableDuration);
  if (latencyMax && notAvailableDuration && latencyMax.length !== notAvailableDuration.length) {
    throw new InvalidArgumentError('notAvailableDuration', 'must have as many entries as latencyMax');
  }
  if ((latencyMax === undefined) !== (notAvailableDuration === undefined)) {
    const missing = latencyMax === undefined ? 'latencyMax' : 'notAvailableDuration';
    throw new InvalidArgumentError(missing, 'latencyMax and notAvailableDuration must be given together');
  }
  for (const [field, strategies] of Object.entries(STRATEGY_OPTIONS)) {
    if (o[field as keyof typeof STRATEGY_OPTIONS] !== undefined && !strategies.includes(strategy)) {
      throw new InvalidArgumentError(
        field,
        `does not apply to latencyFaultStrategy '${strategy}' (only to ${strategies.join(', ')})`,
      );
    }
  }
  const codes = new Set<number>();
  const rawCodes: unknown = o.retryResponseCodes ?? PRODUCER_DEFAULTS.retryResponseCodes;
  if (rawCodes === null || typeof rawCodes !== 'object' || !(Symbol.iterator in rawCodes)) {
    throw new InvalidArgumentError('retryResponseCodes', 'must be an iterable of response codes');
  }
  for (const c of rawCodes as Iterable<unknown>)
    codes.add(checkInt('retryResponseCodes', c, -100000, MAX_INT));
  const compressType = checkEnum(
    'compressType',
    o.compressType ?? PRODUCER_DEFAULTS.compressType,
    COMPRESSION_TYPES,
  );
  const attemptDefault = Math.ceil(sendMsgTimeout / (retries + 1));
  return {
    ...shared,
    producerGroup: name('producerGroup', o.producerGroup ?? PRODUCER_DEFAULTS.producerGroup),
    sendMsgTimeout,
    retryTimesWhenSendFailed: retries,
    retryTimesWhenSendAsyncFailed: checkInt(
      'retryTimesWhenSendAsyncFailed',
      o.retryTimesWhenSendAsyncFailed ?? PRODUCER_DEFAULTS.retryTimesWhenSendAsyncFailed,
      0,
      100,
    ),
    retryAnotherBrokerWhenNotStoreOK: checkBoolean(
      'retryAnotherBrokerWhenNotStoreOK',
      o.retryAnotherBrokerWhenNotStoreOK ?? PRODUCER_DEFAULTS.retryAnotherBrokerWhenNotStoreOK,
    ),
    retryResponseCodes: codes,
    compressMsgBodyOverHowmuch: checkInt(
      'compressMsgBodyOverHowmuch',
      o.compressMsgBodyOverHowmuch ?? PRODUCER_DEFAULTS.compressMsgBodyOverHowmuch,
      0,
    ),
    compressType,
    compressLevel: checkInt(
      'compressLevel',
      o.compressLevel ?? PRODUCER_DEFAULTS.compressLevel,
      compressType === 'ZSTD' ? 1 : 0,
      compressType === 'ZSTD' ? 22 : 9,
    ),
    autoBatch: checkBoolean('autoBatch', o.autoBatch ?? PRODUCER_DEFAULTS.autoBatch),
    batchMaxDelayMs: checkInt(
      'batchMaxDelayMs',
      o.batchMaxDelayMs ?? PRODUCER_DEFAULTS.batchMaxDelayMs,
      1,
      30_000,
    ),
    batchMaxBytes: checkInt(
      'batchMaxBytes',
      o.batchMaxBytes ?? PRODUCER_DEFAULTS.batchMaxBytes,
      1,
      2 * 1024 * 1024,
    ),
    totalBatchMaxBytes: checkInt(
      'totalBatchMaxBytes',
      o.totalBatchMaxBytes ?? PRODUCER_DEFAULTS.totalBatchMaxBytes,
      1,
      2 ** 53 - 1,
    ),
    backPressureForAsyncSendNum: checkInt(
      'backPressureForAsyncSendNum',
      o.backPressureForAsyncSendNum ?? PRODUCER_DEFAULTS.backPressureForAsyncSendNum,
      10,
      MAX_INT,
    ),
    backPressureForAsyncSendSize: checkInt(
      'backPressureForAsyncSendSize',
      o.backPressureForAsyncSendSize ?? PRODUCER_DEFAULTS.backPressureForAsyncSendSize,
      1024 * 1024,
      2 ** 53 - 1,
    ),
    serializeType: checkEnum(
      'serializeType',
      o.serializeType ?? PRODUCER_DEFAULTS.serializeType,
      SERIALIZE_TYPES,
    ),
    maxMessageSize: checkInt(
      'maxMessageSize',
      o.maxMessageSize ?? PRODUCER_DEFAULTS.maxMessageSize,
      1,
      MAX_INT,
    ),
    defaultTopicQueueNums: checkInt(
      'defaultTopicQueueNums',
      o.defaultTopicQueueNums ?? PRODUCER_DEFAULTS.defaultTopicQueueNums,
      1,
      1024,
    ),
    createTopicKey: name('createTopicKey', o.createTopicKey ?? PRODUCER_DEFAULTS.createTopicKey, 127),
    sendLatencyFaultEnable: checkBoolean(
      'sendLatencyFaultEnable',
      o.sendLatencyFaultEnable ?? PRODUCER_DEFAULTS.sendLatencyFaultEnable,
    ),
    latencyFaultStrategy: strategy,
    latencyMax,
    notAvailableDuration,
    sendAttemptTimeout: checkInt('sendAttemptTimeout', o.sendAttemptTimeout ?? attemptDefault, 0),
    detectInterval:
      o.detectInterval === undefined ? undefined : checkInt('detectInterval', o.detectInterval, 10),
    detectTimeout: checkInt('detectTimeout', o.detectTimeout ?? PRODUCER_DEFAULTS.detectTimeout, 1),
    minBrokerShare: checkFraction('minBrokerShare', o.minBrokerShare ?? PRODUCER_DEFAULTS.minBrokerShare),
    hedgeSends: checkBoolean('hedgeSends', o.hedgeSends ?? PRODUCER_DEFAULTS.hedgeSends),
    hedgeDelayMultiplier: checkInt(
      'hedgeDelayMultiplier',
      o.hedgeDelayMultiplier ?? PRODUCER_DEFAULTS.hedgeDelayMultiplier,
      1,
      1000,
    ),
    hedgeDelayFloorMs: checkInt(
      'hedgeDelayFloorMs',
      o.hedgeDelayFloorMs ?? PRODUCER_DEFAULTS.hedgeDelayFloorMs,
      1,
    ),
    ...resolveTraceOptions(o.enableMsgTrace, o.customizedTraceTopic),
  };
}
