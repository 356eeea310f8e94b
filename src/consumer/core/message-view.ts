/**
 * The message a consumer hands to its listener (Java `MessageExt` / `MessageClientExt`), decoded
 * from a PULL_MESSAGE FOUND body (docs/protocol.md §10.1): stored records (protocol.md §6.2), bodies
 * inflated, [5.x] inner batches unwrapped, retry and namespace prefixes taken off the topic.
 */
import { inspect } from 'node:util';
import type { MessageQueue } from '../../client/route.js';
import { RETRY_PREFIX, withoutNamespace } from '../../client/namespace.js';
import { UnsupportedCompressionError } from '../../errors.js';
import { decodeBatch } from '../../protocol/message/batch.js';
import { decompressBody } from '../../protocol/message/compression.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { priorityOf } from '../../protocol/message/priority.js';
import {
  StoredField,
  StoredRecordLayout,
  readStoredHost,
  scanStoredRecord,
  storedInt64,
  storedRecordOffsetMsgId,
  type SocketAddress,
} from '../../protocol/message/stored-message.js';
import { CompressionType, MessageSysFlag, compressionTypeOf } from '../../protocol/message/sysflag.js';
import { isSystemPropertyName } from '../../protocol/validation.js';

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
  /** [5.x] The message group (property `__SHARDINGKEY`) a FIFO producer sent it with. */
  readonly messageGroup?: string | undefined;
  /** [5.4+] Its priority (property `_SYS_MSG_PRIORITY_`); absent when none or not a whole number ≥ 0. */
  readonly priority?: number | undefined;
}

/** The algorithms of sysFlag bits 8–10 whose inflater an application may replace. */
export type PluggableCompression = Exclude<CompressionType, 'ZLIB'>;

/** Inflaters an application may supply for LZ4 (frame format) and ZSTD bodies, replacing the built-in ones. */
export type Decompressors = Partial<Record<PluggableCompression, (body: Buffer) => Buffer>>;

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

/**
 * A pulled message: a view over its record in the pull body. What every call needs (body, queue
 * offset, reconsume count, flags) is read at once; the rest (properties, ids, topic, hosts,
 * timestamps) on first access, so a handler that reads only the body costs one object and one
 * buffer view per message instead of a dozen (the benchmark's GC share fell with it). The getters
 * live on the prototype: `{ ...message }` copies only the eager fields; `toJSON()` copies all.
 */
class PulledMessage implements ConsumerMessage {
  readonly body: Buffer;
  readonly queue: MessageQueue;
  readonly queueOffset: number;
  reconsumeTimes: number;
  readonly sysFlag: number;
  readonly flag: number;
  /** The pull body and where this record starts in it. */
  private readonly raw: Buffer;
  private readonly at: number;
  private readonly pull: DecodePullBodyOptions;
  /** Properties text of an inner-batch entry; undefined: the record's own. */
  private readonly innerProperties: string | undefined;
  private all: Record<string, string> | undefined = undefined;
  private user: Record<string, string> | undefined = undefined;
  private system: Record<string, string> | undefined = undefined;
  private cachedKeys: readonly string[] | undefined = undefined;
  private cachedTopic: string | undefined = undefined;
  /** CONSUME_START_TIME (ms), kept here as a number until the system properties are built. */
  private consumeStart = -1;
  /** [POP] POP_FIRST_POP_TIME when the record has none, kept until the system properties are built. */
  private firstPopTime = -1;
  /** [POP] POP_CK for a record without one (the receipt handle), kept until the system properties are built. */
  private popCheckpoint: string | undefined = undefined;

  constructor(
    raw: Buffer,
    l: StoredRecordLayout,
    pull: DecodePullBodyOptions,
    queue: MessageQueue,
    body: Buffer,
    queueOffset: number,
    flag: number,
    innerProperties: string | undefined,
  ) {
    this.body = body;
    this.queue = queue;
    this.queueOffset = queueOffset;
    this.reconsumeTimes = raw.readInt32BE(l.reconsumeTimesAt);
    this.sysFlag = l.sysFlag;
    this.flag = flag;
    this.raw = raw;
    this.at = l.at;
    this.pull = pull;
    this.innerProperties = innerProperties;
  }

  /** The record's layout, found again (the record was checked when the pull was decoded). */
  private layout(): StoredRecordLayout {
    scanStoredRecord(this.raw, this.at, lazyLayout);
    return lazyLayout;
  }

  private allProperties(): Record<string, string> {
    if (this.all !== undefined) return this.all;
    let text = this.innerProperties;
    if (text === undefined) {
      const l = this.layout();
      text = this.raw.toString('utf8', l.propertiesAt, l.propertiesAt + l.propertiesLen);
    }
    this.all = decodeProperties(text);
    return this.all;
  }

  /** User and system maps are built apart: a handler reading `properties` needs only the first. */
  get properties(): Readonly<Record<string, string>> {
    if (this.user !== undefined) return this.user;
    const user: Record<string, string> = {};
    const all = this.allProperties();
    for (const k in all) if (!isSystemPropertyName(k)) user[k] = all[k]!;
    this.user = user;
    return user;
  }

  get systemProperties(): Record<string, string> {
    if (this.system !== undefined) return this.system;
    const system: Record<string, string> = {};
    const all = this.allProperties();
    for (const k in all) if (isSystemPropertyName(k)) system[k] = all[k]!;
    const o = this.pull;
    if (o.minOffset !== undefined) system[PropertyKey.MIN_OFFSET] = String(o.minOffset);
    if (o.maxOffset !== undefined) system[PropertyKey.MAX_OFFSET] = String(o.maxOffset);
    if (this.consumeStart >= 0) system[PropertyKey.CONSUME_START_TIME] = String(this.consumeStart);
    if (this.firstPopTime >= 0) system[PropertyKey.FIRST_POP_TIME] ??= String(this.firstPopTime);
    if (this.popCheckpoint !== undefined) system[PropertyKey.POP_CK] ??= this.popCheckpoint;
    this.system = system;
    return system;
  }

  /** @internal The consume service stamps every call (Java CONSUME_START_TIME, ms). */
  markConsumeStart(now: number): void {
    if (this.system !== undefined) this.system[PropertyKey.CONSUME_START_TIME] = String(now);
    else this.consumeStart = now;
  }

  /** @internal [POP] POP_FIRST_POP_TIME for a record without one, without decoding the properties. */
  markPopped(popTime: number): void {
    if (this.system !== undefined) this.system[PropertyKey.FIRST_POP_TIME] ??= String(popTime);
    else this.firstPopTime = popTime;
  }

  /** @internal [POP] POP_CK for a record without one, without decoding the properties. */
  markPopCheckpoint(handle: string): void {
    if (this.system !== undefined) this.system[PropertyKey.POP_CK] ??= handle;
    else this.popCheckpoint = handle;
  }

  /**
   * @internal One property of the record: a name absent from its properties text is answered
   * without decoding them (a POP reads POP_CK of every message; only retry-topic records have one).
   */
  property(name: string): string | undefined {
    if (this.all === undefined) {
      let text = this.innerProperties;
      if (text === undefined) {
        const l = this.layout();
        text = this.raw.toString('utf8', l.propertiesAt, l.propertiesAt + l.propertiesLen);
      }
      if (!text.includes(name)) return undefined;
    }
    return this.allProperties()[name];
  }

  /**
   * @internal [POP] What a POP response needs of the record, from one scan and no string decoded
   * in the common case: whether its topic is a retry topic (then the topic itself) and its POP_CK.
   */
  popFacts(out: PopRecordFacts): void {
    const l = this.layout();
    const retry =
      l.topicLen >= RETRY_PREFIX_BYTES.length &&
      this.raw.compare(
        RETRY_PREFIX_BYTES,
        0,
        RETRY_PREFIX_BYTES.length,
        l.topicAt,
        l.topicAt + RETRY_PREFIX_BYTES.length,
      ) === 0;
    out.retryTopic = retry ? this.raw.toString('utf8', l.topicAt, l.topicAt + l.topicLen) : undefined;
    if (this.all !== undefined || this.innerProperties !== undefined) {
      out.popCheckpoint = this.property(PropertyKey.POP_CK);
      return;
    }
    // The name's bytes absent from the properties: no POP_CK, nothing decoded (only retry-topic
    // records have one). Searched within the properties only: Buffer#indexOf takes no end, and
    // would scan every later record of the response.
    const has = bytesWithin(this.raw, POP_CK_BYTES, l.propertiesAt, l.propertiesAt + l.propertiesLen);
    out.popCheckpoint = has ? this.allProperties()[PropertyKey.POP_CK] : undefined;
  }

  get topic(): string {
    if (this.cachedTopic !== undefined) return this.cachedTopic;
    const l = this.layout();
    const wire = this.raw.toString('utf8', l.topicAt, l.topicAt + l.topicLen);
    this.cachedTopic = originalTopic(wire, this.allProperties(), this.pull);
    return this.cachedTopic;
  }

  get tags(): string | undefined {
    return this.allProperties()[PropertyKey.TAGS];
  }

  get keys(): readonly string[] {
    this.cachedKeys ??= (this.allProperties()[PropertyKey.KEYS] ?? '').split(' ').filter((k) => k.length > 0);
    return this.cachedKeys;
  }

  get msgId(): string {
    return this.allProperties()[PropertyKey.UNIQ_KEY] ?? this.offsetMsgId;
  }

  get offsetMsgId(): string {
    return storedRecordOffsetMsgId(this.raw, this.layout());
  }

  get commitLogOffset(): number {
    return storedInt64(this.raw, this.at + StoredField.PHYSICALOFFSET);
  }

  get bornTimestamp(): number {
    return storedInt64(this.raw, this.at + StoredField.BORNTIMESTAMP);
  }

  get storeTimestamp(): number {
    return storedInt64(this.raw, this.layout().storeTimestampAt);
  }

  get bornHost(): SocketAddress {
    return readStoredHost(this.raw, this.at + StoredField.BORNHOST, this.layout().bornIpLen);
  }

  get storeHost(): SocketAddress {
    const l = this.layout();
    return readStoredHost(this.raw, l.storeHostAt, l.storeIpLen);
  }

  get delayTimeLevel(): number {
    const delay = Number(this.allProperties()[PropertyKey.DELAY] ?? 0);
    return Number.isInteger(delay) ? delay : 0;
  }

  get bodyCRC(): number {
    return this.raw.readInt32BE(this.at + StoredField.BODYCRC);
  }

  get preparedTransactionOffset(): number {
    return storedInt64(this.raw, this.layout().preparedAt);
  }

  get transactionId(): string | undefined {
    const all = this.allProperties();
    return all[PropertyKey.TRAN_MSG] === 'true' ? all[PropertyKey.UNIQ_KEY] : undefined;
  }

  get messageGroup(): string | undefined {
    return this.allProperties()[PropertyKey.SHARDING_KEY];
  }

  get priority(): number | undefined {
    return priorityOf(this.allProperties()[PropertyKey.PRIORITY]);
  }

  /** Every field as a plain object (JSON.stringify, logging). */
  toJSON(): ConsumerMessage {
    return {
      topic: this.topic,
      body: this.body,
      tags: this.tags,
      keys: this.keys,
      properties: this.properties,
      systemProperties: this.systemProperties,
      msgId: this.msgId,
      offsetMsgId: this.offsetMsgId,
      queue: this.queue,
      queueOffset: this.queueOffset,
      commitLogOffset: this.commitLogOffset,
      reconsumeTimes: this.reconsumeTimes,
      bornTimestamp: this.bornTimestamp,
      storeTimestamp: this.storeTimestamp,
      bornHost: this.bornHost,
      storeHost: this.storeHost,
      delayTimeLevel: this.delayTimeLevel,
      sysFlag: this.sysFlag,
      flag: this.flag,
      bodyCRC: this.bodyCRC,
      preparedTransactionOffset: this.preparedTransactionOffset,
      transactionId: this.transactionId,
      messageGroup: this.messageGroup,
      priority: this.priority,
    };
  }

  [inspect.custom](): ConsumerMessage {
    return this.toJSON();
  }
}

const RETRY_PREFIX_BYTES = Buffer.from(RETRY_PREFIX, 'latin1');
const POP_CK_BYTES = Buffer.from(PropertyKey.POP_CK, 'latin1');

/** Whether `needle` occurs in `buf` between `from` and `to`. */
function bytesWithin(buf: Buffer, needle: Buffer, from: number, to: number): boolean {
  const first = needle[0];
  const last = to - needle.length;
  outer: for (let i = from; i <= last; i++) {
    if (buf[i] !== first) continue;
    for (let k = 1; k < needle.length; k++) if (buf[i + k] !== needle[k]) continue outer;
    return true;
  }
  return false;
}

/** [POP] Of one record: its topic when that is a retry topic (`%RETRY%…`), and the POP_CK the broker gave it. */
export interface PopRecordFacts {
  retryTopic: string | undefined;
  popCheckpoint: string | undefined;
}

/** [POP] `out` filled for `m` (a pulled view without decoding its properties or topic when it can). */
export function popFactsOf(m: ConsumerMessage, out: PopRecordFacts): void {
  if (m instanceof PulledMessage) return m.popFacts(out);
  out.retryTopic = m.topic.startsWith(RETRY_PREFIX) ? m.topic : undefined;
  out.popCheckpoint = m.systemProperties[PropertyKey.POP_CK];
}

/** Scratch layouts: one for decoding a body, one for the lazy getters (never interleaved). */
const decodeLayout = new StoredRecordLayout();
const lazyLayout = new StoredRecordLayout();

/** Sets CONSUME_START_TIME on each message, without building the system properties of a view. */
export function markConsumeStart(messages: readonly ConsumerMessage[], now: number): void {
  for (const m of messages) {
    if (m instanceof PulledMessage) m.markConsumeStart(now);
    else m.systemProperties[PropertyKey.CONSUME_START_TIME] = String(now);
  }
}

/** [POP] Sets POP_FIRST_POP_TIME on a message without one, without building a view's system properties. */
export function markPopped(m: ConsumerMessage, popTime: number): void {
  if (m instanceof PulledMessage) m.markPopped(popTime);
  else m.systemProperties[PropertyKey.FIRST_POP_TIME] ??= String(popTime);
}

/** [POP] Sets POP_CK (Java `processPopResponse`) on a message without one, lazily on a pulled view. */
export function markPopCheckpoint(m: ConsumerMessage, handle: string): void {
  if (m instanceof PulledMessage) m.markPopCheckpoint(handle);
  else m.systemProperties[PropertyKey.POP_CK] ??= handle;
}

/**
 * Every message of a PULL_MESSAGE FOUND body, in queue order. A malformed record throws
 * ProtocolError (Java silently drops it and everything after it, so the pull offset would skip
 * them; the caller here can retry the pull instead). Bodies may be views into `body`.
 */
export function decodePullBody(body: Uint8Array, options: DecodePullBodyOptions): ConsumerMessage[] {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const out: ConsumerMessage[] = [];
  const o = options;
  // One queue object per pull, shared by its messages (it is readonly).
  const queue: MessageQueue = {
    topic: o.queue.topic,
    brokerName: o.queue.brokerName,
    queueId: o.queue.queueId,
  };
  const delta = o.offsetDelta ?? 0;
  // queueId −1 (a POP of every queue of a broker): one queue object per queue id, shared too.
  const byId: MessageQueue[] = [];
  const l = decodeLayout;
  let at = 0;
  while (at < buf.length) {
    const size = scanStoredRecord(buf, at, l);
    const queueOffset = storedInt64(buf, at + StoredField.QUEUEOFFSET) + delta;
    const flag = buf.readInt32BE(at + StoredField.FLAG);
    const inflated = inflate(buf.subarray(l.bodyAt, l.bodyAt + l.bodyLen), l.sysFlag, o.decompressors);
    // queueId −1 (a POP of every queue of a broker): each record names its own queue.
    let q = queue;
    if (o.queue.queueId < 0) {
      const queueId = buf.readInt32BE(at + StoredField.QUEUEID);
      q = byId[queueId] ??= { ...queue, queueId };
    }
    if ((l.sysFlag & BATCH_FLAGS) !== BATCH_FLAGS) {
      out.push(new PulledMessage(buf, l, o, q, inflated, queueOffset, flag, undefined));
    } else {
      // [5.x] INNER_BATCH_FLAG + NEED_UNWRAP_FLAG: a batch body (protocol.md §6.1), one message
      // per entry at queueOffset + i, the rest from the outer record (Java
      // `MessageDecoder#decodeMessage(MessageExt, List)`).
      const entries = decodeBatch(inflated);
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        const entryBody = Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength);
        out.push(new PulledMessage(buf, l, o, q, entryBody, queueOffset + i, e.flag, e.properties));
      }
    }
    at += size;
  }
  return out;
}

/**
 * Java `PullAPIWrapper#processPullResult` tag re-filter: the broker matched only tag hash codes
 * (docs/consumers.md §1.9), so with a tag subscription keep the messages whose TAGS string is in
 * `tagsSet`; a message without TAGS is dropped. An empty set (subscription `*`) keeps all and
 * returns `messages` itself.
 */
export function filterByTags(messages: ConsumerMessage[], tagsSet: ReadonlySet<string>): ConsumerMessage[] {
  // `*`: the pulled array itself (no copy per pull).
  if (tagsSet.size === 0) return messages;
  return messages.filter((m) => m.tags !== undefined && tagsSet.has(m.tags));
}
