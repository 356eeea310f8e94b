/**
 * [5.x] Topic attributes (docs/protocol.md §13.2): the modification text UPDATE_AND_CREATE_TOPIC
 * carries in its `attributes` header field (`+key=value` adds or replaces, `-key` removes,
 * comma-separated: Java's `AttributeParser`), and the broker's rule for applying it to a topic's
 * current attributes (Java's `AttributeUtil.alterCurrentAttributes` over `TopicAttributes.ALL`).
 * The Admin client writes the text and the embedded broker reads it, so both use this file.
 */
import { InvalidArgumentError } from '../errors.js';
import { MESSAGE_TYPE_ATTRIBUTE, TOPIC_MESSAGE_TYPES } from './message/message-type.js';

/** key → new value, or null to remove the key. Insertion order is the order on the wire. */
export type AttributeModification = Map<string, string | null>;

/**
 * What a key or value may not contain: the separators of the text (`+`, `-` in a key, `=`, `,`),
 * and white space or control characters (Java's `TopicConfig.encode` joins fields with spaces,
 * so a space inside an attribute breaks its `decode`).
 */
const BAD_KEY = /[+\-=,\s\p{Cc}]/u;
const BAD_VALUE = /[=,\s\p{Cc}]/u;

function checkKey(key: string, field: string): void {
  if (key === '') throw new InvalidArgumentError(field, 'an attribute key is empty');
  if (BAD_KEY.test(key))
    throw new InvalidArgumentError(
      field,
      `attribute key "${key}" may not contain +, -, =, a comma, white space or a control character`,
    );
}

function checkValue(key: string, value: string, field: string): void {
  if (value === '') throw new InvalidArgumentError(field, `attribute ${key} has an empty value`);
  if (BAD_VALUE.test(value))
    throw new InvalidArgumentError(
      field,
      `attribute ${key} value "${value}" may not contain =, a comma, white space or a control character`,
    );
}

/**
 * The client's one parser for both forms an application may give: a record (`{ key: value }`
 * adds or replaces, `{ key: null }` removes) or Java's text (`+k=v,-k`). InvalidArgumentError
 * names what is wrong; a key given twice is refused, as Java's parser does.
 */
export function parseAttributeModification(
  input: Readonly<Record<string, string | null>> | string,
  field = 'attributes',
): AttributeModification {
  const out: AttributeModification = new Map();
  const put = (key: string, value: string | null): void => {
    checkKey(key, field);
    if (value !== null) checkValue(key, value, field);
    if (out.has(key)) throw new InvalidArgumentError(field, `attribute ${key} is given twice`);
    out.set(key, value);
  };
  if (typeof input === 'string') {
    if (input.trim() === '') return out;
    for (const item of input.trim().split(',')) {
      const sign = item[0];
      const eq = item.indexOf('=');
      if (sign === '+' && eq > 0) put(item.slice(1, eq), item.slice(eq + 1));
      else if (sign === '-' && eq < 0) put(item.slice(1), null);
      else
        throw new InvalidArgumentError(
          field,
          `"${item}" is neither +key=value (add or replace) nor -key (remove)`,
        );
    }
    return out;
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new InvalidArgumentError(field, 'must be a record of key → value (null removes) or "+k=v,-k" text');
  for (const [key, value] of Object.entries(input)) {
    if (value !== null && typeof value !== 'string')
      throw new InvalidArgumentError(field, `attribute ${key} must be a string, or null to remove it`);
    put(key, value);
  }
  return out;
}

/** The header text Java's `mqadmin updateTopic -a` sends (AttributeParser.parseToString). */
export function encodeAttributeModification(modification: AttributeModification): string {
  return [...modification].map(([k, v]) => (v === null ? `-${k}` : `+${k}=${v}`)).join(',');
}

/** One attribute a broker knows (Java `Attribute`): whether it may change after creation, its check. */
interface TopicAttribute {
  changeable: boolean;
  /** The reason `value` is refused (Java's message), or undefined. */
  verify(value: string): string | undefined;
}

function enumAttribute(changeable: boolean, universe: readonly string[]): TopicAttribute {
  return {
    changeable,
    verify: (v) => (universe.includes(v) ? undefined : `value is not in set: [${universe.join(', ')}]`),
  };
}

function longRangeAttribute(changeable: boolean, min: number, max: number): TopicAttribute {
  return {
    changeable,
    verify: (v) => {
      const n = /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
      if (Number.isNaN(n)) return `For input string: "${v}"`;
      return n < min || n > max ? `value is not in range(${min}, ${max})` : undefined;
    },
  };
}

/** Java 5.5.0 `TopicAttributes.ALL`: the only keys a broker accepts. */
export const TOPIC_ATTRIBUTES: ReadonlyMap<string, TopicAttribute> = new Map([
  ['queue.type', enumAttribute(false, ['BatchCQ', 'SimpleCQ'])],
  ['cleanup.policy', enumAttribute(false, ['DELETE', 'COMPACTION'])],
  [MESSAGE_TYPE_ATTRIBUTE, enumAttribute(true, TOPIC_MESSAGE_TYPES)],
  ['reserve.time', longRangeAttribute(true, -1, Number.MAX_SAFE_INTEGER)],
  ['lite.topic.expiration', longRangeAttribute(true, -1, 30 * 24 * 60)],
]);

/**
 * The broker's side (Java `alterCurrentAttributes`): `text` applied to `current`. On creation only
 * additions are allowed; later, `+` adds or replaces and `-` removes an existing key; unknown keys,
 * unchangeable ones after creation and bad values are refused. Throws an Error with Java's
 * message (the broker answers it as SYSTEM_ERROR's remark); returns the new attributes.
 */
export function alterTopicAttributes(
  create: boolean,
  current: Readonly<Record<string, string>>,
  text: string | undefined,
): Record<string, string> {
  const result: Record<string, string> = { ...current };
  if (text === undefined || text === '') return result;
  const seen = new Set<string>();
  const changes: Array<[string, string | null]> = [];
  for (const item of text.split(',')) {
    const eq = item.indexOf('=');
    const signed = eq < 0 ? item : item.slice(0, eq);
    const key = signed.slice(1);
    if (key === '' || key.includes('+') || key.includes('-')) throw new Error('kv string format wrong.');
    if (seen.has(key)) throw new Error(`alter duplication key. key: ${key}`);
    seen.add(key);
    const add = signed.startsWith('+');
    if (!add && !signed.startsWith('-')) throw new Error(`wrong format key: ${key}`);
    if (create && !add) throw new Error(`only add attribute is supported while creating topic. key: ${key}`);
    if (!add && !(key in current)) throw new Error(`attempt to delete a nonexistent key: ${key}`);
    changes.push([key, add ? (eq < 0 ? '' : item.slice(eq + 1)) : null]);
  }
  for (const [key, value] of changes) {
    const attribute = TOPIC_ATTRIBUTES.get(key);
    if (attribute === undefined) throw new Error(`unsupported key: ${key}`);
    if (!create && !attribute.changeable)
      throw new Error(`attempt to update an unchangeable attribute. key: ${key}`);
    const problem = value === null ? undefined : attribute.verify(value);
    if (problem !== undefined) throw new Error(problem);
  }
  for (const [key, value] of changes) {
    if (value === null) delete result[key];
    else result[key] = value;
  }
  return result;
}
