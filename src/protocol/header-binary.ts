/**
 * ROCKETMQ binary header serialization (serialize type 1, protocol.md §1.4).
 */
import { ProtocolError } from '../errors.js';
import { LanguageCode, languageName } from './codes.js';
import { SerializeType, type RemotingCommand } from './command.js';

const FIXED_PART = 2 + 1 + 2 + 4 + 4 + 4 + 4;

export function encodeBinaryHeader(cmd: RemotingCommand): Buffer {
  const remark = cmd.remark ? Buffer.from(cmd.remark, 'utf8') : undefined;
  const entries: Array<[Buffer, Buffer]> = [];
  let extLength = 0;
  if (cmd.extFields) {
    for (const [k, v] of Object.entries(cmd.extFields)) {
      if (k === undefined || v === undefined || v === null) continue;
      const kb = Buffer.from(k, 'utf8');
      const vb = Buffer.from(v, 'utf8');
      entries.push([kb, vb]);
      extLength += 2 + kb.length + 4 + vb.length;
    }
  }
  const out = Buffer.allocUnsafe(FIXED_PART + (remark?.length ?? 0) + extLength);
  let p = 0;
  p = out.writeInt16BE((cmd.code << 16) >> 16, p);
  const lang = (LanguageCode as Record<string, number>)[cmd.language] ?? LanguageCode.OTHER;
  p = out.writeUInt8(lang, p);
  p = out.writeInt16BE((cmd.version << 16) >> 16, p);
  p = out.writeInt32BE(cmd.opaque | 0, p);
  p = out.writeInt32BE(cmd.flag | 0, p);
  p = out.writeInt32BE(remark?.length ?? 0, p);
  if (remark) p += remark.copy(out, p);
  p = out.writeInt32BE(extLength, p);
  for (const [kb, vb] of entries) {
    p = out.writeInt16BE(kb.length, p);
    p += kb.copy(out, p);
    p = out.writeInt32BE(vb.length, p);
    p += vb.copy(out, p);
  }
  return out;
}

export function decodeBinaryHeader(bytes: Buffer): Omit<RemotingCommand, 'body'> {
  const len = bytes.length;
  if (len < FIXED_PART - 4) throw new ProtocolError(`binary header truncated: ${len} bytes`);
  let p = 0;
  const code = bytes.readInt16BE(p);
  p += 2;
  const langCode = bytes.readUInt8(p);
  p += 1;
  const version = bytes.readInt16BE(p);
  p += 2;
  const opaque = bytes.readInt32BE(p);
  p += 4;
  const flag = bytes.readInt32BE(p);
  p += 4;
  const remarkLength = bytes.readInt32BE(p);
  p += 4;
  if (remarkLength < 0 || remarkLength > len - p) {
    throw new ProtocolError(`binary header remark length ${remarkLength} exceeds header`);
  }
  const remark = remarkLength > 0 ? bytes.toString('utf8', p, p + remarkLength) : undefined;
  p += remarkLength;
  if (len - p < 4) throw new ProtocolError('binary header truncated before extFields length');
  const extLength = bytes.readInt32BE(p);
  p += 4;
  if (extLength < 0 || extLength > len - p) {
    throw new ProtocolError(`binary header extFields length ${extLength} exceeds header`);
  }
  let extFields: Record<string, string> | undefined;
  const extEnd = p + extLength;
  while (p < extEnd) {
    if (extEnd - p < 2) throw new ProtocolError('binary header truncated in extFields key length');
    const kl = bytes.readInt16BE(p);
    p += 2;
    if (kl < 0 || kl > extEnd - p) throw new ProtocolError('binary header extFields key overruns');
    const key = bytes.toString('utf8', p, p + kl);
    p += kl;
    if (extEnd - p < 4) throw new ProtocolError('binary header truncated in extFields value length');
    const vl = bytes.readInt32BE(p);
    p += 4;
    if (vl < 0 || vl > extEnd - p) throw new ProtocolError('binary header extFields value overruns');
    const value = bytes.toString('utf8', p, p + vl);
    p += vl;
    // Java decodes a zero-length key or value as null and drops it.
    if (kl > 0 && vl > 0) (extFields ??= {})[key] = value;
  }
  return {
    code,
    language: languageName(langCode) ?? 'OTHER',
    version,
    opaque,
    flag,
    remark,
    extFields,
    serializeType: SerializeType.ROCKETMQ,
  };
}
