/** Random RemotingCommands and request headers, shared by the codec, server and client fuzzers. */
import { LanguageCode, RequestCode } from '../src/protocol/codes.js';
import { FLAG_ONEWAY, SerializeType, type RemotingCommand } from '../src/protocol/command.js';
import type { HeaderSpec } from '../src/protocol/headers/fields.js';
import { requestDeclaration } from '../src/protocol/headers/registry.js';
import type { Random } from './random.js';

const LANGUAGES = Object.keys(LanguageCode);
export const ALL_REQUEST_CODES: readonly number[] = Object.values(RequestCode);

/** Topic, group and key names the servers know, so handlers get past their first lookup. */
export const NAMES = {
  topics: ['FuzzTopic', 'TBW102', 'SCHEDULE_TOPIC_XXXX', '%RETRY%FuzzGroup', '%DLQ%FuzzGroup', 'FuzzNew'],
  groups: ['FuzzGroup', 'FuzzGroup2', 'CID_RMQ_SYS_TRANS'],
};

/** Header keys that many undeclared (admin) codes read. */
const COMMON_KEYS = [
  'topic',
  'group',
  'consumerGroup',
  'producerGroup',
  'queueId',
  'offset',
  'commitOffset',
  'brokerName',
  'brokerAddr',
  'brokerId',
  'clusterName',
  'namespace',
  'key',
  'value',
  'clientId',
  'timestamp',
  'maxMsgNums',
  'sysFlag',
  'msgId',
  'topicFilterType',
  'perm',
  'readQueueNums',
  'writeQueueNums',
];

/** A value of the field's kind that a handler would accept, or something close to it. */
function fieldValue(r: Random, name: string, kind: string): string {
  const lower = name.toLowerCase();
  if (name === 'suspendTimeoutMillis') return String(r.int(300));
  if (r.chance(0.15)) return r.string();
  if (kind === 'string' || kind === undefined) {
    if (lower.includes('topic') || name === 'b') return r.pick(NAMES.topics);
    if (lower.includes('group') || name === 'a') return r.pick(NAMES.groups);
    if (lower.includes('addr')) return r.pick(['127.0.0.1:10911', '127.0.0.1:1', 'nohost', '']);
    if (lower === 'properties' || name === 'i')
      return r.pick(['', 'KEYS\u0001k\u0002', 'TAGS\u0001t\u0002', r.string()]);
    if (lower.includes('subscription')) return r.pick(['*', 'a || b', 'a > 1', r.string()]);
    return r.string();
  }
  if (kind === 'bool') return r.pick(['true', 'false', 'TRUE', '1', '']);
  if (kind === 'long')
    return r.chance(0.8)
      ? String(r.range(-2, 40))
      : r.pick(['9223372036854775807', '-9223372036854775808', '1e3', '0x10']);
  return r.numberText();
}

/** Header fields of `spec`: required ones usually present, optional ones often, values near valid. */
export function randomHeader(r: Random, spec: HeaderSpec): Record<string, string> {
  const ext: Record<string, string> = {};
  for (const [name, field] of Object.entries(spec)) {
    if (r.chance(field.required ? 0.9 : 0.6)) ext[field.key ?? name] = fieldValue(r, name, field.kind);
  }
  return ext;
}

/** extFields for `code`: its declared fields (usually all present) plus a few stray keys. */
export function randomExtFields(r: Random, code: number): Record<string, string> | undefined {
  if (r.chance(0.05)) return undefined;
  const ext: Record<string, string> = {};
  const decl = requestDeclaration(code);
  if (decl !== undefined) {
    Object.assign(ext, randomHeader(r, decl.spec));
  } else {
    const n = r.int(6);
    for (let i = 0; i < n; i++) {
      const key = r.pick(COMMON_KEYS);
      ext[key] = fieldValue(r, key, /queue|offset|id|nums|timestamp|perm|flag/i.test(key) ? 'int' : 'string');
    }
  }
  if (r.chance(0.2)) ext[r.string(2) || 'x'] = r.string();
  return ext;
}

/** A body: none, random bytes, JSON-ish text, or a caller-supplied valid body, possibly mutated. */
export function randomBody(r: Random, valid: readonly Uint8Array[] = []): Uint8Array | undefined {
  const roll = r.int(10);
  if (roll < 3) return undefined;
  if (roll < 5) return r.bytes(r.size(4096));
  if (roll < 7) {
    const text = r.pick([
      '{}',
      '[]',
      'null',
      '{"a":1}',
      '{"topicConfigTable":{}}',
      '{"offsetTable":{"x":1}}',
      r.string(),
    ]);
    return Buffer.from(r.chance(0.3) ? r.mutate(Buffer.from(text)) : Buffer.from(text));
  }
  if (valid.length === 0) return r.bytes(r.size(64));
  const body = r.pick(valid);
  return r.chance(0.4) ? r.mutate(body) : body;
}

export interface CommandOptions {
  codes: readonly number[];
  validBodies?: readonly Uint8Array[];
  onewayChance?: number;
}

/** A request with a code from `codes` (often) or anywhere, a fitting header and a body. */
export function randomRequest(r: Random, options: CommandOptions): RemotingCommand {
  const roll = r.int(20);
  const code = roll < 16 ? r.pick(options.codes) : roll < 19 ? r.pick(ALL_REQUEST_CODES) : r.int32();
  return {
    code,
    language: r.pick(LANGUAGES),
    version: r.chance(0.8) ? 407 : r.int(32768),
    opaque: r.int32(),
    flag: r.chance(options.onewayChance ?? 0.1) ? FLAG_ONEWAY : 0,
    remark: r.chance(0.1) ? r.string() : undefined,
    extFields: randomExtFields(r, code),
    serializeType: r.chance(0.7) ? SerializeType.JSON : SerializeType.ROCKETMQ,
    body: randomBody(r, options.validBodies ?? []),
  };
}

/** Any command at all, for the codec round trips. */
export function randomCommand(r: Random): RemotingCommand {
  const ext: Record<string, string> = {};
  const n = r.int(6);
  for (let i = 0; i < n; i++) ext[r.string(3) || 'k'] = r.string(4) || 'v';
  return {
    code: r.range(-32768, 32767),
    language: r.pick(LANGUAGES),
    version: r.range(-32768, 32767),
    opaque: r.int32(),
    flag: r.int32(),
    remark: r.chance(0.5) ? r.string() : undefined,
    extFields: r.chance(0.8) ? ext : undefined,
    serializeType: r.chance(0.5) ? SerializeType.JSON : SerializeType.ROCKETMQ,
    body: r.chance(0.6) ? r.bytes(r.size(256)) : undefined,
  };
}
