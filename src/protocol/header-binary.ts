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
  p = put16(out, p, cmd.code);
  out[p++] = (LanguageCode as Record<string, number>)[cmd.language] ?? LanguageCode.OTHER;
  p = put16(out, p, cmd.version);
  p = put32(out, p, cmd.opaque);
  p = put32(out, p, cmd.flag);
  p = put32(out, p, remarkLength);
  if (remarkLength > 0) p += out.write(cmd.remark!, p, 'utf8');
  p = put32(out, p, extLength);
  if (ext) {
    for (const k in ext) {
      const v = ext[k];
      if (v === undefined || v === null) continue;
      const kl = utf8Length(k);
      p = put16(out, p, kl);
      writeUtf8(out, k, p, kl);
      p += kl;
      const vl = utf8Length(v);
      p = put32(out, p, vl);
      writeUtf8(out, v, p, vl);
      p += vl;
    }
  }
  return out;
}

// Big-endian stores by index: the Buffer write methods check their arguments on every call,
// and a send header makes about thirty of them.
function put16(out: Buffer, p: number, v: number): number {
  out[p] = v >>> 8;
  out[p + 1] = v;
  return p + 2;
}

function put32(out: Buffer, p: number, v: number): number {
  out[p] = v >>> 24;
  out[p + 1] = v >>> 16;
  out[p + 2] = v >>> 8;
  out[p + 3] = v;
  return p + 4;
}

export function encodeBinaryHeader(cmd: RemotingCommand): Buffer {
  return encodeBinaryHeaderWithReserve(cmd, 0);
}

/** Direct-mapped cache of short header strings (keys and repeated values like `DefaultRegion`). */
const CACHE_SLOTS = 256;
const INTERN_MAX = 24;
const internCache: Array<string | undefined> = new Array<string | undefined>(CACHE_SLOTS);

/**
 * `bytes.toString('utf8', start, end)`, served from a small cache for short ASCII runs: header
 * keys (and most values) repeat on every response, and a native call per field cost more than
 * the rest of the decode.
 */
function readUtf8(bytes: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n > INTERN_MAX) return bytes.toString('utf8', start, end);
  let h = n;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + bytes[i]!) | 0;
  const slot = (h ^ (h >>> 8)) & (CACHE_SLOTS - 1);
  const cached = internCache[slot];
  if (cached !== undefined && cached.length === n) {
    let same = true;
    for (let i = 0; i < n; i++) {
      if (cached.charCodeAt(i) !== bytes[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return cached;
  }
  const s = bytes.toString('utf8', start, end);
  // Only ASCII strings can be compared byte for char.
  if (s.length === n) internCache[slot] = s;
  return s;
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
    const key = readUtf8(bytes, p, p + kl);
    p += kl;
    if (extEnd - p < 4) throw new ProtocolError('binary header truncated in extFields value length');
    const vl = bytes.readInt32BE(p);
    p += 4;
    if (vl < 0 || vl > extEnd - p) throw new ProtocolError('binary header extFields value overruns');
    const value = readUtf8(bytes, p, p + vl);
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
