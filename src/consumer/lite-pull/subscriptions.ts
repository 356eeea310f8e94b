/**
 * The lite pull consumer's subscriptions: the topics `subscribe()` named (sent in heartbeats and
 * rebalanced in the group) and, in assign mode, a read-everything subscription per topic (Java
 * uses SUB_ALL there and sends none in heartbeats). Every pull carries its topic's entry.
 */
import { InvalidArgumentError } from '../../errors.js';
import { wrapNamespace } from '../../client/namespace.js';
import type { MessageQueue } from '../../client/route.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import type { SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { checkTopic, RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { buildSubscriptionData, type SubscriptionExpression } from '../core/subscription.js';

export interface LiteSubscription {
  data: SubscriptionData;
  tags: ReadonlySet<string>;
  /** Java sends 0 for TAG expressions: the broker builds the filter from the pull itself. */
  pullVersion: number;
  /** When the topic was subscribed (ms): where a LAST_OFFSET start begins (start-position.ts). */
  since: number;
}

function liteSubscription(wireTopic: string, expression: SubscriptionExpression): LiteSubscription {
  const data = buildSubscriptionData(wireTopic, expression);
  return {
    data,
    tags: new Set(data.tagsSet),
    pullVersion: data.expressionType === 'TAG' ? 0 : data.subVersion,
    since: Date.now(),
  };
}

export class LiteSubscriptions {
  private readonly subscribed = new Map<string, LiteSubscription>();
  private readonly readAll = new Map<string, LiteSubscription>();
  /** Assign mode: when each topic was first assigned (ms). */
  private readonly assignedAt = new Map<string, number>();

  constructor(private readonly namespace: string | undefined) {}

  /** Checks `topic` and builds its subscription (InvalidArgumentError on bad input); `add` stores it. */
  build(topic: string, expression: SubscriptionExpression): { wireTopic: string; sub: LiteSubscription } {
    const problem = checkTopic(topic, 'topic');
    if (problem !== undefined) throw new InvalidArgumentError('topic', problem);
    if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      throw new InvalidArgumentError('topic', 'a lite pull consumer does not read retry topics');
    const wireTopic = wrapNamespace(this.namespace, topic);
    return { wireTopic, sub: liteSubscription(wireTopic, expression) };
  }

  add(wireTopic: string, sub: LiteSubscription): void {
    // Subscribing again changes the filter, not when the consumer started to want the topic.
    const since = this.subscribed.get(wireTopic)?.since ?? sub.since;
    this.subscribed.set(wireTopic, { ...sub, since });
  }

  /** Assign mode: notes when the topics of `queues` (wire names) were first assigned. */
  assigned(queues: Iterable<MessageQueue>): void {
    const now = Date.now();
    for (const mq of queues) if (!this.assignedAt.has(mq.topic)) this.assignedAt.set(mq.topic, now);
  }

  /** When `topic` (wire name) was subscribed or first assigned. */
  since(topic: string): number | undefined {
    return this.subscribed.get(topic)?.since ?? this.assignedAt.get(topic);
  }

  /** Wire names of the subscribed topics. */
  topics(): string[] {
    return [...this.subscribed.keys()];
  }

  /** What heartbeats and running info report. */
  datas(): SubscriptionData[] {
    return [...this.subscribed.values()].map((s) => s.data);
  }

  /** The subscription a pull of `topic` carries: the subscribed one, or read-all in assign mode. */
  forPull(topic: string, assignMode: boolean): LiteSubscription | undefined {
    if (!assignMode) return this.subscribed.get(topic);
    let all = this.readAll.get(topic);
    if (all === undefined) this.readAll.set(topic, (all = liteSubscription(topic, '*')));
    return all;
  }
}

/**
 * `mq` (wire name) when it is in `held` (the assigned queues, or the queue table in subscribe
 * mode); InvalidArgumentError naming `field` otherwise. As Java's `assignedMessageQueue`, an
 * assigned queue is held from `assign()` on, before its pull loop found where to start, so a
 * seek right after `assign()` works (and wins over the start offset still being computed).
 */
export function heldQueue(
  mq: MessageQueue,
  held: ReadonlyMap<string, unknown> | undefined,
  field: string,
): MessageQueue {
  if (held?.has(mqKey(mq)) !== true)
    throw new InvalidArgumentError(
      field,
      `${mq.topic}@${mq.brokerName}:${mq.queueId} is not assigned to this consumer`,
    );
  return mq;
}
