/**
 * [5.x] Topic message types (docs/protocol.md §13.2): the topic attribute `message.type` and the
 * type a message has by its properties, in the order Java's `TopicMessageType.parseFromMessageProperty`
 * tests them, so a message is exactly one type. The embedded broker's check and the client's
 * reading of a refusal both use this file, so the remark they agree on has one home.
 */
import { PropertyKey } from './properties.js';

/** Values of the `message.type` topic attribute (MIXED accepts every type). */
export const TOPIC_MESSAGE_TYPES = [
  'UNSPECIFIED',
  'NORMAL',
  'FIFO',
  'DELAY',
  'TRANSACTION',
  'PRIORITY',
  'LITE',
  'MIXED',
] as const;
export type TopicMessageType = (typeof TOPIC_MESSAGE_TYPES)[number];

/** Name of the topic attribute that carries the type. */
export const MESSAGE_TYPE_ATTRIBUTE = 'message.type';

/** A topic with no `message.type` attribute is NORMAL (the attribute's default). */
export const DEFAULT_TOPIC_MESSAGE_TYPE: TopicMessageType = 'NORMAL';

export function isTopicMessageType(value: unknown): value is TopicMessageType {
  return typeof value === 'string' && (TOPIC_MESSAGE_TYPES as readonly string[]).includes(value);
}

/** The type a message has by its properties (transaction, then delay/timer, FIFO, priority, lite). */
export function messageTypeOf(
  property: (name: string) => string | undefined,
): Exclude<TopicMessageType, 'UNSPECIFIED' | 'MIXED'> {
  if (property(PropertyKey.TRAN_MSG) === 'true') return 'TRANSACTION';
  if (
    property(PropertyKey.DELAY) !== undefined ||
    property(PropertyKey.TIMER_DELIVER_MS) !== undefined ||
    property(PropertyKey.TIMER_DELAY_SEC) !== undefined ||
    property(PropertyKey.TIMER_DELAY_MS) !== undefined
  )
    return 'DELAY';
  if (property(PropertyKey.SHARDING_KEY) !== undefined) return 'FIFO';
  if (property(PropertyKey.PRIORITY) !== undefined) return 'PRIORITY';
  if (property(PropertyKey.LITE_TOPIC) !== undefined) return 'LITE';
  return 'NORMAL';
}

/** True when a topic of type `expected` accepts a message of type `actual` (the Proxy's rule). */
export function messageTypeAccepted(expected: TopicMessageType, actual: TopicMessageType): boolean {
  if (actual === 'UNSPECIFIED') return false;
  return expected === 'MIXED' || expected === actual;
}

/** The remark a 5.x Proxy (and our broker, with the check on) sends with MESSAGE_ILLEGAL. */
export function messageTypeMismatchRemark(expected: TopicMessageType, actual: TopicMessageType): string {
  return `TopicMessageType validate failed, the expected type is ${expected}, but actual type is ${actual}`;
}

const MISMATCH_REMARK =
  /TopicMessageType validate failed, the expected type is (\w+), but actual type is (\w+)/;

/** The two types named in a mismatch remark, or undefined for any other remark. */
export function parseMessageTypeMismatch(
  remark: string | undefined,
): { expected: string; actual: string } | undefined {
  const m = remark === undefined ? null : MISMATCH_REMARK.exec(remark);
  return m?.[1] !== undefined && m[2] !== undefined ? { expected: m[1], actual: m[2] } : undefined;
}
