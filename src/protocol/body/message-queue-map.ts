/**
 * `MessageQueue` JSON and fastjson's `Map<MessageQueue, V>` (docs/protocol.md §10.4). fastjson
 * writes such a map with each key as a bare JSON object, which is not valid JSON:
 * `{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5}}`. Bodies that carry one:
 * ResetOffsetBody, ConsumeStats, TopicStatsTable, GetConsumerStatusBody, ConsumerRunningInfo.mqTable
 * and the broadcasting consumer's local `offsets.json`.
 *
 * The encoder writes fastjson's bytes: key fields sorted (brokerName, queueId, topic) and, because
 * the Java map is a HashMap whose order no peer relies on, entries in `MessageQueue.compareTo`
 * order so the output is stable. The decoder accepts what `parseFastjson` makes of such a map (a
 * `Map` with object keys), an empty `{}`, and a plain object whose keys are MessageQueue JSON
 * strings (a writer that quoted the keys).
 */
import { ProtocolError } from '../../errors.js';
import { parseFastjson } from '../fastjson.js';
import { expectObject, jsonNumber, jsonString } from '../headers/fields.js';

/** Java `MessageQueue`. */
export interface MessageQueueData {
  topic: string;
  brokerName: string;
  queueId: number;
}

/** One decoded map entry: the queue and its value. */
export interface MessageQueueMapEntry<V> {
  readonly mq: MessageQueueData;
  readonly value: V;
}

/**
 * A string identity for a queue, for use as a JS `Map` key: `topic@brokerName@queueId`. Topic
 * names cannot contain `@` (`^[%|a-zA-Z0-9_-]+$`) and the queue id is a number, so the first and
 * last `@` split it back unambiguously.
 */
export function mqKey(mq: Readonly<MessageQueueData>): string {
  return `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
}

/** Java `MessageQueue.compareTo`: topic, then brokerName, then queueId. */
export function compareMessageQueues(a: Readonly<MessageQueueData>, b: Readonly<MessageQueueData>): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  return a.queueId - b.queueId;
}

/** fastjson's text of a MessageQueue: `{"brokerName":"b","queueId":0,"topic":"T"}`. */
export function encodeMessageQueueJson(mq: Readonly<MessageQueueData>): string {
  return `{"brokerName":${JSON.stringify(mq.brokerName)},"queueId":${mq.queueId},"topic":${JSON.stringify(mq.topic)}}`;
}

/** A MessageQueue from parsed JSON; absent names read as `''` like Java's null-tolerant getters. */
export function parseMessageQueue(value: unknown, what = 'MessageQueue'): MessageQueueData {
  const o = expectObject(value, what);
  return {
    topic: jsonString(o.topic, `${what}.topic`, ''),
    brokerName: jsonString(o.brokerName, `${what}.brokerName`, ''),
    queueId: jsonNumber(o.queueId, `${what}.queueId`),
  };
}

/**
 * fastjson's text of a `Map<MessageQueue, V>`: `{{mq}:value,…}` in `compareMessageQueues` order.
 * `encodeValue` returns each value's JSON text (default `JSON.stringify`, right for longs and for
 * objects whose keys the caller already sorted).
 */
export function encodeMessageQueueMap<V>(
  entries: Iterable<readonly [Readonly<MessageQueueData>, V]>,
  encodeValue: (value: V) => string = (v) => JSON.stringify(v),
): string {
  const sorted = [...entries].sort((a, b) => compareMessageQueues(a[0], b[0]));
  return `{${sorted.map(([mq, v]) => `${encodeMessageQueueJson(mq)}:${encodeValue(v)}`).join(',')}}`;
}

/**
 * Reads a `Map<MessageQueue, V>` field of a body parsed by `parseFastjson`. `null`/absent reads as
 * an empty map. Returns `mqKey(mq)` → {mq, value}; a later duplicate queue replaces an earlier one.
 * Throws ProtocolError naming `what` on a malformed key or value.
 */
export function decodeMessageQueueMap<V>(
  raw: unknown,
  decodeValue: (value: unknown, what: string) => V,
  what = 'offsetTable',
): Map<string, MessageQueueMapEntry<V>> {
  const out = new Map<string, MessageQueueMapEntry<V>>();
  if (raw === undefined || raw === null) return out;
  let pairs: Iterable<[unknown, unknown]>;
  if (raw instanceof Map) pairs = raw as Map<unknown, unknown>;
  else pairs = Object.entries(expectObject(raw, what)).map(([k, v]) => [parseQuotedKey(k, what), v]);
  for (const [k, v] of pairs) {
    const mq = parseMessageQueue(k, `${what} key`);
    const key = mqKey(mq);
    out.set(key, { mq, value: decodeValue(v, `${what}[${key}]`) });
  }
  return out;
}

function parseQuotedKey(key: string, what: string): unknown {
  try {
    return parseFastjson(key);
  } catch (err) {
    throw new ProtocolError(`${what} key is not a MessageQueue: ${key}`, { cause: err });
  }
}

/** `decodeValue` for maps of Java longs (offsets). */
export function decodeLongValue(value: unknown, what: string): number {
  return jsonNumber(value, what);
}
