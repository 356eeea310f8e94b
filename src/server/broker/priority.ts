/**
 * [5.4+] Priority messages on the embedded broker, as Java 5.5.0's broker does them
 * (docs/protocol.md §13.3):
 * - placement (`SendMessageProcessor`): a single message with a priority property whose type by
 *   its properties is PRIORITY (not transactional, delayed or grouped) is stored in queue
 *   `min(priority, writeQueueNums − 1)`; one of another type loses the property. Like Java this
 *   reads the message, not the topic's `message.type`, so a typed topic and an untyped one place
 *   it alike;
 * - POP order (`PopMessageProcessor#popMsgFromTopic`): a pop of every queue reads the queues from
 *   the highest id down (`priorityOrderAsc`, Java's default: a higher queue is a higher
 *   priority), starting at a random queue, except on a PRIORITY topic in "priority mode" — a
 *   non-orderly pop in `priority.factor` % of requests (group attribute, 0–100, default 100) —
 *   which always starts at the highest queue and reads the retry topic only after the queues
 *   (`popFromRetryProbabilityForPriority` 0 instead of `popFromRetryProbability` 20).
 */
import { MESSAGE_TYPE_ATTRIBUTE, messageTypeOf } from '../../protocol/message/message-type.js';
import { decodeProperties, encodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { priorityOf } from '../../protocol/message/priority.js';
import type { TopicConfig } from '../../protocol/headers/register.js';

/** Java `SubscriptionGroupAttributes.PRIORITY_FACTOR_ATTRIBUTE`: its name, range and default. */
export const PRIORITY_FACTOR_ATTRIBUTE = 'priority.factor';
const PRIORITY_FACTOR_MAX = 100;

/** Java `BrokerConfig.popFromRetryProbability` and `popFromRetryProbabilityForPriority` (percent). */
const POP_FROM_RETRY_PROBABILITY = 20;
const POP_FROM_RETRY_PROBABILITY_FOR_PRIORITY = 0;

/**
 * The queue a single message is stored in by its priority, or undefined to keep the producer's
 * choice; a message of another type loses the property (`header.properties` is rewritten).
 * Messages without the property (nearly all) cost one substring search.
 */
export function placeByPriority(
  header: { properties?: string | undefined },
  config: TopicConfig,
): number | undefined {
  const text = header.properties;
  if (text === undefined || !text.includes(PropertyKey.PRIORITY)) return undefined;
  const props = decodeProperties(text);
  const priority = priorityOf(props[PropertyKey.PRIORITY]);
  if (priority === undefined) return undefined;
  if (messageTypeOf((name) => props[name]) !== 'PRIORITY') {
    delete props[PropertyKey.PRIORITY];
    header.properties = encodeProperties(props);
    return undefined;
  }
  return Math.min(priority, Math.max(0, config.writeQueueNums - 1));
}

/**
 * The topic's `message.type` attribute. Read through this accessor because attribute storage is
 * another part's work (topic-config-manager.ts); an untyped topic has none.
 */
function topicMessageType(config: TopicConfig): string | undefined {
  return config.attributes?.[MESSAGE_TYPE_ATTRIBUTE];
}

/** The group's `priority.factor` attribute (Java: a long in [0, 100], default 100). */
function priorityFactor(group: unknown): number {
  const attributes = (group as { attributes?: Record<string, string> } | undefined)?.attributes;
  const value = Number(attributes?.[PRIORITY_FACTOR_ATTRIBUTE] ?? PRIORITY_FACTOR_MAX);
  return Number.isInteger(value) && value >= 0 && value <= PRIORITY_FACTOR_MAX ? value : PRIORITY_FACTOR_MAX;
}

/** How one POP of every queue reads a topic. */
export interface PopPlan {
  /** Read the retry topic before the topic's queues (else after, when there is room left). */
  retryFirst: boolean;
  /** Queue ids in reading order. */
  queueIds: number[];
}

/**
 * Java's reading order for a POP of `config`'s queues by a group (its SubscriptionGroupConfig,
 * if any); `random` gives Java's `random.nextInt(100)` (a parameter so tests can pin it).
 */
export function popPlan(
  config: TopicConfig,
  group: unknown,
  order: boolean,
  readQueueNums: number,
  random: () => number = () => Math.floor(Math.random() * 100),
  priorityOrderAsc = true,
): PopPlan {
  const r = random();
  const priorityMode = topicMessageType(config) === 'PRIORITY' && !order && r < priorityFactor(group);
  const retryFirst =
    r < (priorityMode ? POP_FROM_RETRY_PROBABILITY_FOR_PRIORITY : POP_FROM_RETRY_PROBABILITY);
  const start = priorityMode ? 0 : r;
  const queueIds: number[] = [];
  // priorityOrderAsc: the highest queue first; off, the lowest (Java's index, then + start).
  for (let i = 0; i < readQueueNums; i++)
    queueIds.push(((priorityOrderAsc ? readQueueNums - 1 - i : i) + start) % readQueueNums);
  return { retryFirst, queueIds };
}
