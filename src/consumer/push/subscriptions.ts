/**
 * The push consumer's subscriptions: one per wire topic (the retry topic `%RETRY%<group>` added
 * at start in CLUSTERING), what heartbeats send and what pulls carry, and the warnings about
 * filters that differ within the group (docs/consumers.md §1.10: the broker keeps the last heartbeat's).
 */
import { InvalidArgumentError } from '../../errors.js';
import { withoutNamespace, wrapNamespace } from '../../client/namespace.js';
import type { Logger } from '../../observability/logger.js';
import type { SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { checkTopic, RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { subscriptionConflicts } from '../core/broker-queries.js';
import type { ConsumerClient } from '../core/client-port.js';
import {
  buildSubscriptionData,
  forgetGroupSubscriptions,
  noteGroupSubscription,
  sameFilter,
  type SubscriptionExpression,
} from '../core/subscription.js';
import type { ResolvedPushConsumerOptions } from './options.js';

export interface PushSubscription {
  userTopic: string;
  /** Sent in heartbeats; its subVersion moves first. */
  data: SubscriptionData;
  tags: ReadonlySet<string>;
  /** subVersion sent in pulls: moves once a heartbeat carried it. */
  pullVersion: number;
  /** When the topic was first subscribed (ms): where LAST_OFFSET starts (start-position.ts). */
  since?: number;
}

export class PushSubscriptions {
  private readonly subs = new Map<string, PushSubscription>();

  constructor(
    private readonly options: Readonly<ResolvedPushConsumerOptions>,
    private readonly wireGroup: string,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.subs.size;
  }

  get(wireTopic: string): PushSubscription | undefined {
    return this.subs.get(wireTopic);
  }

  has(wireTopic: string): boolean {
    return this.subs.has(wireTopic);
  }

  /** Wire topic names. */
  topics(): string[] {
    return [...this.subs.keys()];
  }

  datas(): SubscriptionData[] {
    return [...this.subs.values()].map((s) => s.data);
  }

  /** Checks and stores a subscription; warns when it replaces another or differs from another member's. */
  add(topic: string, expression: SubscriptionExpression): { data: SubscriptionData; replaced: boolean } {
    const problem = checkTopic(topic, 'topic');
    if (problem !== undefined) throw new InvalidArgumentError('topic', problem);
    if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      throw new InvalidArgumentError('topic', 'retry topics are subscribed automatically');
    const wire = wrapNamespace(this.options.namespace, topic);
    const data = buildSubscriptionData(wire, expression);
    const previous = this.subs.get(wire);
    if (previous !== undefined && !sameFilter(previous.data, data))
      this.logger.warn('subscription of the topic replaced', {
        topic,
        from: previous.data.subString,
        to: data.subString,
      });
    if (previous !== undefined) forgetGroupSubscriptions(this.wireGroup, [previous.data]);
    const other = noteGroupSubscription(this.wireGroup, data);
    if (other !== undefined)
      this.logger.warn(
        'another consumer of this group subscribes the topic with a different expression: the broker keeps only the last heartbeat’s, so messages may be lost',
        { group: this.options.consumerGroup, topic, mine: data.subString, other: other.subString },
      );
    this.subs.set(wire, {
      userTopic: topic,
      data,
      tags: new Set(data.tagsSet),
      pullVersion: data.subVersion,
      since: previous?.since ?? Date.now(),
    });
    return { data, replaced: previous !== undefined };
  }

  /** CLUSTERING: the group's retry topic, read with '*'. */
  addRetryTopic(): void {
    this.setRetryTopic(RETRY_GROUP_TOPIC_PREFIX + this.wireGroup, true);
  }

  /**
   * Broker-assigned consumers (Java `updateMessageQueueAssignment`): a topic consumed by pull also
   * reads its POP retry topic `%RETRY%<group>_<topic>` with '*', so what POP left there is not
   * stranded; a topic consumed by POP drops it (the broker's POP reads it). True when it changed.
   */
  setRetryTopic(retryTopic: string, subscribed: boolean): boolean {
    if (!subscribed) return this.subs.delete(retryTopic);
    if (this.subs.has(retryTopic)) return false;
    const data = buildSubscriptionData(retryTopic, '*');
    this.subs.set(retryTopic, { userTopic: retryTopic, data, tags: new Set(), pullVersion: data.subVersion });
    return true;
  }

  /** Shutdown: this process no longer counts these filters as the group's. */
  forgetAll(): void {
    forgetGroupSubscriptions(this.wireGroup, this.datas());
  }

  /** Before our heartbeat replaces them: the broker's different filters of `mine` (docs/consumers.md §1.10). */
  async warnOnGroupConflicts(client: ConsumerClient, mine: readonly SubscriptionData[]): Promise<void> {
    const o = this.options;
    for (const { data, kept } of await subscriptionConflicts(
      client,
      this.wireGroup,
      mine,
      o.mqClientApiTimeout,
    ))
      this.logger.warn(
        'the broker keeps another member’s subscription of the topic with a different expression; the last heartbeat wins, so members lose messages: subscribe every member the same way',
        {
          group: o.consumerGroup,
          topic: withoutNamespace(data.topic, o.namespace),
          mine: data.subString,
          broker: kept.subString,
        },
      );
  }
}
