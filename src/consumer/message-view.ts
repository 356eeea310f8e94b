/**
 * The message a consumer hands to its listener (Java `MessageExt` / `MessageClientExt`), decoded
 * from a PULL_MESSAGE FOUND body (consumer.md §1.3): stored records (protocol.md §6.2), bodies
 * inflated, [5.x] inner batches unwrapped, retry and namespace prefixes taken off the topic.
 */
import type { MessageQueue } from '../client/route.js';
import { RETRY_PREFIX, withoutNamespace } from '../client/namespace.js';
import { RocketMQError } from '../errors.js';
import { decodeBatch } from '../protocol/message/batch.js';
import { decompressBody } from '../protocol/message/compression.js';
import { decodeProperties, PropertyKey } from '../protocol/message/properties.js';
import {
  decodeStoredMessages,
  storedMessageOffsetMsgId,
  type DecodedStoredMessage,
  type SocketAddress,
} from '../protocol/message/stored-message.js';
import { CompressionType, MessageSysFlag, compressionTypeOf } from '../protocol/message/sysflag.js';
import { isSystemPropertyName } from '../protocol/validation.js';

export interface ConsumerMessage {
  /** The topic as the application named it: retry and namespace prefixes removed. */
  readonly topic: string;
  /** Decompressed body. */
  readonly body: Buffer;
  readonly tags: string | undefined;
  /** Property KEYS split on spaces; empty when there are none. */
  readonly keys: readonly string[];
  /** User properties only (system names, protocol.md §4.2, are in `systemProperties`). */
  readonly properties: Readonly<Record<string, string>>;
  /**
   * The system properties (UNIQ_KEY, TAGS, RETRY_TOPIC, …) plus those the client adds (MIN_OFFSET,
   * MAX_OFFSET; the consume service adds CONSUME_START_TIME). Send-back and tracing need them.
   */
  readonly systemProperties: Record<string, string>;
  /** Client id (UNIQ_KEY), else `offsetMsgId`. Stays the same when the message is retried. */
  readonly msgId: string;
  /** Broker id: store host + commit-log offset. */
  readonly offsetMsgId: string;
  /** The queue it was pulled from, with the names on the wire (namespace and retry prefix kept). */
  readonly queue: MessageQueue;
  /** Logical offset in `queue` (the broker's `offsetDelta` added when it sent one). */
  readonly queueOffset: number;
  /** Physical offset; CONSUMER_SEND_MSG_BACK names the message by it. */
  readonly commitLogOffset: number;
  /** Deliveries before this one. The consume service counts local retries here, so not readonly. */
  reconsumeTimes: number;
  readonly bornTimestamp: number;
  readonly storeTimestamp: number;
  readonly bornHost: SocketAddress;
  readonly storeHost: SocketAddress;
  /** Property DELAY, 0 when absent. */
  readonly delayTimeLevel: number;
  readonly sysFlag: number;
  /** `Message.flag`, set by the producer. */
  readonly flag: number;
  readonly bodyCRC: number;
  readonly preparedTransactionOffset: number;
  /** UNIQ_KEY of a half message (TRAN_MSG=true), as Java's `PullAPIWrapper` sets it. */
  readonly transactionId: string | undefined;
}

/** The algorithms of sysFlag bits 8–10 whose inflater an application may replace. */
export type PluggableCompression = Exclude<CompressionType, 'ZLIB'>;

/** Inflaters an application may supply for LZ4 (frame format) and ZSTD bodies, replacing the built-in ones. */
export type Decompressors = Partial<Record<PluggableCompression, (body: Buffer) => Buffer>>;

/** A body whose sysFlag names a compression type outside ZLIB / LZ4 / ZSTD. */
export class UnsupportedCompressionError extends RocketMQError {
  readonly compressionType: string;
  constructor(compressionType: string, sysFlag: number) {
    super(
      'ERR_UNSUPPORTED_COMPRESSION',
      `message body compressed with ${compressionType} (sysFlag ${sysFlag}), which no RocketMQ client knows`,
      { retriable: false },
    );
    this.compressionType = compressionType;
  }
}

export interface DecodePullBodyOptions {
  /** The queue the body was pulled from (wire names). */
  queue: MessageQueue;
  /** The group on the wire (with namespace): messages of `%RETRY%<group>` get their RETRY_TOPIC back. */
  consumerGroup?: string | undefined;
  /** The consumer's namespace, removed from topics. */
  namespace?: string | undefined;
  /** Pull response `offsetDelta` ([5.x] static topics), added to every queueOffset. */
  offsetDelta?: number | undefined;
  /** Pull response minOffset/maxOffset, put into MIN_OFFSET / MAX_OFFSET like Java. */
  minOffset?: number | undefined;
  maxOffset?: number | undefined;
  /** LZ4 / ZSTD inflaters replacing the built-in ones. */
  decompressors?: Decompressors | undefined;
}

const BATCH_FLAGS = MessageSysFlag.INNER_BATCH_FLAG | MessageSysFlag.NEED_UNWRAP_FLAG;

function inflate(body: Buffer, sysFlag: number, decompressors: Decompressors | undefined): Buffer {
  if ((sysFlag & MessageSysFlag.COMPRESSED_FLAG) === 0) return body;
  const type = compressionTypeOf(sysFlag);
  if (type === undefined) {
    const value = (sysFlag & MessageSysFlag.COMPRESSION_TYPE_COMPARATOR) >> 8;
    throw new UnsupportedCompressionError(`unknown type ${value}`, sysFlag);
  }
  // ZLIB, LZ4 and ZSTD are built in; an application may still bring its own LZ4 / ZSTD inflater.
  const override = type === CompressionType.ZLIB ? undefined : decompressors?.[type];
  return override !== undefined ? override(body) : decompressBody(body, sysFlag);
}

/**
 * [5.x] A stored message with INNER_BATCH_FLAG and NEED_UNWRAP_FLAG carries a batch body
 * (protocol.md §6.1): one message per entry at queueOffset + i, the rest copied from the outer
 * record (`MessageDecoder#decodeMessage(MessageExt, List)`).
 */
function unwrapInnerBatch(
  stored: DecodedStoredMessage,
  body: Buffer,
): { stored: DecodedStoredMessage; body: Buffer }[] {
  if ((stored.sysFlag & BATCH_FLAGS) !== BATCH_FLAGS) return [{ stored, body }];
  return decodeBatch(body).map((entry, i) => ({
    stored: {
      ...stored,
      queueOffset: stored.queueOffset + i,
      flag: entry.flag,
      properties: entry.properties,
    },
    body: Buffer.from(entry.body.buffer, entry.body.byteOffset, entry.body.byteLength),
  }));
}

function originalTopic(
  wireTopic: string,
  system: Readonly<Record<string, string>>,
  o: DecodePullBodyOptions,
): string {
  let topic = wireTopic;
  // `resetRetryAndNamespace`: only the group's own retry topic is mapped back.
  const retryTopic = system[PropertyKey.RETRY_TOPIC];
  if (retryTopic !== undefined && o.consumerGroup !== undefined && topic === RETRY_PREFIX + o.consumerGroup) {
    topic = retryTopic;
  }
  return withoutNamespace(topic, o.namespace);
}

function toConsumerMessage(
  stored: DecodedStoredMessage,
  body: Buffer,
  o: DecodePullBodyOptions,
): ConsumerMessage {
  const all = decodeProperties(stored.properties);
  const properties: Record<string, string> = {};
  const systemProperties: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) (isSystemPropertyName(k) ? systemProperties : properties)[k] = v;
  if (o.minOffset !== undefined) systemProperties[PropertyKey.MIN_OFFSET] = String(o.minOffset);
  if (o.maxOffset !== undefined) systemProperties[PropertyKey.MAX_OFFSET] = String(o.maxOffset);
  const uniqKey = all[PropertyKey.UNIQ_KEY];
  const offsetMsgId = storedMessageOffsetMsgId(stored);
  const delay = Number(all[PropertyKey.DELAY] ?? 0);
  return {
    topic: originalTopic(stored.topic, all, o),
    body,
    tags: all[PropertyKey.TAGS],
    keys: (all[PropertyKey.KEYS] ?? '').split(' ').filter((k) => k.length > 0),
    properties,
    systemProperties,
    msgId: uniqKey ?? offsetMsgId,
    offsetMsgId,
    // queueId −1 (a POP of every queue of a broker): each record names its own queue.
    queue: {
      topic: o.queue.topic,
      brokerName: o.queue.brokerName,
      queueId: o.queue.queueId < 0 ? stored.queueId : o.queue.queueId,
    },
    queueOffset: stored.queueOffset + (o.offsetDelta ?? 0),
    commitLogOffset: stored.physicalOffset,
    reconsumeTimes: stored.reconsumeTimes,
    bornTimestamp: stored.bornTimestamp,
    storeTimestamp: stored.storeTimestamp,
    bornHost: stored.bornHost,
    storeHost: stored.storeHost,
    delayTimeLevel: Number.isInteger(delay) ? delay : 0,
    sysFlag: stored.sysFlag,
    flag: stored.flag,
    bodyCRC: stored.bodyCRC,
    preparedTransactionOffset: stored.preparedTransactionOffset,
    transactionId: all[PropertyKey.TRAN_MSG] === 'true' ? uniqKey : undefined,
  };
}

/**
 * Every message of a PULL_MESSAGE FOUND body, in queue order. A malformed record throws
 * ProtocolError (Java silently drops it and everything after it, so the pull offset would skip
 * them; the caller here can retry the pull instead). Bodies may be views into `body`.
 */
export function decodePullBody(body: Uint8Array, options: DecodePullBodyOptions): ConsumerMessage[] {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const out: ConsumerMessage[] = [];
  for (const stored of decodeStoredMessages(buf)) {
    const inflated = inflate(stored.body, stored.sysFlag, options.decompressors);
    for (const m of unwrapInnerBatch(stored, inflated))
      out.push(toConsumerMessage(m.stored, m.body, options));
  }
  return out;
}

/**
 * Java `PullAPIWrapper#processPullResult` tag re-filter: the broker matched only tag hash codes
 * (consumer.md §2.9), so with a tag subscription keep the messages whose TAGS string is in
 * `tagsSet`; a message without TAGS is dropped. An empty set (subscription `*`) keeps all.
 */
export function filterByTags(
  messages: readonly ConsumerMessage[],
  tagsSet: ReadonlySet<string>,
): ConsumerMessage[] {
  if (tagsSet.size === 0) return [...messages];
  return messages.filter((m) => m.tags !== undefined && tagsSet.has(m.tags));
}
