/**
 * A SEND_BATCH_MESSAGE body (docs/protocol.md §6.1) turned into stored records (§6.2) in one
 * pass and one buffer, before the batch joins the write queue, as Java's
 * `MessageExtEncoder.encode(MessageExtBatch)` does: inner bodies and properties are copied as
 * bytes (never decoded and re-encoded), the fields every record shares are written from one
 * template, and the queue offset, physical offset and store time are patched in when the append
 * places the batch (`patchBatchRecords`). What the key index and the consume queue need (keys,
 * tags codes, record sizes) is collected on the way.
 */
import { BatchRecordLayout, scanBatchRecord } from '../../protocol/message/batch.js';
import { bodyCrc } from '../../protocol/message/crc32.js';
import { writeInt64 } from '../../protocol/message/int64.js';
import { parseIp } from '../../protocol/message/inet.js';
import {
  encodeProperties,
  lookUpProperties,
  PROPERTY_SEPARATOR,
  PropertyKey,
} from '../../protocol/message/properties.js';
import {
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
  readonly records: Buffer;
  readonly count: number;
  /** Start of record i in `records`; entry `count` is `records.length`. */
  readonly starts: Int32Array;
  /** Consume-queue tags code of record i (Java hashCode of TAGS, 0 without). */
  readonly tagsCodes: Int32Array;
  /** Key-index keys (KEYS split by space, then UNIQ_KEY) and the record each belongs to. */
  readonly keys: string[];
  readonly keyRecords: number[];
  /** Where STORETIMESTAMP sits in each record (it follows the born host, 4 or 16 bytes). */
  readonly storeTimestampAt: number;
  /** Some record has a DELAY level above 0 (the broker refuses such a batch). */
  readonly delayed: boolean;
  /** Largest inner body (the store's maxMessageSize applies to each). */
  readonly maxBodyLength: number;
}

const SEPARATOR_BYTE = PROPERTY_SEPARATOR.charCodeAt(0);
const KEY_SEPARATOR = ' ';
/** Indexes into the property names looked up in every record. */
const DELAY = 0;
const TAGS = 1;
const KEYS = 2;
const UNIQ = 3;
const LOOKED_UP = [PropertyKey.DELAY, PropertyKey.TAGS, PropertyKey.KEYS, PropertyKey.UNIQ_KEY];
/** Batch-level keys beyond this many are checked per record the slow way (never in practice). */
const MASK_BITS = 30;

/** Per-record scan results, reused by every call (the broker encodes one batch at a time). */
let scratch = new Int32Array(5 * 256);
const values: (string | undefined)[] = [];

function ipBytes(h: SocketAddress): Uint8Array {
  return parseIp(h.address);
}

/**
 * Encodes `b` as stored records. Throws ProtocolError for a malformed body; answers a failed
 * PutResult (PROPERTIES_SIZE_EXCEEDED, MESSAGE_ILLEGAL) for what the store refuses.
 */
export function encodeBatchRecords(b: BatchToStore): EncodedBatch | PutResult {
  const body = Buffer.isBuffer(b.body)
    ? b.body
    : Buffer.from(b.body.buffer, b.body.byteOffset, b.body.byteLength);
  const topic = Buffer.from(b.topic, 'utf8');
  const v2 = topic.length > V1_MAX_TOPIC_BYTES;
  if (topic.length > 32767)
    return failed('MESSAGE_ILLEGAL', new RangeError(`topic of ${topic.length} bytes too long`));
  const born = ipBytes(b.bornHost);
  const store = ipBytes(b.storeHost);
  const batchKeys = Object.keys(b.batchProperties).filter((k) => {
    const v = b.batchProperties[k];
    return v !== undefined && v !== null && k.length > 0 && v.length > 0;
  });
  const names = [...LOOKED_UP, ...batchKeys];
  /** Properties appended to a record, by which batch keys it has itself (bit i = batchKeys[i]). */
  const tails = new Map<number, Buffer>();
  const tailOf = (): Buffer => {
    let mask = 0;
    for (let i = 0; i < batchKeys.length; i++) if (values[LOOKED_UP.length + i] !== undefined) mask |= 1 << i;
    // A mask cannot tell more keys apart than it has bits: such (odd) batches are not cached.
    const cacheable = batchKeys.length <= MASK_BITS;
    let tail = cacheable ? tails.get(mask) : undefined;
    if (tail === undefined) {
      const extra: Record<string, string> = {};
      for (let i = 0; i < batchKeys.length; i++) {
        const k = batchKeys[i] as string;
        if (values[LOOKED_UP.length + i] === undefined) extra[k] = b.batchProperties[k] as string;
      }
      tail = Buffer.from(encodeProperties(extra), 'utf8');
      if (cacheable) tails.set(mask, tail);
    }
    return tail;
  };
  const recordTails: Buffer[] = [];

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
  const keys: string[] = [];
  const keyRecords: number[] = [];
  const tagsList: number[] = [];
  const l = new BatchRecordLayout();
  let at = 0;
  while (at < body.length) {
    const totalSize = scanBatchRecord(body, at, l);
    const bodyLen = l.bodyLen;
    if (bodyLen > maxBodyLength) maxBodyLength = bodyLen;
    const propsAt = l.propertiesAt;
    const propsLen = l.propertiesLen;
    const props = propsLen === 0 ? '' : body.toString('utf8', propsAt, propsAt + propsLen);
    lookUpProperties(props, names, values);
    const delay = values[DELAY];
    if (delay !== undefined && Number.parseInt(delay, 10) > 0) delayed = true;
    const tags = values[TAGS];
    tagsList.push(tags === undefined ? 0 : javaStringHashCode(tags));
    const keyList = values[KEYS];
    const firstKey = keys.length;
    if (keyList !== undefined) {
      for (const k of keyList.split(KEY_SEPARATOR)) {
        if (k.length > 0) {
          keys.push(k);
          keyRecords.push(count);
        }
      }
    }
    const uniq = values[UNIQ];
    if (uniq !== undefined && !keys.includes(uniq, firstKey)) {
      keys.push(uniq);
      keyRecords.push(count);
    }
    const tail = tailOf();
    recordTails.push(tail);
    // inner + U+0002 + tail, without a doubled separator (4.9.7–5.3.3 layout).
    const sep = propsLen > 0 && tail.length > 0 && body[propsAt + propsLen - 1] !== SEPARATOR_BYTE ? 1 : 0;
    const storedProps = propsLen + sep + tail.length;
    if (storedProps > MAX_PROPERTIES_BYTES) {
      return failed(
        'PROPERTIES_SIZE_EXCEEDED',
        new RangeError(`properties exceed ${MAX_PROPERTIES_BYTES} bytes`),
      );
    }
    const r = count * 5;
    if (r + 5 > scratch.length) {
      const next = new Int32Array(scratch.length * 2);
      next.set(scratch);
      scratch = next;
    }
    scratch[r] = l.flag;
    scratch[r + 1] = l.bodyAt;
    scratch[r + 2] = bodyLen;
    scratch[r + 3] = propsAt;
    scratch[r + 4] = propsLen;
    total += storedFixed + bodyLen + storedProps;
    count++;
    at += totalSize;
  }

  // Pass 2: write the records. Bytes from SYSFLAG to the end of PREPAREDTXOFFSET are the same in
  // every record (STORETIMESTAMP is patched later), so they come from one template.
  let sysFlag = b.sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (born.length === 16) sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (store.length === 16) sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  const storeTimestampAt = StoredField.BORNHOST + born.length + 4;
  const templateEnd = storeTimestampAt + 8 + store.length + 4 + 4 + 8;
  const template = Buffer.alloc(templateEnd - StoredField.SYSFLAG);
  let t = template.writeInt32BE(sysFlag | 0, 0);
  writeInt64(template, b.bornTimestamp, t);
  t += 8;
  template.set(born, t);
  t = template.writeInt32BE(b.bornHost.port | 0, t + born.length) + 8;
  template.set(store, t);
  t = template.writeInt32BE(b.storeHost.port | 0, t + store.length);
  template.writeInt32BE(b.reconsumeTimes | 0, t);
  const topicField = Buffer.allocUnsafe((v2 ? 2 : 1) + topic.length);
  if (v2) topicField.writeInt16BE(topic.length, 0);
  else topicField.writeInt8(topic.length, 0);
  topic.copy(topicField, v2 ? 2 : 1);

  const magic = v2 ? MESSAGE_MAGIC_CODE_V2 : MESSAGE_MAGIC_CODE;
  const records = Buffer.alloc(total);
  const starts = new Int32Array(count + 1);
  // DataView stores compile to plain moves; Buffer's write methods check their arguments each call.
  const view = new DataView(records.buffer, records.byteOffset, records.length);
  let w = 0;
  for (let i = 0; i < count; i++) {
    const r = i * 5;
    const bodyAt = scratch[r + 1] as number;
    const bodyLen = scratch[r + 2] as number;
    const propsAt = scratch[r + 3] as number;
    const propsLen = scratch[r + 4] as number;
    const tail = recordTails[i] as Buffer;
    const sep = propsLen > 0 && tail.length > 0 && body[propsAt + propsLen - 1] !== SEPARATOR_BYTE ? 1 : 0;
    const storedProps = propsLen + sep + tail.length;
    const size = storedFixed + bodyLen + storedProps;
    starts[i] = w;
    view.setInt32(w, size);
    view.setInt32(w + 4, magic);
    const inner = body.subarray(bodyAt, bodyAt + bodyLen);
    view.setInt32(w + StoredField.BODYCRC, bodyCrc(inner) | 0);
    view.setInt32(w + StoredField.QUEUEID, b.queueId | 0);
    view.setInt32(w + StoredField.FLAG, scratch[r] as number);
    // QUEUEOFFSET and PHYSICALOFFSET stay zero until patched.
    records.set(template, w + StoredField.SYSFLAG);
    let p = w + templateEnd;
    view.setInt32(p, bodyLen);
    p += 4;
    records.set(inner, p);
    p += bodyLen;
    records.set(topicField, p);
    p += topicField.length;
    view.setInt16(p, storedProps);
    p += 2;
    body.copy(records, p, propsAt, propsAt + propsLen);
    p += propsLen;
    if (sep === 1) records[p++] = SEPARATOR_BYTE;
    tail.copy(records, p);
    w += size;
  }
  starts[count] = w;
  return {
    topic: b.topic,
    queueId: b.queueId,
    records,
    count,
    starts,
    tagsCodes: Int32Array.from(tagsList),
    keys,
    keyRecords,
    storeTimestampAt,
    delayed,
    maxBodyLength,
  };
}

/** Gives the records of `e`, placed at `physicalOffset` with queue offsets from `queueOffset`, their offsets and store time. */
export function patchBatchRecords(
  e: EncodedBatch,
  physicalOffset: number,
  queueOffset: number,
  storeTimestamp: number,
): void {
  const view = new DataView(e.records.buffer, e.records.byteOffset, e.records.length);
  for (let i = 0; i < e.count; i++) {
    const s = e.starts[i] as number;
    setInt64(view, s + StoredField.QUEUEOFFSET, queueOffset + i);
    setInt64(view, s + StoredField.PHYSICALOFFSET, physicalOffset + s);
    setInt64(view, s + e.storeTimestampAt, storeTimestamp);
  }
}

/** `writeInt64` on a DataView: a non-negative safe integer as big-endian int64. */
function setInt64(view: DataView, at: number, value: number): void {
  const hi = Math.floor(value / 0x1_0000_0000);
  view.setUint32(at, hi);
  view.setUint32(at + 4, value - hi * 0x1_0000_0000);
}
