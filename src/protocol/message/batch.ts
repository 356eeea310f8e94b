/**
 * SEND_BATCH_MESSAGE body (docs/protocol.md §6.1, Java `MessageDecoder.encodeMessages`), one record
 * per inner message:
 *   int32 TOTALSIZE (20 + bodyLen + propsLen), int32 MAGICCODE 0, int32 BODYCRC 0, int32 FLAG,
 *   int32 bodyLen, body, int16 propsLen, properties (UTF-8)
 */
import { ProtocolError } from '../../errors.js';

export interface BatchEntry {
  body: Uint8Array;
  flag: number;
  /** §4.1 properties string of the inner message (incl. its UNIQ_KEY). */
  properties: string;
}

const RECORD_FIXED = 4 + 4 + 4 + 4 + 4 + 2;
export const MAX_PROPERTIES_LENGTH = 32767;

export function encodeBatch(entries: readonly BatchEntry[]): Buffer {
  const props: Buffer[] = [];
  let total = 0;
  for (const e of entries) {
    const p = Buffer.from(e.properties, 'utf8');
    if (p.length > MAX_PROPERTIES_LENGTH) {
      throw new ProtocolError(`batch entry properties of ${p.length} bytes exceed ${MAX_PROPERTIES_LENGTH}`);
    }
    props.push(p);
    total += RECORD_FIXED + e.body.length + p.length;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const p = props[i]!;
    at = out.writeInt32BE(RECORD_FIXED + e.body.length + p.length, at);
    at = out.writeInt32BE(0, at);
    at = out.writeInt32BE(0, at);
    at = out.writeInt32BE(e.flag | 0, at);
    at = out.writeInt32BE(e.body.length, at);
    out.set(e.body, at);
    at += e.body.length;
    at = out.writeInt16BE(p.length, at);
    at += p.copy(out, at);
  }
  return out;
}

/**
 * Broker side: splits a batch body. Bodies are views into `buf`. Every length is checked
 * against TOTALSIZE and the buffer; any inconsistency is a ProtocolError.
 */
export function decodeBatch(buf: Uint8Array): BatchEntry[] {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: BatchEntry[] = [];
  let at = 0;
  while (at < b.length) {
    const remaining = b.length - at;
    if (remaining < RECORD_FIXED)
      throw new ProtocolError(`batch record at ${at} truncated: ${remaining} bytes`);
    const totalSize = b.readInt32BE(at);
    if (totalSize < RECORD_FIXED || totalSize > remaining) {
      throw new ProtocolError(
        `batch record at ${at} has invalid TOTALSIZE ${totalSize} (${remaining} bytes left)`,
      );
    }
    const flag = b.readInt32BE(at + 12);
    const bodyLen = b.readInt32BE(at + 16);
    if (bodyLen < 0 || bodyLen > totalSize - RECORD_FIXED) {
      throw new ProtocolError(`batch record at ${at} has invalid body length ${bodyLen}`);
    }
    const bodyStart = at + 20;
    const body = b.subarray(bodyStart, bodyStart + bodyLen);
    const propsLenAt = bodyStart + bodyLen;
    const propsLen = b.readInt16BE(propsLenAt);
    if (propsLen < 0 || RECORD_FIXED + bodyLen + propsLen !== totalSize) {
      throw new ProtocolError(`batch record at ${at} has invalid properties length ${propsLen}`);
    }
    const properties = b.toString('utf8', propsLenAt + 2, propsLenAt + 2 + propsLen);
    out.push({ body, flag, properties });
    at += totalSize;
  }
  return out;
}
