/**
 * A SEND_BATCH_MESSAGE body (docs/protocol.md §6.1) turned into stored records (§6.2) in one
 * pass and one buffer, before the batch joins the write queue, as Java's
 * `MessageExtEncoder.encode(MessageExtBatch)` does: inner bodies and properties are copied as
 * bytes (never decoded and re-encoded), the fields every record shares are written from one
 * template, and the queue offset, physical offset and store time are patched in when the append
 * places the batch (`patchBatchRecords`). What the key index and the consume queue need (key
 * hashes, tags codes, record sizes) is read from the property bytes on the way (property-scan.ts).
 */
import { BatchRecordLayout, scanBatchRecord } from '../../protocol/message/batch.js';
import { bodyCrcOfView } from '../../protocol/message/crc32.js';
import { setInt64, writeInt64 } from '../../protocol/message/int64.js';
import { encodeProperties, PROPERTY_SEPARATOR, PropertyKey } from '../../protocol/message/properties.js';
import {
  hostIpBytes,
  MAX_PROPERTIES_BYTES,
  MESSAGE_MAGIC_CODE,
  MESSAGE_MAGIC_CODE_V2,
  StoredField,
  V1_MAX_TOPIC_BYTES,
  type SocketAddress,
} from '../../protocol/message/stored-message.js';
import { MessageSysFlag } from '../../protocol/message/sysflag.js';
import { javaStringHashCode } from '../../protocol/java-string-hash.js';
import type { PutResult } from './types.js';
import { failed } from './prepare.js';
import { keyHashAfterBytes, topicKeyPrefix } from './key-index.js';
import { continueAsciiHash, PropertyScanner, utf8Text, viewOf } from './property-scan.js';
import { acquireRecordsBuffer } from './records-pool.js';

/** What the broker stores a batch as: the fields shared by every record, and the raw body. */
export interface BatchToStore {
  topic: string;
  queueId: number;
  sysFlag: number;
  bornTimestamp: number;
  bornHost: SocketAddress;
  storeHost: SocketAddress;
  reconsumeTimes: number;
  /** SEND_BATCH_MESSAGE body: the inner records. */
  body: Uint8Array;
  /**
   * Appended to every record's properties, except keys the record has itself (a 5.5 client puts
   * a batch UNIQ_KEY on the batch, which must not replace each message's own).
   */
  batchProperties: Readonly<Record<string, string>>;
}

/** Stored records of one batch, back to back, waiting for their offsets. */
export interface EncodedBatch {
  readonly topic: string;
  readonly queueId: number;
  /**
   * A view of a records-pool buffer (records-pool.ts). Once the batch is given to
   * `MessageStore.putEncodedBatch` the store owns it and recycles it after the write: read it
   * before, never after.
   */
  readonly records: Buffer;
  readonly count: number;
  /** Start of record i in `records`; entry `count` is `records.length`. */
  readonly starts: Int32Array;
  /** Consume-queue tags code of record i (Java hashCode of TAGS, 0 without). */
  readonly tagsCodes: Int32Array;
  /**
   * Key-index hashes (`keyHash(topic, key)`) of the keys (KEYS split by space, then UNIQ_KEY
   * unless KEYS has it) and the record each belongs to.
   */
  readonly keyHashes: Int32Array;
  readonly keyRecords: Int32Array;
  /** Where STORETIMESTAMP sits in each record (it follows the born host, 4 or 16 bytes). */
  readonly storeTimestampAt: number;
  /** Some record has a DELAY level above 0 (the broker refuses such a batch). */
  readonly delayed: boolean;
  /** Largest inner body (the store's maxMessageSize applies to each). */
  readonly maxBodyLength: number;
}

const SEPARATOR_BYTE = PROPERTY_SEPARATOR.charCodeAt(0);
const KEY_SEPARATOR_BYTE = 0x20;
/** Indexes into the property names looked up in every record. */
const DELAY = 0;
const TAGS = 1;
const KEYS = 2;
const UNIQ = 3;
const LOOKED_UP = [PropertyKey.DELAY, PropertyKey.TAGS, PropertyKey.KEYS, PropertyKey.UNIQ_KEY];
/** Batch-level keys beyond this many are checked per record the slow way (never in practice). */
const MASK_BITS = 30;
/** Per record in `scratch`: flag, body start, body length, properties start, properties length, tail. */
const SLOTS = 6;

/** Int32 elements V8 keeps inside the heap (`typed_array_max_size_in_heap`, 64 bytes). */
const ON_HEAP_INTS = 16;
/** Per-record scan results, reused by every call (the broker encodes one batch at a time). */
let scratch = new Int32Array(SLOTS * 256);
let tagsScratch = new Int32Array(256);
/** Key hashes (never negative: `indexHash`) and the record each belongs to. */
let keyHashScratch = new Int32Array(256);
let keyRecordScratch = new Int32Array(256);
/** Byte ranges of the current record's KEYS words (UNIQ_KEY is compared with them). */
let wordRanges = new Int32Array(32);
/** Scanners by their batch-level names (the CLUSTER name, a 5.x client's UNIQ_KEY...). */
const scanners = new Map<string, PropertyScanner>();

function scannerFor(batchKeys: readonly string[]): PropertyScanner {
  // U+0000 cannot be part of a property name, so the joined names identify the list.
  const id = batchKeys.join('\u0000');
  let scanner = scanners.get(id);
  if (scanner === undefined) {
    // A broker sees a handful of lists; a stream of odd ones must not grow the map without end.
    if (scanners.size >= 64) scanners.clear();
    scanner = new PropertyScanner([...LOOKED_UP, ...batchKeys]);
    scanners.set(id, scanner);
  }
  return scanner;
}

function grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const next = new Int32Array(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

/** What every batch of a topic shares: its UTF-8 bytes and `topicKeyPrefix`. */
interface TopicInfo {
  readonly bytes: Buffer;
  readonly keyPrefix: number;
}
const topics = new Map<string, TopicInfo>();

function topicOf(topic: string): TopicInfo {
  let info = topics.get(topic);
  if (info === undefined) {
    // Bounded like the scanners; a buffer of its own, as a pooled one would keep its pool alive.
    if (topics.size >= 1024) topics.clear();
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(topic, 'utf8'));
    bytes.write(topic, 0, 'utf8');
    info = { bytes, keyPrefix: topicKeyPrefix(topic) };
    topics.set(topic, info);
  }
  return info;
}

/** The texts of `b[a0, a1)` and `b[c0, c1)` are equal (equal bytes are; else decoded, as broken sequences may still decode alike). */
function sameText(b: Buffer, v: DataView, a0: number, a1: number, c0: number, c1: number): boolean {
  if (a1 - a0 === c1 - c0 && b.compare(b, a0, a1, c0, c1) === 0) return true;
  if (continueAsciiHash(0, v, a0, a1) !== undefined && continueAsciiHash(0, v, c0, c1) !== undefined)
    return false;
  return b.toString('utf8', a0, a1) === b.toString('utf8', c0, c1);
}

/**
 * Encodes `b` as stored records. Throws ProtocolError for a malformed body; answers a failed
 * PutResult (PROPERTIES_SIZE_EXCEEDED, MESSAGE_ILLEGAL) for what the store refuses.
 */
export function encodeBatchRecords(b: BatchToStore): EncodedBatch | PutResult {
  const body = Buffer.isBuffer(b.body)
    ? b.body
    : Buffer.from(b.body.buffer, b.body.byteOffset, b.body.byteLength);
  const bodyView = viewOf(body);
  const { bytes: topic, keyPrefix } = topicOf(b.topic);
  const v2 = topic.length > V1_MAX_TOPIC_BYTES;
  if (topic.length > 32767)
    return failed('MESSAGE_ILLEGAL', new RangeError(`topic of ${topic.length} bytes too long`));
  const born = hostIpBytes(b.bornHost);
  const store = hostIpBytes(b.storeHost);
  const batchKeys = Object.keys(b.batchProperties).filter((k) => {
    const v = b.batchProperties[k];
    return v !== undefined && v !== null && k.length > 0 && v.length > 0;
  });
  const scanner = scannerFor(batchKeys);
  const valueStart = scanner.valueStart;
  const valueEnd = scanner.valueEnd;
  /** Properties appended to a record, by which batch keys it has itself (bit i = batchKeys[i]). */
  const tailIndex = new Map<number, number>();
  const tails: Buffer[] = [];
  // The records of a batch nearly always share one tail: the last answer is checked first.
  let lastMask = -1;
  let lastIndex = 0;
  const tailOf = (): number => {
    let mask = 0;
    for (let i = 0; i < batchKeys.length; i++) if (valueStart[LOOKED_UP.length + i]! >= 0) mask |= 1 << i;
    // A mask cannot tell more keys apart than it has bits: such (odd) batches are not cached.
    const cacheable = batchKeys.length <= MASK_BITS;
    if (cacheable && mask === lastMask) return lastIndex;
    let index = cacheable ? tailIndex.get(mask) : undefined;
    if (index === undefined) {
      const extra: Record<string, string> = {};
      for (let i = 0; i < batchKeys.length; i++) {
        const k = batchKeys[i] as string;
        if (valueStart[LOOKED_UP.length + i]! < 0) extra[k] = b.batchProperties[k] as string;
      }
      index = tails.length;
      tails.push(Buffer.from(encodeProperties(extra), 'utf8'));
      if (cacheable) tailIndex.set(mask, index);
    }
    if (cacheable) {
      lastMask = mask;
      lastIndex = index;
    }
    return index;
  };

  // Pass 1: check each inner record, scan its properties, size its stored record.
  const storedFixed =
    StoredField.BORNHOST +
    born.length +
    4 +
    8 +
    store.length +
    4 +
    4 +
    8 +
    4 +
    (v2 ? 2 : 1) +
    topic.length +
    2;
  let count = 0;
  let total = 0;
  let delayed = false;
  let maxBodyLength = 0;
  let keys = 0;
  const addKey = (hash: number, record: number): void => {
    keyHashScratch = grow(keyHashScratch, keys + 1);
    keyRecordScratch = grow(keyRecordScratch, keys + 1);
    keyHashScratch[keys] = hash;
    keyRecordScratch[keys] = record;
    keys++;
  };
  const l = new BatchRecordLayout();
  let at = 0;
  while (at < body.length) {
    const totalSize = scanBatchRecord(body, at, l);
    const bodyLen = l.bodyLen;
    if (bodyLen > maxBodyLength) maxBodyLength = bodyLen;
    const propsAt = l.propertiesAt;
    const propsLen = l.propertiesLen;
    scanner.scan(bodyView, propsAt, propsAt + propsLen);
    if (valueStart[DELAY]! >= 0) {
      const delay = utf8Text(bodyView, valueStart[DELAY]!, valueEnd[DELAY]!);
      if (Number.parseInt(delay, 10) > 0) delayed = true;
    }
    tagsScratch = grow(tagsScratch, count + 1);
    tagsScratch[count] =
      valueStart[TAGS]! < 0 ? 0 : tagsCode(body, bodyView, valueStart[TAGS]!, valueEnd[TAGS]!);
    let words = 0;
    if (valueStart[KEYS]! >= 0) {
      const end = valueEnd[KEYS]!;
      for (let w = valueStart[KEYS]!; w <= end;) {
        let e = w;
        while (e < end && body[e] !== KEY_SEPARATOR_BYTE) e++;
        if (e > w) {
          addKey(keyHashAfterBytes(keyPrefix, bodyView, w, e), count);
          wordRanges = grow(wordRanges, 2 * words + 2);
          wordRanges[2 * words] = w;
          wordRanges[2 * words + 1] = e;
          words++;
        }
        w = e + 1;
      }
    }
    const uniqAt = valueStart[UNIQ]!;
    if (uniqAt >= 0) {
      const uniqEnd = valueEnd[UNIQ]!;
      let seen = false;
      for (let k = 0; k < words && !seen; k++)
        seen = sameText(body, bodyView, wordRanges[2 * k]!, wordRanges[2 * k + 1]!, uniqAt, uniqEnd);
      if (!seen) {
        addKey(keyHashAfterBytes(keyPrefix, bodyView, uniqAt, uniqEnd), count);
      }
    }
    const tail = tailOf();
    const tailLen = tails[tail]!.length;
    // inner + U+0002 + tail, without a doubled separator (4.9.7–5.3.3 layout).
    const sep = propsLen > 0 && tailLen > 0 && body[propsAt + propsLen - 1] !== SEPARATOR_BYTE ? 1 : 0;
    const storedProps = propsLen + sep + tailLen;
    if (storedProps > MAX_PROPERTIES_BYTES) {
      return failed(
        'PROPERTIES_SIZE_EXCEEDED',
        new RangeError(`properties exceed ${MAX_PROPERTIES_BYTES} bytes`),
      );
    }
    const r = count * SLOTS;
    scratch = grow(scratch, r + SLOTS);
    scratch[r] = l.flag;
    scratch[r + 1] = l.bodyAt;
    scratch[r + 2] = bodyLen;
    scratch[r + 3] = propsAt;
    scratch[r + 4] = propsLen;
    scratch[r + 5] = tail;
    total += storedFixed + bodyLen + storedProps;
    count++;
    at += totalSize;
  }

  // Pass 2: write the records. One buffer holds the records followed by a copy of the batch
  // body and the shared pieces, so every piece is copied with `copyWithin`: no view per copy,
  // and a fraction of `set`'s cost for pieces of tens of bytes.
  let sysFlag = b.sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (born.length === 16) sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (store.length === 16) sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  const storeTimestampAt = StoredField.BORNHOST + born.length + 4;
  const templateEnd = storeTimestampAt + 8 + store.length + 4 + 4 + 8;
  // Bytes from QUEUEOFFSET to the end of PREPAREDTXOFFSET are the same in every record (the
  // offsets and STORETIMESTAMP stay zero until patched).
  const templateLength = templateEnd - StoredField.QUEUEOFFSET;
  const topicFieldLength = (v2 ? 2 : 1) + topic.length;
  let tailsLength = 0;
  for (const t of tails) tailsLength += t.length;
  // From the records pool (records-pool.ts): the store hands it back once the records are written.
  const work = acquireRecordsBuffer(total + body.length + templateLength + topicFieldLength + tailsLength);
  const bodyCopy = total;
  body.copy(work, bodyCopy);
  const templateAt = bodyCopy + body.length;
  work.fill(0, templateAt, templateAt + templateLength);
  let t = work.writeInt32BE(sysFlag | 0, templateAt + StoredField.SYSFLAG - StoredField.QUEUEOFFSET);
  writeInt64(work, b.bornTimestamp, t);
  t += 8;
  work.set(born, t);
  t = work.writeInt32BE(b.bornHost.port | 0, t + born.length) + 8;
  work.set(store, t);
  t = work.writeInt32BE(b.storeHost.port | 0, t + store.length);
  work.writeInt32BE(b.reconsumeTimes | 0, t);
  const topicAt = templateAt + templateLength;
  if (v2) work.writeInt16BE(topic.length, topicAt);
  else work.writeInt8(topic.length, topicAt);
  topic.copy(work, topicAt + (v2 ? 2 : 1));
  const tailAt = new Int32Array(tails.length + 1);
  tailAt[0] = topicAt + topicFieldLength;
  tails.forEach((tail, i) => {
    tail.copy(work, tailAt[i]!);
    tailAt[i + 1] = tailAt[i]! + tail.length;
  });

  const magic = v2 ? MESSAGE_MAGIC_CODE_V2 : MESSAGE_MAGIC_CODE;
  const queueId = b.queueId | 0;
  // The batch's four int arrays. A typed array over 64 bytes has its store outside the heap (a
  // malloc, and a free after the GC finds it unreachable): past that size they share one
  // allocation, viewed four times (half the cost of four at 85 records); small ones stay
  // apart, as the views would cost more than they save.
  let starts: Int32Array;
  let tagsCodes: Int32Array;
  let keyHashes: Int32Array;
  let keyRecords: Int32Array;
  if (count < ON_HEAP_INTS && keys <= ON_HEAP_INTS) {
    starts = new Int32Array(count + 1);
    tagsCodes = tagsScratch.slice(0, count);
    keyHashes = keyHashScratch.slice(0, keys);
    keyRecords = keyRecordScratch.slice(0, keys);
  } else {
    const ints = new Int32Array(2 * count + 1 + 2 * keys);
    starts = ints.subarray(0, count + 1);
    tagsCodes = ints.subarray(count + 1, 2 * count + 1);
    tagsCodes.set(tagsScratch.subarray(0, count));
    keyHashes = ints.subarray(2 * count + 1, 2 * count + 1 + keys);
    keyHashes.set(keyHashScratch.subarray(0, keys));
    keyRecords = ints.subarray(2 * count + 1 + keys);
    keyRecords.set(keyRecordScratch.subarray(0, keys));
  }
  // DataView stores compile to plain moves; Buffer's write methods check their arguments each call.
  const view = new DataView(work.buffer, work.byteOffset, total);
  let w = 0;
  for (let i = 0; i < count; i++) {
    const r = i * SLOTS;
    const bodyAt = scratch[r + 1]!;
    const bodyLen = scratch[r + 2]!;
    const propsAt = scratch[r + 3]!;
    const propsLen = scratch[r + 4]!;
    const tail = scratch[r + 5]!;
    const tailStart = tailAt[tail]!;
    const tailLen = tailAt[tail + 1]! - tailStart;
    const sep = propsLen > 0 && tailLen > 0 && body[propsAt + propsLen - 1] !== SEPARATOR_BYTE ? 1 : 0;
    const storedProps = propsLen + sep + tailLen;
    const size = storedFixed + bodyLen + storedProps;
    starts[i] = w;
    view.setInt32(w, size);
    view.setInt32(w + 4, magic);
    view.setInt32(w + StoredField.BODYCRC, bodyCrcOfView(bodyView, bodyAt, bodyAt + bodyLen));
    view.setInt32(w + StoredField.QUEUEID, queueId);
    view.setInt32(w + StoredField.FLAG, scratch[r]!);
    work.copyWithin(w + StoredField.QUEUEOFFSET, templateAt, templateAt + templateLength);
    let p = w + templateEnd;
    // BODYLEN and the body lie together in the inner record too.
    work.copyWithin(p, bodyCopy + bodyAt - 4, bodyCopy + bodyAt + bodyLen);
    p += 4 + bodyLen;
    work.copyWithin(p, topicAt, topicAt + topicFieldLength);
    p += topicFieldLength;
    view.setInt16(p, storedProps);
    p += 2;
    work.copyWithin(p, bodyCopy + propsAt, bodyCopy + propsAt + propsLen);
    p += propsLen;
    if (sep === 1) work[p++] = SEPARATOR_BYTE;
    if (tailLen > 0) work.copyWithin(p, tailStart, tailStart + tailLen);
    w += size;
  }
  starts[count] = w;
  return {
    topic: b.topic,
    queueId: b.queueId,
    records: work.subarray(0, total),
    count,
    starts,
    tagsCodes,
    keyHashes,
    keyRecords,
    storeTimestampAt,
    delayed,
    maxBodyLength,
  };
}

/** Java `String.hashCode` of the TAGS value at `body[from, to)`, decoded only when not ASCII. */
function tagsCode(body: Buffer, view: DataView, from: number, to: number): number {
  return continueAsciiHash(0, view, from, to) ?? javaStringHashCode(body.toString('utf8', from, to));
}

/** Gives the records of `e`, placed at `physicalOffset` with queue offsets from `queueOffset`, their offsets and store time. */
export function patchBatchRecords(
  e: EncodedBatch,
  physicalOffset: number,
  queueOffset: number,
  storeTimestamp: number,
): void {
  const view = new DataView(e.records.buffer, e.records.byteOffset, e.records.length);
  // Every record gets the same store time: its two words are split once.
  const timeHi = Math.floor(storeTimestamp / 0x1_0000_0000);
  const timeLo = storeTimestamp - timeHi * 0x1_0000_0000;
  const timeAt = e.storeTimestampAt;
  for (let i = 0; i < e.count; i++) {
    const s = e.starts[i] as number;
    setInt64(view, s + StoredField.QUEUEOFFSET, queueOffset + i);
    setInt64(view, s + StoredField.PHYSICALOFFSET, physicalOffset + s);
    view.setInt32(s + timeAt, timeHi);
    view.setUint32(s + timeAt + 4, timeLo);
  }
}
