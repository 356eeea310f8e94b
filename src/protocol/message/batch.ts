/**
 * SEND_BATCH_MESSAGE body (docs/protocol.md §6.1, Java `MessageDecoder.encodeMessages`), one record
 * per inner message:
 *   int32 TOTALSIZE (20 + bodyLen + propsLen), int32 MAGICCODE 0, int32 BODYCRC 0, int32 FLAG,
 *   int32 bodyLen, body, int16 propsLen, properties (UTF-8)
 */
import { ProtocolError } from '../../errors.js';
import { HEX_PAIR_CODES } from './message-id.js';

export interface BatchEntry {
  body: Uint8Array;
  flag: number;
  /** §4.1 properties string of the inner message (incl. its UNIQ_KEY). */
  properties: string;
}

/** Big-endian int32 at `at`, which the caller has made room for. */
function putInt32(buf: Buffer, value: number, at: number): void {
  buf[at] = value >>> 24;
  buf[at + 1] = (value >>> 16) & 0xff;
  buf[at + 2] = (value >>> 8) & 0xff;
  buf[at + 3] = value & 0xff;
}

/**
 * `Uint8Array.prototype.set`, called on a buffer with `.call`: V8 11 (Node 20) looks a typed
 * array's prototype methods up through an inline-cache miss on every `buf.set(...)` in optimized
 * code; a known function is called directly. Two copies per record.
 */
const copyInto: (this: Uint8Array, source: ArrayLike<number>, offset?: number) => void =
  Uint8Array.prototype.set;

/** Record bytes besides body and properties. */
export const BATCH_RECORD_FIXED = 4 + 4 + 4 + 4 + 4 + 2;
const RECORD_FIXED = BATCH_RECORD_FIXED;
export const MAX_PROPERTIES_LENGTH = 32767;

/**
 * Writers carve their first buffer from a shared slab (a batch a few dozen KiB long cost a
 * fresh allocation each), consecutively; the slab is never written again once carved, so a
 * finished batch stays valid while it is referenced, and it keeps its slab alive.
 */
const SLAB_BYTES = 1024 * 1024;
const SLAB_CARVE_MAX = SLAB_BYTES / 8;
let slab = Buffer.allocUnsafe(0);
let slabAt = 0;

/**
 * Writes records one at a time straight into one buffer (grown by doubling when a record does
 * not fit): properties are encoded in place, so no per-message buffer and no concatenation. The
 * buffer is not zero-filled (that cost more than a batch's records): every byte up to
 * `byteLength` is written. Sizes of bodies are read as `length` (a Uint8Array's byteLength): V8 11
 * (Node 20) inlines `length` in optimized code but calls a getter for `byteLength`.
 */
export class BatchWriter {
  private buf: Buffer;
  private at = 0;
  /** The properties head last written by appendParts, and where its bytes are in `buf`. */
  private head: string | undefined;
  private idHead: string | undefined;
  private headAt = 0;
  private headLen = 0;
  private headBytes: Uint8Array = new Uint8Array(0);

  /** Where `buf` ends in the slab while it is the slab's last carving (its tail can go back). */
  private slabEnd = -1;

  constructor(capacity: number) {
    const size = Math.max(256, capacity);
    if (size > SLAB_CARVE_MAX) {
      this.buf = Buffer.allocUnsafe(size);
      return;
    }
    if (slab.length - slabAt < size) {
      slab = Buffer.allocUnsafe(SLAB_BYTES);
      slabAt = 0;
    }
    this.buf = slab.subarray(slabAt, slabAt + size);
    slabAt += size;
    this.slabEnd = slabAt;
  }

  /** Bytes written so far. */
  get byteLength(): number {
    return this.at;
  }

  /** Appends one record; returns its size. ProtocolError (nothing written) when properties exceed 32767 bytes. */
  append(body: Uint8Array, flag: number, properties: string): number {
    const propsAt = this.reserve(body.length, properties.length * 3);
    const propsLen = properties.length === 0 ? 0 : this.buf.write(properties, propsAt, 'utf8');
    return this.close(body, flag, propsAt, propsLen);
  }

  /**
   * `append(body, flag, head + idHead + 4 hex digits of idCounter)` for a UNIQ_KEY made of an
   * ASCII `idHead` and a 16-bit counter: the bytes of `head + idHead` are copied from the last
   * record that had the same two strings (a producer's ids share their head for a millisecond),
   * so neither the joined string nor its encoding is made again per record.
   */
  appendParts(body: Uint8Array, flag: number, head: string, idHead: string, idCounter: number): number {
    const propsAt = this.reserve(body.length, head.length * 3 + idHead.length + 4);
    const buf = this.buf;
    let headLen = this.headLen;
    if (head === this.head && idHead === this.idHead) {
      copyInto.call(buf, this.headBytes, propsAt);
    } else {
      headLen = buf.write(head, propsAt, 'utf8');
      headLen += buf.write(idHead, propsAt + headLen, 'latin1');
      this.head = head;
      this.idHead = idHead;
      this.headAt = propsAt;
      this.headLen = headLen;
      this.headBytes = buf.subarray(propsAt, propsAt + headLen);
    }
    const high = HEX_PAIR_CODES[(idCounter >>> 8) & 0xff]!;
    const low = HEX_PAIR_CODES[idCounter & 0xff]!;
    const at = propsAt + headLen;
    buf[at] = high >>> 8;
    buf[at + 1] = high & 0xff;
    buf[at + 2] = low >>> 8;
    buf[at + 3] = low & 0xff;
    return this.close(body, flag, propsAt, headLen + 4);
  }

  /** Makes room for a record; returns where its properties go. */
  private reserve(bodyLen: number, mostPropsLen: number): number {
    const room = RECORD_FIXED + bodyLen + mostPropsLen;
    if (this.at + room > this.buf.length) this.grow(this.at + room);
    return this.at + RECORD_FIXED + bodyLen;
  }

  /** Writes the fixed fields and the body around properties written at `propsAt`. */
  private close(body: Uint8Array, flag: number, propsAt: number, propsLen: number): number {
    if (propsLen > MAX_PROPERTIES_LENGTH) {
      // The record is not counted, so the next one overwrites it (and the head it may hold).
      if (this.headAt >= this.at) this.head = undefined;
      throw new ProtocolError(`batch entry properties of ${propsLen} bytes exceed ${MAX_PROPERTIES_LENGTH}`);
    }
    const buf = this.buf;
    const start = this.at;
    const bodyLen = body.length;
    const size = RECORD_FIXED + bodyLen + propsLen;
    // Byte stores: Buffer#writeInt32BE's checks cost more than the record's other writes together.
    putInt32(buf, size, start);
    // MAGICCODE and BODYCRC are 0 in a batch record.
    putInt32(buf, 0, start + 4);
    putInt32(buf, 0, start + 8);
    putInt32(buf, flag | 0, start + 12);
    putInt32(buf, bodyLen, start + 16);
    copyInto.call(buf, body, start + 20);
    buf[propsAt - 2] = propsLen >>> 8;
    buf[propsAt - 1] = propsLen & 0xff;
    this.at = start + size;
    return size;
  }

  /** The encoded batch (a view of the writer's buffer). */
  finish(): Buffer {
    if (this.slabEnd === slabAt && this.buf.buffer === slab.buffer) {
      // Still the slab's last carving: what the records did not use goes back to the slab, and
      // this writer keeps only its records (a later append grows into a buffer of its own).
      slabAt = Math.min(this.slabEnd, this.slabEnd - this.buf.length + ((this.at + 7) & ~7));
      this.buf = this.buf.subarray(0, this.at);
    }
    this.slabEnd = -1;
    return this.buf.subarray(0, this.at);
  }

  private grow(need: number): void {
    // A slab carving is never widened in place: the bytes after it may be another writer's.
    this.slabEnd = -1;
    const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }
}

export function encodeBatch(entries: readonly BatchEntry[]): Buffer {
  let estimate = 0;
  for (const e of entries) estimate += RECORD_FIXED + e.body.length + e.properties.length;
  const w = new BatchWriter(estimate);
  for (const e of entries) w.append(e.body, e.flag, e.properties);
  return w.finish();
}

/** Where the fields of one batch record sit; one instance is reused for every record. */
export class BatchRecordLayout {
  totalSize = 0;
  flag = 0;
  bodyAt = 0;
  bodyLen = 0;
  propertiesAt = 0;
  propertiesLen = 0;
}

/**
 * Checks the record at `at` of a batch body and fills `l`; returns its size. Every length is
 * checked against TOTALSIZE and the buffer; any inconsistency is a ProtocolError.
 */
export function scanBatchRecord(b: Buffer, at: number, l: BatchRecordLayout): number {
  const remaining = b.length - at;
  if (remaining < RECORD_FIXED)
    throw new ProtocolError(`batch record at ${at} truncated: ${remaining} bytes`);
  const totalSize = b.readInt32BE(at);
  if (totalSize < RECORD_FIXED || totalSize > remaining) {
    throw new ProtocolError(
      `batch record at ${at} has invalid TOTALSIZE ${totalSize} (${remaining} bytes left)`,
    );
  }
  const bodyLen = b.readInt32BE(at + 16);
  if (bodyLen < 0 || bodyLen > totalSize - RECORD_FIXED) {
    throw new ProtocolError(`batch record at ${at} has invalid body length ${bodyLen}`);
  }
  const propsLenAt = at + 20 + bodyLen;
  const propsLen = b.readInt16BE(propsLenAt);
  if (propsLen < 0 || RECORD_FIXED + bodyLen + propsLen !== totalSize) {
    throw new ProtocolError(`batch record at ${at} has invalid properties length ${propsLen}`);
  }
  l.totalSize = totalSize;
  l.flag = b.readInt32BE(at + 12);
  l.bodyAt = at + 20;
  l.bodyLen = bodyLen;
  l.propertiesAt = propsLenAt + 2;
  l.propertiesLen = propsLen;
  return totalSize;
}

/** Broker side: splits a batch body. Bodies are views into `buf`. Malformed → ProtocolError. */
export function decodeBatch(buf: Uint8Array): BatchEntry[] {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: BatchEntry[] = [];
  const l = new BatchRecordLayout();
  let at = 0;
  while (at < b.length) {
    at += scanBatchRecord(b, at, l);
    out.push({
      body: b.subarray(l.bodyAt, l.bodyAt + l.bodyLen),
      flag: l.flag,
      properties: b.toString('utf8', l.propertiesAt, l.propertiesAt + l.propertiesLen),
    });
  }
  return out;
}
