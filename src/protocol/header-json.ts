/**
 * JSON header serialization (serialize type 0, docs/protocol.md §1.3). Keys are written in
 * fastjson's alphabetical order so our bytes equal a Java client's. The header text is built by
 * hand (no intermediate object) and written straight into the frame buffer: this is the hot path
 * of every request and response.
 */
import { ProtocolError } from '../errors.js';
import { languageName } from './codes.js';
import { SerializeType, type RemotingCommand } from './command.js';
import { parseFastjson } from './fastjson.js';

const quote = JSON.stringify as (s: string) => string;

/** The header as JSON text, byte-identical to `JSON.stringify` of the fastjson field order. */
export function jsonHeaderText(cmd: RemotingCommand): string {
  let s = '{"code":' + (cmd.code | 0);
  if (cmd.extFields !== undefined && cmd.extFields !== null)
    s += ',"extFields":' + JSON.stringify(cmd.extFields);
  s +=
    ',"flag":' +
    (cmd.flag | 0) +
    ',"language":' +
    (cmd.language === 'JAVA' ? '"JAVA"' : quote(cmd.language)) +
    ',"opaque":' +
    (cmd.opaque | 0);
  if (cmd.remark !== undefined && cmd.remark !== null) s += ',"remark":' + quote(cmd.remark);
  return s + ',"serializeTypeCurrentRPC":"JSON","version":' + (cmd.version | 0) + '}';
}

/**
 * Encodes the header into a new buffer, leaving `reserve` bytes in front for the frame prefix so
 * the frame encoder does not copy it again. ASCII headers (every send) are written byte by byte
 * without building the text: the text, its JSON.stringify pieces and the UTF-8 pass cost most of
 * a send's garbage. Anything else takes the text path; both give the same bytes.
 */
export function encodeJsonHeaderWithReserve(cmd: RemotingCommand, reserve: number): Buffer {
  const direct = writeAsciiHeader(cmd, reserve);
  if (direct !== undefined) return direct;
  const text = jsonHeaderText(cmd);
  const length = Buffer.byteLength(text, 'utf8');
  const out = Buffer.allocUnsafe(reserve + length);
  out.write(text, reserve, 'utf8');
  return out;
}

/**
 * Strings from this length on are checked with native calls and copied with one `write`: a
 * batch's comma-joined offsetMsgIds run to kilobytes, and walking them a character at a time
 * twice (measure, then write) was most of a batch response's encoding. Shorter ones (a single
 * 32-character msgId) stay in the loop: the native calls' fixed cost loses below ~128.
 */
const BULK_MIN_LENGTH = 128;

/** True when `s` has no character above 0x7F, no quote and no backslash (native scans). */
function isBulkCandidate(s: string): boolean {
  return (
    s.length >= BULK_MIN_LENGTH &&
    Buffer.byteLength(s, 'utf8') === s.length &&
    s.indexOf('"') < 0 &&
    s.indexOf('\\') < 0
  );
}

/**
 * Bytes of `JSON.stringify(s)` when `s` is ASCII; -1 otherwise. A bulk candidate is counted
 * as needing no escape; a control character in it is found while writing (`writeJsonString`).
 */
function asciiJsonLength(s: string): number {
  if (isBulkCandidate(s)) return s.length + 2;
  let n = s.length + 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    if (c === 0x22 || c === 0x5c) n++;
    else if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
  }
  return n;
}

const SHORT_ESCAPES: Readonly<Record<number, number>> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };
const LOWER_HEX = '0123456789abcdef';

/**
 * Writes `JSON.stringify(s)` of an ASCII string at `p`; returns the end, or -1 when a bulk
 * candidate turned out to hold a control character (its escapes were not counted: the caller
 * starts over on the text path).
 */
function writeJsonString(out: Buffer, p: number, s: string): number {
  if (isBulkCandidate(s)) {
    out[p] = 0x22;
    const end = p + 1 + out.write(s, p + 1, 'latin1');
    if (hasControlByte(out, p + 1, end)) return -1;
    out[end] = 0x22;
    return end + 1;
  }
  out[p++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      out[p++] = c;
      continue;
    }
    out[p++] = 0x5c;
    if (c >= 0x20) {
      out[p++] = c;
      continue;
    }
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) {
      out[p++] = short;
      continue;
    }
    out[p++] = 0x75; // \u00XX, lowercase as JSON.stringify
    out[p++] = 0x30;
    out[p++] = 0x30;
    out[p++] = LOWER_HEX.charCodeAt(c >> 4);
    out[p++] = LOWER_HEX.charCodeAt(c & 0xf);
  }
  out[p++] = 0x22;
  return p;
}

/**
 * Some byte of `out[from, to)` is below 0x20; every byte is below 0x80. Four bytes per step:
 * `(w - 0x20202020) & ~w & 0x80808080` is non-zero exactly when a byte of `w` is below 0x20 (the
 * subtraction borrows only out of such a byte, as no byte has its top bit set).
 */
function hasControlByte(out: Buffer, from: number, to: number): boolean {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let i = from;
  for (; i + 4 <= to; i += 4) {
    const w = view.getUint32(i);
    if (((w - 0x20202020) & ~w & 0x80808080) !== 0) return true;
  }
  for (; i < to; i++) if (out[i]! < 0x20) return true;
  return false;
}

function intLength(n: number): number {
  let len = n < 0 ? 2 : 1;
  for (let v = Math.abs(n); v >= 10; v = Math.floor(v / 10)) len++;
  return len;
}

function writeInt(out: Buffer, p: number, n: number, len: number): number {
  let v = n;
  if (v < 0) {
    out[p] = 0x2d;
    v = -v;
  }
  let at = p + len;
  const end = at;
  do {
    out[--at] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  } while (v > 0);
  return end;
}

function writeAscii(out: Buffer, p: number, s: string): number {
  for (let i = 0; i < s.length; i++) out[p++] = s.charCodeAt(i);
  return p;
}

const CODE = '{"code":';
const EXT = ',"extFields":{';
const FLAG = ',"flag":';
const LANGUAGE = ',"language":';
const OPAQUE = ',"opaque":';
const REMARK = ',"remark":';
const VERSION = ',"serializeTypeCurrentRPC":"JSON","version":';

/** `jsonHeaderText` written straight into a buffer; undefined when some text is not ASCII or a value not a string. */
function writeAsciiHeader(cmd: RemotingCommand, reserve: number): Buffer | undefined {
  const code = cmd.code | 0;
  const flag = cmd.flag | 0;
  const opaque = cmd.opaque | 0;
  const version = cmd.version | 0;
  const ext = cmd.extFields;
  const hasExt = ext !== undefined && ext !== null;
  const remark = cmd.remark;
  const hasRemark = remark !== undefined && remark !== null;
  const languageLength = asciiJsonLength(cmd.language);
  const remarkLength = hasRemark ? asciiJsonLength(remark) : 0;
  if (languageLength < 0 || remarkLength < 0) return undefined;
  const codeLength = intLength(code);
  const flagLength = intLength(flag);
  const opaqueLength = intLength(opaque);
  const versionLength = intLength(version);
  let total =
    CODE.length +
    codeLength +
    FLAG.length +
    flagLength +
    LANGUAGE.length +
    languageLength +
    OPAQUE.length +
    opaqueLength +
    VERSION.length +
    versionLength +
    1;
  if (hasRemark) total += REMARK.length + remarkLength;
  if (hasExt) {
    let fields = 0;
    for (const k in ext) {
      const v = ext[k];
      if (v === undefined) continue;
      if (typeof v !== 'string') return undefined;
      const kl = asciiJsonLength(k);
      const vl = asciiJsonLength(v);
      if (kl < 0 || vl < 0) return undefined;
      total += kl + 1 + vl;
      fields++;
    }
    total += EXT.length + 1 + (fields > 0 ? fields - 1 : 0);
  }
  const out = Buffer.allocUnsafe(reserve + total);
  let p = writeAscii(out, reserve, CODE);
  p = writeInt(out, p, code, codeLength);
  if (hasExt) {
    p = writeAscii(out, p, EXT);
    let first = true;
    for (const k in ext) {
      const v = ext[k];
      if (v === undefined) continue;
      if (!first) out[p++] = 0x2c;
      first = false;
      p = writeJsonString(out, p, k);
      if (p < 0) return undefined;
      out[p++] = 0x3a;
      p = writeJsonString(out, p, v);
      if (p < 0) return undefined;
    }
    out[p++] = 0x7d;
  }
  p = writeAscii(out, p, FLAG);
  p = writeInt(out, p, flag, flagLength);
  p = writeAscii(out, p, LANGUAGE);
  p = writeJsonString(out, p, cmd.language);
  if (p < 0) return undefined;
  p = writeAscii(out, p, OPAQUE);
  p = writeInt(out, p, opaque, opaqueLength);
  if (hasRemark) {
    p = writeAscii(out, p, REMARK);
    p = writeJsonString(out, p, remark);
    if (p < 0) return undefined;
  }
  p = writeAscii(out, p, VERSION);
  p = writeInt(out, p, version, versionLength);
  out[p] = 0x7d;
  return out;
}

export function encodeJsonHeader(cmd: RemotingCommand): Buffer {
  return Buffer.from(jsonHeaderText(cmd), 'utf8');
}

function asInt(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,10}$/.test(value)) return Number(value);
  throw new ProtocolError(`JSON header field ${field} is not an integer`);
}

function toExtFields(raw: unknown): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new ProtocolError('JSON header extFields is not an object');
  const obj = raw as Record<string, unknown>;
  // Java always writes strings: reuse the parsed object unless some value needs converting.
  for (const k in obj) {
    if (typeof obj[k] !== 'string') {
      const out: Record<string, string> = {};
      for (const [key, v] of Object.entries(obj)) {
        if (v === null || v === undefined) continue;
        out[key] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
      }
      return out;
    }
  }
  return obj as Record<string, string>;
}

export function decodeJsonHeader(bytes: Buffer): Omit<RemotingCommand, 'body'> {
  return decodeJsonHeaderText(bytes.toString('utf8'));
}

/** `decodeJsonHeader` of already decoded text (the frame decoder slices it without a view). */
export function decodeJsonHeaderText(text: string): Omit<RemotingCommand, 'body'> {
  const parsed = parseFastjson(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ProtocolError('JSON header is not an object');
  }
  const h = parsed as Record<string, unknown>;
  let language = 'JAVA';
  if (typeof h.language === 'string') language = h.language;
  else if (typeof h.language === 'number') language = languageName(h.language) ?? 'OTHER';
  return {
    code: asInt(h.code, 'code'),
    language,
    version: h.version === undefined || h.version === null ? 0 : asInt(h.version, 'version'),
    opaque: h.opaque === undefined || h.opaque === null ? 0 : asInt(h.opaque, 'opaque'),
    flag: h.flag === undefined || h.flag === null ? 0 : asInt(h.flag, 'flag'),
    remark: typeof h.remark === 'string' ? h.remark : undefined,
    extFields: toExtFields(h.extFields),
    serializeType: SerializeType.JSON,
  };
}
