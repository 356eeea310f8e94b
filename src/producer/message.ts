/**
 * The user's message and its validation + preparation for the wire, done once per send before
 * any I/O. The caller's object is never mutated: compression, namespaces and UNIQ_KEY live in the
 * `PreparedMessage`.
 */
import { InvalidArgumentError } from '../errors.js';
import { wrapNamespace } from '../client/namespace.js';
import { encodeBatch } from '../protocol/message/batch.js';
import { COMPRESSED_SYSFLAG, compressWith } from '../protocol/message/compression.js';
import type { CompressionType } from '../protocol/message/sysflag.js';
import type { UniqIdGenerator } from '../protocol/message/message-id.js';
import { batchLane, type BatchLane } from './auto-batch.js';
import { timerProperty } from './timer.js';
import { checkMessageGroup, checkOneMessageType, checkPriority, CONTROL } from './group-priority.js';
import { checkBoolean, checkInt, keyList, rejectUnknownKeys } from '../options.js';
import {
  appendProperty,
  containsSeparator,
  NAME_VALUE_SEPARATOR,
  PropertyKey,
} from '../protocol/message/properties.js';
import {
  checkSendTopic,
  checkUserProperty,
  RETRY_GROUP_TOPIC_PREFIX,
  TOPIC_MAX_LENGTH,
} from '../protocol/validation.js';

export interface Message {
  topic: string;
  body: Buffer | Uint8Array | string;
  tags?: string | undefined;
  /** One key or several; several go on the wire joined by a space. */
  keys?: string | readonly string[] | undefined;
  /** User properties; system names (KEYS, TAGS, UNIQ_KEY, ...) are rejected. */
  properties?: Readonly<Record<string, string>> | undefined;
  /** Delay level 1..18 of the broker's default `messageDelayLevel`; 0 or absent = none. */
  delayTimeLevel?: number | undefined;
  /**
   * [5.x] Deliver at this time (epoch ms or a Date): TIMER_DELIVER_MS. At most 3 days ahead
   * (the broker's `timerMaxDelaySec`). A 4.9 broker rejects the send (TimerNotSupportedError).
   */
  deliverAt?: number | Date | undefined;
  /** [5.x] Deliver this many ms after the broker stores it: TIMER_DELAY_MS. Same limits as `deliverAt`. */
  deliverAfterMs?: number | undefined;
  /** WAIT property: the broker answers after the store (and flush, if sync) completes. @default true */
  waitStoreMsgOK?: boolean | undefined;
  /** User int, stored with the message. @default 0 */
  flag?: number | undefined;
  /**
   * [5.x] Message group (FIFO, property `__SHARDINGKEY`): the send goes to the queue the group
   * hashes to, as the per-send `shardingKey` option (Java's `SelectMessageQueueByHash`), so one
   * group's messages keep their order. Not blank, no control characters, under 64 UTF-8 bytes;
   * never with `priority`, a delay, a timer or a transaction (docs/producer.md §5.1).
   */
  messageGroup?: string | undefined;
  /**
   * [5.4+] Priority (property `_SYS_MSG_PRIORITY_`), an integer ≥ 0: on a PRIORITY topic the
   * broker stores it in queue `min(priority, writeQueueNums − 1)` and POP consumers get higher
   * queues first. Never with `messageGroup`, a delay, a timer or a transaction (docs/producer.md §5.2).
   */
  priority?: number | undefined;
  /**
   * The message's id (UNIQ_KEY) when it is a stored message sent again: Java's producer keeps the
   * UNIQ_KEY a message already has (mqadmin `queryMsgById -s` resends a message under its own
   * msgId, so consumers can tell the copy for what it is). Absent: a new id, as always. Not
   * blank, no control characters, at most 128 characters.
   */
  msgId?: string | undefined;
}

/** What the request builder needs; built once per send and shared by every attempt. */
export interface PreparedMessage {
  /** Topic on the wire (namespace applied). */
  readonly topic: string;
  /** Topic as the caller wrote it (reported in SendResult). */
  readonly userTopic: string;
  readonly body: Uint8Array;
  readonly sysFlag: number;
  readonly flag: number;
  /** Encoded properties string (§4.1). */
  readonly properties: string;
  /**
   * `properties` up to the UNIQ_KEY value (`properties === propertiesHead + msgId`), set by
   * prepareMessage so a batch record copies the head's bytes once per batch and the id as
   * ASCII. Absent (and to be cleared by whoever rewrites `properties`): `properties` is written.
   */
  readonly propertiesHead?: string | undefined;
  /** `msgId` is `msgIdHead` + 4 uppercase hex digits of `msgIdCounter` (with `propertiesHead`). */
  readonly msgIdHead?: string | undefined;
  readonly msgIdCounter?: number | undefined;
  /** UNIQ_KEY(s): comma-joined for a batch. */
  readonly msgId: string;
  readonly batch: boolean;
  /** Message count (1, or the batch size). */
  readonly count: number;
  /** Epoch ms a timer message is due (deliverAt / deliverAfterMs); absent for others. */
  readonly deliverAt?: number | undefined;
  /**
   * How autoBatch may send it, set by prepareMessage, which knows every property it wrote.
   * Absent (and to be cleared by whoever rewrites `properties`): judged from the properties.
   */
  readonly batchLane?: BatchLane | undefined;
}

export interface PrepareSettings {
  maxMessageSize: number;
  compressMsgBodyOverHowmuch: number;
  compressLevel: number;
  /** @default 'ZLIB' */
  compressType?: CompressionType | undefined;
  namespace: string | undefined;
  /**
   * Topics already checked, with their wire names: most sends go to a few topics, and checking
   * the name each time cost as much as encoding the message. Emptied when it grows past
   * {@link CHECKED_TOPICS_MAX}.
   */
  checkedTopics?: Map<string, string> | undefined;
  /**
   * The topic checked last and its wire name (with `checkedTopics`): most sends go to the topic
   * of the send before, and comparing costs less than the map's lookup.
   */
  lastTopic?: string | undefined;
  lastWireTopic?: string | undefined;
}

/** Topics a producer remembers as checked before it starts over. */
export const CHECKED_TOPICS_MAX = 1024;

/** Properties longer than this cannot be stored (int16 length). */
export const MAX_PROPERTIES_LENGTH = 32767;

/** Highest delay level: the broker's default `messageDelayLevel` has 18 (1s … 2h). */
export const MAX_DELAY_LEVEL = 18;

/** Every Message field: anything else (`tag`, `delay`) is a typo and throws, naming the closest. */
export const MESSAGE_FIELD_NAMES = keyList<Message>({
  topic: true,
  body: true,
  tags: true,
  keys: true,
  properties: true,
  delayTimeLevel: true,
  deliverAt: true,
  deliverAfterMs: true,
  waitStoreMsgOK: true,
  flag: true,
  messageGroup: true,
  priority: true,
  msgId: true,
});

function bodyBytes(body: unknown, field: string): Uint8Array {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  throw new InvalidArgumentError(field, 'must be a Buffer, Uint8Array or string');
}

/** `checkTopicField` for a send's topic, remembered per producer. */
function checkedTopic(topic: unknown, s: PrepareSettings): string {
  const cache = s.checkedTopics;
  if (cache === undefined || typeof topic !== 'string') return checkTopicField(topic, 'topic', s.namespace);
  if (topic === s.lastTopic) return s.lastWireTopic as string;
  let wire = cache.get(topic);
  if (wire === undefined) {
    wire = checkTopicField(topic, 'topic', s.namespace);
    if (cache.size >= CHECKED_TOPICS_MAX) cache.clear();
    cache.set(topic, wire);
  }
  s.lastTopic = topic;
  s.lastWireTopic = wire;
  return wire;
}

function checkTopicField(topic: unknown, field: string, namespace: string | undefined): string {
  const problem = checkSendTopic(topic, field);
  if (problem !== undefined) throw new InvalidArgumentError(field, problem);
  const wire = wrapNamespace(namespace, topic as string);
  if (wire.length > TOPIC_MAX_LENGTH) {
    throw new InvalidArgumentError(
      field,
      `with namespace "${wire}" is longer than ${TOPIC_MAX_LENGTH} characters`,
    );
  }
  return wire;
}

const WAIT_TRUE = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'true';
const WAIT_FALSE = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'false';

/** `properties` with the UNIQ_KEY name appended, its value left for the id. */
function uniqKeyHead(properties: string): string {
  return appendProperty(properties, PropertyKey.UNIQ_KEY, '');
}
const WAIT_TRUE_HEAD = uniqKeyHead(WAIT_TRUE);
const WAIT_FALSE_HEAD = uniqKeyHead(WAIT_FALSE);

/**
 * The propagator's fields for one message's span (`traceparent`, `tracestate`; send-telemetry.ts),
 * written after the user properties (empty ones are not written). A user property of the same
 * name is left out: with propagation on, the producer's context wins (docs/observability.md §1.2).
 */
export type TraceFields = Readonly<Record<string, string>>;

/** Validates every field but topic/body and returns the properties string (without UNIQ_KEY). */
function encodeMessageProperties(msg: Message, field: string, trace: TraceFields | undefined): string {
  // Most messages carry none of these: WAIT alone, as a constant.
  if (
    trace === undefined &&
    msg.keys === undefined &&
    msg.tags === undefined &&
    (msg.delayTimeLevel === undefined || msg.delayTimeLevel === 0) &&
    msg.properties === undefined &&
    msg.messageGroup === undefined &&
    msg.priority === undefined
  ) {
    return checkBoolean(`${field}waitStoreMsgOK`, msg.waitStoreMsgOK ?? true) ? WAIT_TRUE : WAIT_FALSE;
  }
  let props = '';
  if (msg.keys !== undefined) {
    const list = typeof msg.keys === 'string' ? [msg.keys] : msg.keys;
    if (!Array.isArray(list))
      throw new InvalidArgumentError(`${field}keys`, 'must be a string or an array of strings');
    for (const k of list as unknown[]) {
      if (typeof k !== 'string' || k.length === 0)
        throw new InvalidArgumentError(`${field}keys`, 'every key must be a non-empty string');
      if (containsSeparator(k))
        throw new InvalidArgumentError(`${field}keys`, 'a key contains U+0001 or U+0002');
    }
    if (list.length > 0) props = appendProperty(props, PropertyKey.KEYS, list.join(' '));
  }
  if (msg.tags !== undefined) {
    if (typeof msg.tags !== 'string') throw new InvalidArgumentError(`${field}tags`, 'must be a string');
    if (containsSeparator(msg.tags))
      throw new InvalidArgumentError(`${field}tags`, 'contains U+0001 or U+0002');
    if (msg.tags.length > 0) props = appendProperty(props, PropertyKey.TAGS, msg.tags);
  }
  const wait = checkBoolean(`${field}waitStoreMsgOK`, msg.waitStoreMsgOK ?? true);
  props = appendProperty(props, PropertyKey.WAIT, wait ? 'true' : 'false');
  if (msg.delayTimeLevel !== undefined && msg.delayTimeLevel !== 0) {
    const d = checkInt(`${field}delayTimeLevel`, msg.delayTimeLevel, 1, MAX_DELAY_LEVEL);
    props = appendProperty(props, PropertyKey.DELAY, String(d));
  }
  if (msg.messageGroup !== undefined) {
    const group = checkMessageGroup(msg.messageGroup, `${field}messageGroup`);
    props = appendProperty(props, PropertyKey.SHARDING_KEY, group);
  }
  if (msg.priority !== undefined) {
    const priority = checkPriority(msg.priority, `${field}priority`);
    props = appendProperty(props, PropertyKey.PRIORITY, String(priority));
  }
  checkOneMessageType(msg, msg.messageGroup === undefined ? undefined : 'messageGroup', field);
  if (msg.properties !== undefined) {
    if (msg.properties === null || typeof msg.properties !== 'object') {
      throw new InvalidArgumentError(`${field}properties`, 'must be an object of string values');
    }
    for (const [name, value] of Object.entries(msg.properties)) {
      if (typeof value !== 'string')
        throw new InvalidArgumentError(`${field}properties.${name}`, 'value must be a string');
      const problem = checkUserProperty(name, value);
      if (problem !== undefined) throw new InvalidArgumentError(`${field}properties.${name}`, problem);
      // Java lets a user property set it; here the group has one way in, with its checks.
      if (name === PropertyKey.SHARDING_KEY)
        throw new InvalidArgumentError(`${field}properties.${name}`, 'set messageGroup instead');
      if (trace !== undefined && Object.hasOwn(trace, name)) continue;
      props = appendProperty(props, name, value);
    }
  }
  if (trace !== undefined) {
    for (const name in trace) {
      const value = trace[name] as string;
      // Empty: a field the propagator owns but did not write (it only hides the app's value).
      // An application's propagator could write anything: a field the wire cannot carry is
      // dropped, not the send.
      if (checkUserProperty(name, value) === undefined) props = appendProperty(props, name, value);
    }
  }
  return props;
}

/** A caller's msgId (Message.msgId): the UNIQ_KEY value as written. */
function checkMsgId(id: unknown, field: string): string {
  if (typeof id !== 'string' || id.trim() === '' || id.length > 128 || CONTROL.test(id) || id.includes(','))
    throw new InvalidArgumentError(
      field,
      'must be a non-blank string of at most 128 characters, without control characters or commas',
    );
  return id;
}

function checkFlag(flag: unknown, field: string): number {
  return flag === undefined ? 0 : checkInt(field, flag, -0x80000000, 0x7fffffff);
}

/** An object with known fields only; `prefix` names its place in a batch (`messages[2].`). */
function checkShape(msg: unknown, field: string, prefix = ''): asserts msg is Message {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
    throw new InvalidArgumentError(field, 'must be an object');
  rejectUnknownKeys(msg, MESSAGE_FIELD_NAMES, 'message field', prefix);
}

/** Validates and prepares one message (Java `Validators.checkMessage` + `sendKernelImpl` preparation). */
export function prepareMessage(
  msg: Message,
  s: PrepareSettings,
  ids: UniqIdGenerator,
  trace?: TraceFields,
): PreparedMessage {
  checkShape(msg, 'message');
  const topic = checkedTopic(msg.topic, s);
  const raw = bodyBytes(msg.body, 'body');
  // `length`, not `byteLength`: equal for a Uint8Array, and V8 11 (Node 20) inlines only `length`
  // in optimized code (`byteLength` is an inline-cache miss and a getter call, ~6 ns each time).
  const bodyLen = raw.length;
  if (bodyLen === 0) throw new InvalidArgumentError('body', 'is empty');
  if (bodyLen > s.maxMessageSize) {
    throw new InvalidArgumentError('body', `${bodyLen} bytes exceeds maxMessageSize ${s.maxMessageSize}`);
  }
  const flag = checkFlag(msg.flag, 'flag');
  // Only a timer message needs the clock here.
  const timer =
    msg.deliverAt === undefined && msg.deliverAfterMs === undefined
      ? undefined
      : timerProperty(msg, '', Date.now());
  const ownId = msg.msgId === undefined ? undefined : checkMsgId(msg.msgId, 'msgId');
  const msgId = ownId ?? ids.next();
  let head = encodeMessageProperties(msg, '', trace);
  if (timer !== undefined) head = appendProperty(head, timer.key, timer.value);
  // The two plain heads are constants: a batch writer knows them by identity.
  head = head === WAIT_TRUE ? WAIT_TRUE_HEAD : head === WAIT_FALSE ? WAIT_FALSE_HEAD : uniqKeyHead(head);
  const properties = head + msgId;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: short properties need no count.
  if (
    properties.length * 3 > MAX_PROPERTIES_LENGTH &&
    Buffer.byteLength(properties, 'utf8') > MAX_PROPERTIES_LENGTH
  ) {
    throw new InvalidArgumentError('properties', `encoded properties exceed ${MAX_PROPERTIES_LENGTH} bytes`);
  }
  let body = raw;
  let sysFlag = 0;
  if (bodyLen >= s.compressMsgBodyOverHowmuch) {
    // Incompressible data grows when compressed; sending it raw keeps the stored body within
    // maxMessageSize, which is what the broker checks (docs/protocol.md §3.5).
    const type = s.compressType ?? 'ZLIB';
    const compressed = compressWith(type, raw, s.compressLevel);
    if (compressed.byteLength < raw.byteLength) {
      body = compressed;
      sysFlag |= COMPRESSED_SYSFLAG[type];
    }
  }
  const delayed = msg.delayTimeLevel !== undefined && msg.delayTimeLevel !== 0;
  const prepared = {
    topic,
    userTopic: msg.topic,
    body,
    sysFlag,
    flag,
    properties,
    propertiesHead: head,
    // a caller's own id is not the generator's head + counter
    msgIdHead: ownId === undefined ? ids.lastHead : undefined,
    msgIdCounter: ownId === undefined ? ids.lastCounter : undefined,
    msgId,
    batch: false,
    count: 1,
    // Validated above: WAIT is false exactly when waitStoreMsgOK is.
    batchLane: batchLane(
      topic,
      sysFlag,
      delayed || timer !== undefined || msg.messageGroup !== undefined || msg.priority !== undefined,
      msg.waitStoreMsgOK !== false,
    ),
  };
  return timer === undefined ? prepared : { ...prepared, deliverAt: timer.deliverAt };
}

/**
 * The batch request's own properties: WAIT, and the group of a grouped batch, which a 5.x Proxy
 * reads to type the batch (FIFO) before it looks inside.
 */
function batchProperties(wait: boolean, group: string | undefined): string {
  const props = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + (wait ? 'true' : 'false');
  return group === undefined ? props : appendProperty(props, PropertyKey.SHARDING_KEY, group);
}

/**
 * Validates and prepares a batch (Java `MessageBatch.generateFromList` + `batch()`): one topic,
 * one waitStoreMsgOK, no delay, no %RETRY% topic, never compressed, encoded size within
 * maxMessageSize. Each message gets its own UNIQ_KEY. Every message has the same `messageGroup`
 * or none (a batch goes to one queue); none has a `priority` (the broker places only single
 * messages by priority).
 */
export function prepareBatch(
  msgs: readonly Message[],
  s: PrepareSettings,
  ids: UniqIdGenerator,
  trace?: readonly (TraceFields | undefined)[],
): PreparedMessage {
  if (!Array.isArray(msgs) || msgs.length === 0)
    throw new InvalidArgumentError('messages', 'must be a non-empty array');
  const first = msgs[0] as Message;
  checkShape(first, 'messages[0]', 'messages[0].');
  const topic = checkTopicField(first.topic, 'messages[0].topic', s.namespace);
  if (first.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) {
    throw new InvalidArgumentError('messages[0].topic', 'retry topics are not supported in a batch');
  }
  const wait = first.waitStoreMsgOK ?? true;
  const entries = [];
  const idList: string[] = [];
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i] as Message;
    const f = `messages[${i}].`;
    checkShape(m, `messages[${i}]`, f);
    if (m.topic !== first.topic)
      throw new InvalidArgumentError(`${f}topic`, 'every message of a batch must have the same topic');
    if ((m.waitStoreMsgOK ?? true) !== wait) {
      throw new InvalidArgumentError(
        `${f}waitStoreMsgOK`,
        'every message of a batch must have the same waitStoreMsgOK',
      );
    }
    if (m.delayTimeLevel !== undefined && m.delayTimeLevel !== 0) {
      throw new InvalidArgumentError(`${f}delayTimeLevel`, 'delayed messages are not supported in a batch');
    }
    if (m.messageGroup !== first.messageGroup) {
      throw new InvalidArgumentError(
        `${f}messageGroup`,
        'every message of a batch must have the same messageGroup (or none)',
      );
    }
    if (m.priority !== undefined)
      throw new InvalidArgumentError(`${f}priority`, 'priority messages are not supported in a batch');
    if (m.deliverAt !== undefined || m.deliverAfterMs !== undefined) {
      const which = m.deliverAt !== undefined ? 'deliverAt' : 'deliverAfterMs';
      throw new InvalidArgumentError(`${f}${which}`, 'timer messages are not supported in a batch');
    }
    const body = bodyBytes(m.body, `${f}body`);
    if (body.byteLength === 0) throw new InvalidArgumentError(`${f}body`, 'is empty');
    const id = m.msgId === undefined ? ids.next() : checkMsgId(m.msgId, `${f}msgId`);
    idList.push(id);
    const properties = appendProperty(encodeMessageProperties(m, f, trace?.[i]), PropertyKey.UNIQ_KEY, id);
    if (Buffer.byteLength(properties, 'utf8') > MAX_PROPERTIES_LENGTH) {
      throw new InvalidArgumentError(
        `${f}properties`,
        `encoded properties exceed ${MAX_PROPERTIES_LENGTH} bytes`,
      );
    }
    entries.push({ body, flag: checkFlag(m.flag, `${f}flag`), properties });
  }
  const body = encodeBatch(entries);
  if (body.byteLength > s.maxMessageSize) {
    throw new InvalidArgumentError(
      'messages',
      `batch of ${body.byteLength} bytes exceeds maxMessageSize ${s.maxMessageSize}`,
    );
  }
  return {
    topic,
    userTopic: first.topic,
    body,
    sysFlag: 0,
    flag: 0,
    properties: batchProperties(wait, first.messageGroup),
    msgId: idList.join(','),
    batch: true,
    count: msgs.length,
  };
}
