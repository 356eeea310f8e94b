/**
 * The RemotingCommand: one request or response of the RocketMQ remoting protocol
 * (docs/protocol.md §1.3–§1.5). Pure data; framing lives in `frame.ts`.
 */
import { InvalidArgumentError } from '../errors.js';
import { DEFAULT_REMOTING_VERSION, LanguageCode } from './codes.js';

export const SerializeType = {
  JSON: 0,
  ROCKETMQ: 1,
} as const;
export type SerializeType = (typeof SerializeType)[keyof typeof SerializeType];

/** `flag` bit 0: set on responses. */
export const FLAG_RESPONSE = 1;
/** `flag` bit 1: set on oneway requests (no response expected). */
export const FLAG_ONEWAY = 2;

export interface RemotingCommand {
  /** Request code for requests, response code for responses. */
  code: number;
  /** LanguageCode name, e.g. `JAVA`. */
  language: string;
  /** MQVersion ordinal of the sender. */
  version: number;
  /** Request id; a response echoes it. Signed int32. */
  opaque: number;
  /** Bit 0 response, bit 1 oneway. */
  flag: number;
  remark?: string | undefined;
  /** Custom header fields; every value a string. */
  extFields?: Record<string, string> | undefined;
  /** How the header is (or will be) serialized on the wire. */
  serializeType: SerializeType;
  /** Raw body bytes, written to the socket without copying. */
  body?: Uint8Array | undefined;
}

/** Settings every command a component creates shares: how it presents itself. */
export interface CommandDefaults {
  /** LanguageCode name sent in each command. @default 'JAVA' */
  language: string;
  /** MQVersion ordinal sent in each command. @default 407 */
  version: number;
  /** Header serialization. @default SerializeType.JSON */
  serializeType: SerializeType;
}

export const DEFAULT_COMMAND_DEFAULTS: Readonly<CommandDefaults> = Object.freeze({
  language: 'JAVA',
  version: DEFAULT_REMOTING_VERSION,
  serializeType: SerializeType.JSON,
});

/**
 * Merges `options` over the defaults and validates them: a known LanguageCode name, a version
 * that fits the binary header's int16, a serialize type of 0 or 1. Throws InvalidArgumentError.
 */
export function resolveCommandDefaults(options: Partial<CommandDefaults> = {}): Readonly<CommandDefaults> {
  const merged = { ...DEFAULT_COMMAND_DEFAULTS, ...options };
  if (!Object.prototype.hasOwnProperty.call(LanguageCode, merged.language)) {
    throw new InvalidArgumentError('language', `unknown LanguageCode ${JSON.stringify(merged.language)}`);
  }
  if (!Number.isInteger(merged.version) || merged.version < 0 || merged.version > 32767) {
    throw new InvalidArgumentError('version', `must be an integer in [0, 32767], got ${merged.version}`);
  }
  if (merged.serializeType !== SerializeType.JSON && merged.serializeType !== SerializeType.ROCKETMQ) {
    throw new InvalidArgumentError(
      'serializeType',
      `must be 0 (JSON) or 1 (ROCKETMQ), got ${String(merged.serializeType)}`,
    );
  }
  return Object.freeze(merged);
}

export function isOneway(cmd: RemotingCommand): boolean {
  return (cmd.flag & FLAG_ONEWAY) !== 0;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Turns a typed header object into extFields: null/undefined fields are omitted, every other
 * value becomes its string form (Java's `makeCustomHeaderToNet`).
 */
export function toExtFields(header: object | undefined): Record<string, string> | undefined {
  if (header === undefined) return undefined;
  let out: Record<string, string> | undefined;
  const fields = header as Record<string, unknown>;
  // for..in over own keys: no [key, value] array per field as Object.entries makes (hot path).
  for (const key in fields) {
    if (!hasOwn.call(fields, key)) continue;
    const value = fields[key];
    if (value === undefined || value === null) continue;
    (out ??= {})[key] = typeof value === 'string' ? value : String(value);
  }
  return out;
}

export function createRequest(
  code: number,
  header?: object,
  body?: Uint8Array,
  defaults: Readonly<CommandDefaults> = DEFAULT_COMMAND_DEFAULTS,
): RemotingCommand {
  return {
    code,
    language: defaults.language,
    version: defaults.version,
    opaque: 0,
    flag: 0,
    extFields: toExtFields(header),
    serializeType: defaults.serializeType,
    body,
  };
}

/**
 * A response to `request`: same opaque, response bit set, the request's serialize type
 * (4.9.x behaviour; a 5.x server answers JSON, and clients accept either).
 */
export function createResponse(
  request: RemotingCommand,
  code: number,
  remark?: string,
  header?: object,
  body?: Uint8Array,
  version: number = DEFAULT_REMOTING_VERSION,
): RemotingCommand {
  return {
    code,
    language: 'JAVA',
    version,
    opaque: request.opaque,
    flag: FLAG_RESPONSE,
    remark,
    extFields: toExtFields(header),
    serializeType: request.serializeType,
    body,
  };
}
