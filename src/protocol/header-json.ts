/**
 * JSON header serialization (serialize type 0, protocol.md §1.3). Keys are written in
 * fastjson's alphabetical order so our bytes equal a Java client's.
 */
import { ProtocolError } from '../errors.js';
import { SerializeType, type RemotingCommand } from './command.js';
import { parseFastjson } from './fastjson.js';

export function encodeJsonHeader(cmd: RemotingCommand): Buffer {
  const header: Record<string, unknown> = { code: cmd.code };
  if (cmd.extFields !== undefined) header.extFields = cmd.extFields;
  header.flag = cmd.flag;
  header.language = cmd.language;
  header.opaque = cmd.opaque;
  if (cmd.remark !== undefined && cmd.remark !== null) header.remark = cmd.remark;
  header.serializeTypeCurrentRPC = 'JSON';
  header.version = cmd.version;
  return Buffer.from(JSON.stringify(header), 'utf8');
}

function asInt(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  throw new ProtocolError(`JSON header field ${field} is not an integer`);
}

export function decodeJsonHeader(bytes: Buffer): Omit<RemotingCommand, 'body'> {
  const parsed = parseFastjson(bytes.toString('utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ProtocolError('JSON header is not an object');
  }
  const h = parsed as Record<string, unknown>;
  let extFields: Record<string, string> | undefined;
  if (h.extFields !== undefined && h.extFields !== null) {
    if (typeof h.extFields !== 'object' || Array.isArray(h.extFields)) {
      throw new ProtocolError('JSON header extFields is not an object');
    }
    extFields = {};
    for (const [k, v] of Object.entries(h.extFields as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      extFields[k] = typeof v === 'string' ? v : String(v);
    }
  }
  let language = 'JAVA';
  if (typeof h.language === 'string') language = h.language;
  else if (typeof h.language === 'number') language = String(h.language);
  return {
    code: asInt(h.code, 'code'),
    language,
    version: h.version === undefined ? 0 : asInt(h.version, 'version'),
    opaque: h.opaque === undefined ? 0 : asInt(h.opaque, 'opaque'),
    flag: h.flag === undefined ? 0 : asInt(h.flag, 'flag'),
    remark: typeof h.remark === 'string' ? h.remark : undefined,
    extFields,
    serializeType: SerializeType.JSON,
  };
}
