/**
 * ROCKETMQ binary header serialization (serialize type 1, docs/protocol.md §1.4).
 */
import { ProtocolError } from '../errors.js';
import { LanguageCode, languageName } from './codes.js';
import { SerializeType, type RemotingCommand } from './command.js';

const FIXED_PART = 2 + 1 + 2 + 4 + 4 + 4 + 4;
const SHORT_STRING = 48;

// Header keys and values are short and almost always ASCII: a char loop beats the native
// UTF-8 calls there. Anything else goes through Buffer.
function utf8Length(s: string): number {
  if (s.length > SHORT_STRING) return Buffer.byteLength(s, 'utf8');
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8');
  return s.length;
}

function writeUtf8(out: Buffer, s: string, at: number, byteLength: number): void {
  if (byteLength !== s.length || byteLength > SHORT_STRING) {
    out.write(s, at, byteLength, 'utf8');
    return;
  }
  for (let i = 0; i < byteLength; i++) out[at + i] = s.charCodeAt(i);
}

/**
 * Encodes the header into a new buffer with `reserve` free bytes in front (room for the frame
 * prefix). Strings are measured, then written in place: no per-field buffers.
 */
export function encodeBinaryHeaderWithReserve(cmd: RemotingCommand, reserve: number): Buffer {
  const remarkLength = cmd.remark ? Buffer.byteLength(cmd.remark, 'utf8') : 0;
  const ext = cmd.extFields;
  let extLength = 0;
  if (ext) {
    for (const k in ext) {
      const v = ext[k];
      if (v === undefined || v === null) continue;
      extLength += 6 + utf8Length(k) + utf8Length(v);
    }
  }
  const out = Buffer.allocUnsafe(reserve + FIXED_PART + remarkLength + extLength);
  let p = reserve;
  p = out.writeInt16BE((cmd.code << 16) >> 16, p);
  const lang = (LanguageCode as Record<string, number>)[cmd.language] ?? LanguageCode.OTHER;
  p = out.writeUInt8(lang, p);
  p = out.writeInt16BE((cmd.version << 16) >> 16, p);
  p = out.writeInt32BE(cmd.opaque | 0, p);
  p = out.writeInt32BE(cmd.flag | 0, p);
  p = out.writeInt32BE(remarkLength, p);
  if (remarkLength > 0) p += out.write(cmd.remark!, p, 'utf8');
  p = out.writeInt32BE(extLength, p);
  if (ext) {
    for (const k in ext) {
      const v = ext[k];
      if (v === undefined || v === null) continue;
      const kl = utf8Length(k);
      out.writeInt16BE(kl, p);
      writeUtf8(out, k, p + 2, kl);
      p += 2 + kl;
      const vl = utf8Length(v);
      out.writeInt32BE(vl, p);
      writeUtf8(out, v, p + 4, vl);
      p += 4 + vl;
    }
  }
  return out;
}

export function encodeBinaryHeader(cmd: RemotingCommand): Buffer {
  return encodeBinaryHeaderWithReserve(cmd, 0);
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
