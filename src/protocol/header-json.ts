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
 * the frame encoder does not copy it again.
 */
export function encodeJsonHeaderWithReserve(cmd: RemotingCommand, reserve: number): Buffer {
  const text = jsonHeaderText(cmd);
  const length = Buffer.byteLength(text, 'utf8');
  const out = Buffer.allocUnsafe(reserve + length);
  out.write(text, reserve, 'utf8');
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
