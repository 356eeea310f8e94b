/**
 * Topic, group, property and body rules shared by the producer (rejects locally) and the broker
 * (answers SYSTEM_ERROR / NO_PERMISSION / MESSAGE_ILLEGAL). Java `TopicValidator`, `Validators`
 * and `MessageConst.STRING_HASH_SET`.
 */
import { InvalidArgumentError } from '../errors.js';
import { containsSeparator } from './message/properties.js';

export const TOPIC_MAX_LENGTH = 127;
export const GROUP_MAX_LENGTH = 120;
export const DEFAULT_TOPIC = 'TBW102';
/** Java producer and broker default `maxMessageSize`: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024;
export const TOPIC_CHARSET_PATTERN = '^[%|a-zA-Z0-9_-]+$';

export const SystemTopic = {
  AUTO_CREATE_TOPIC_KEY_TOPIC: 'TBW102',
  RMQ_SYS_SCHEDULE_TOPIC: 'SCHEDULE_TOPIC_XXXX',
  RMQ_SYS_BENCHMARK_TOPIC: 'BenchmarkTest',
  RMQ_SYS_TRANS_HALF_TOPIC: 'RMQ_SYS_TRANS_HALF_TOPIC',
  RMQ_SYS_TRACE_TOPIC: 'RMQ_SYS_TRACE_TOPIC',
  RMQ_SYS_TRANS_OP_HALF_TOPIC: 'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC: 'TRANS_CHECK_MAX_TIME_TOPIC',
  RMQ_SYS_SELF_TEST_TOPIC: 'SELF_TEST_TOPIC',
  RMQ_SYS_OFFSET_MOVED_EVENT: 'OFFSET_MOVED_EVENT',
  /** [5.x] */
  RMQ_SYS_ROCKSDB_OFFSET_TOPIC: 'CHECKPOINT_TOPIC',
} as const;
export const SYSTEM_TOPIC_PREFIX = 'rmq_sys_';
export const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';
export const DLQ_GROUP_TOPIC_PREFIX = '%DLQ%';

const SYSTEM_TOPICS: ReadonlySet<string> = new Set(Object.values(SystemTopic));

export const NOT_ALLOWED_SEND_TOPICS: ReadonlySet<string> = new Set([
  SystemTopic.RMQ_SYS_SCHEDULE_TOPIC,
  SystemTopic.RMQ_SYS_TRANS_HALF_TOPIC,
  SystemTopic.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  SystemTopic.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
  SystemTopic.RMQ_SYS_SELF_TEST_TOPIC,
  SystemTopic.RMQ_SYS_OFFSET_MOVED_EVENT,
]);

/** Java `TopicValidator.isSystemTopic`: the named system topics or the `rmq_sys_` prefix. */
export function isSystemTopic(topic: string): boolean {
  return SYSTEM_TOPICS.has(topic) || topic.startsWith(SYSTEM_TOPIC_PREFIX);
}

export function isNotAllowedSendTopic(topic: string): boolean {
  return NOT_ALLOWED_SEND_TOPICS.has(topic);
}

// '%' '-' '_' '|' 0-9 A-Z a-z, indexed by char code (Java VALID_CHAR_BIT_MAP).
const VALID_CHARS = ((): Uint8Array => {
  const m = new Uint8Array(128);
  for (const c of '%-_|') m[c.charCodeAt(0)] = 1;
  for (let i = 48; i <= 57; i++) m[i] = 1;
  for (let i = 65; i <= 90; i++) m[i] = 1;
  for (let i = 97; i <= 122; i++) m[i] = 1;
  return m;
})();

/** True when `s` has a character outside `^[%|a-zA-Z0-9_-]+$` (Java `isTopicOrGroupIllegal`). */
export function hasIllegalTopicChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || VALID_CHARS[c] !== 1) return true;
  }
  return false;
}

/**
 * Topic syntax (the broker's checks, in its order and with its remarks). Returns a problem
 * description, or undefined when the topic is valid. Does not check NOT_ALLOWED_SEND_TOPICS.
 */
export function checkTopic(topic: unknown, field = 'topic'): string | undefined {
  if (typeof topic !== 'string') return `The specified ${field} must be a string.`;
  if (topic.trim().length === 0) return `The specified ${field} is blank.`;
  if (hasIllegalTopicChars(topic)) {
    return `The specified ${field} contains illegal characters, allowing only ${TOPIC_CHARSET_PATTERN}`;
  }
  if (topic.length > TOPIC_MAX_LENGTH) {
    return `The specified ${field} is longer than topic max length ${TOPIC_MAX_LENGTH}.`;
  }
  return undefined;
}

/** `checkTopic` that throws InvalidArgumentError. */
export function validateTopic(topic: unknown, field = 'topic'): asserts topic is string {
  const problem = checkTopic(topic, field);
  if (problem !== undefined) throw new InvalidArgumentError(field, problem);
}

/** What a producer checks before sending: syntax plus the forbidden system topics. */
export function checkSendTopic(topic: unknown, field = 'topic'): string | undefined {
  const problem = checkTopic(topic, field);
  if (problem !== undefined) return problem;
  if (isNotAllowedSendTopic(topic as string))
    return `Sending message to topic[${topic as string}] is forbidden.`;
  return undefined;
}

/** Consumer/producer group syntax (Java `TopicValidator.validateGroup`). */
export function checkGroup(group: unknown, field = 'group'): string | undefined {
  if (typeof group !== 'string') return `The specified ${field} must be a string.`;
  if (group.trim().length === 0) return `The specified ${field} is blank.`;
  if (hasIllegalTopicChars(group)) {
    return `The specified ${field} contains illegal characters, allowing only ${TOPIC_CHARSET_PATTERN}`;
  }
  if (group.length > GROUP_MAX_LENGTH)
    return `The specified ${field} is longer than group max length ${GROUP_MAX_LENGTH}.`;
  return undefined;
}

export function validateGroup(group: unknown, field = 'group'): asserts group is string {
  const problem = checkGroup(group, field);
  if (problem !== undefined) throw new InvalidArgumentError(field, problem);
}

/**
 * Property names reserved for the system (Java `MessageConst.STRING_HASH_SET`, the 5.x list,
 * which includes every 4.9.7 name). `Message.putUserProperty` rejects them.
 */
export const SYSTEM_PROPERTY_NAMES: ReadonlySet<string> = new Set([
  'TRACE_ON',
  'MSG_REGION',
  'KEYS',
  'TAGS',
  'WAIT',
  'DELAY',
  'RETRY_TOPIC',
  'REAL_TOPIC',
  'REAL_QID',
  'TRAN_MSG',
  'PGROUP',
  'MIN_OFFSET',
  'MAX_OFFSET',
  'BUYER_ID',
  'ORIGIN_MESSAGE_ID',
  'TRANSFER_FLAG',
  'CORRECTION_FLAG',
  'MQ2_FLAG',
  'RECONSUME_TIME',
  'UNIQ_KEY',
  'MAX_RECONSUME_TIMES',
  'CONSUME_START_TIME',
  'POP_CK',
  'POP_CK_OFFSET',
  '1ST_POP_TIME',
  'TRAN_PREPARED_QUEUE_OFFSET',
  'DUP_INFO',
  'EXTEND_UNIQ_INFO',
  'INSTANCE_ID',
  'CORRELATION_ID',
  'REPLY_TO_CLIENT',
  'TTL',
  'ARRIVE_TIME',
  'PUSH_REPLY_TIME',
  'CLUSTER',
  'MSG_TYPE',
  'INNER_MULTI_QUEUE_OFFSET',
  'TIMER_DELAY_MS',
  'TIMER_DELAY_SEC',
  'TIMER_DELIVER_MS',
  'TIMER_ENQUEUE_MS',
  'TIMER_DEQUEUE_MS',
  'TIMER_ROLL_TIMES',
  'TIMER_OUT_MS',
  'TIMER_DEL_UNIQKEY',
  'TIMER_DELAY_LEVEL',
  '__BORNHOST',
  'BORN_TIMESTAMP',
  'DLQ_ORIGIN_TOPIC',
  'DLQ_ORIGIN_MESSAGE_ID',
  '__CRC32#',
  // [5.4+] Set through `Message.priority`, never as a user property (Java 5.5.0's list has it).
  '_SYS_MSG_PRIORITY_',
]);

export function isSystemPropertyName(name: string): boolean {
  return SYSTEM_PROPERTY_NAMES.has(name);
}

/**
 * A user property: non-empty name, non-empty value, neither containing U+0001/U+0002, name not
 * reserved. Returns a problem description or undefined.
 */
export function checkUserProperty(name: string, value: string): string | undefined {
  if (name.length === 0) return 'property name is empty';
  if (value.length === 0) return `property ${name} has an empty value (it would be dropped on the wire)`;
  if (containsSeparator(name)) return `property name ${JSON.stringify(name)} contains U+0001 or U+0002`;
  if (containsSeparator(value)) return `property ${name} value contains U+0001 or U+0002`;
  if (isSystemPropertyName(name)) return `The Property<${name}> is used by system, input another please`;
  return undefined;
}

/** Java `Validators.checkMessage` body rules: present, non-empty, at most `maxSize` bytes. */
export function checkBody(
  body: Uint8Array | undefined,
  maxSize = DEFAULT_MAX_MESSAGE_SIZE,
): string | undefined {
  if (body === undefined || body === null) return 'the message body is null';
  if (body.length === 0) return 'the message body length is zero';
  if (body.length > maxSize) return `the message body size over max value, MAX: ${maxSize}`;
  return undefined;
}

/** Header fields that name a topic: checked as `checkTopic` checks a topic. */
const TOPIC_NAME_FIELDS: readonly string[] = ['topic'];
/** Header fields that name a group: checked as `checkGroup` checks a group. */
const GROUP_NAME_FIELDS: readonly string[] = ['group', 'consumerGroup', 'producerGroup', 'groupName'];

/**
 * The first topic or group name in a decoded request header that breaks the topic/group rules,
 * as `{ field, problem }`; undefined when every name present is legal. A server runs it on
 * every request before anything is stored or scheduled (docs/security.md §7): a name such as
 * `x/../../y` answers SUCCESS nowhere and never reaches a retry queue.
 */
export function checkNameFields(
  header: Readonly<Record<string, unknown>>,
): { field: string; problem: string } | undefined {
  for (const field of TOPIC_NAME_FIELDS) {
    const value = header[field];
    const problem = value === undefined ? undefined : checkTopic(value, field);
    if (problem !== undefined) return { field, problem };
  }
  for (const field of GROUP_NAME_FIELDS) {
    const value = header[field];
    const problem = value === undefined ? undefined : checkGroup(value, field);
    if (problem !== undefined) return { field, problem };
  }
  return undefined;
}
