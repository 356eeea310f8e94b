/**
 * A SimpleConsumer's membership of its group (docs/consumers.md §3.6): one heartbeat entry per
 * client instance and group (consumeType CONSUME_POP, as the 5.x Proxy heartbeats its
 * SimpleConsumers), so the broker lists the group online and relays GET_CONSUMER_RUNNING_INFO,
 * answered with Java 5's POP figures: `mqPopTable` (per queue, messages received and not acked:
 * `waitAckCount`, and `lastPopTimestamp`) and the usual properties. Several SimpleConsumers of one
 * group in one client share the entry; it leaves with the last of them.
 */
import type { ClientInstance } from '../../client/client-instance.js';
import type { HeartbeatContributor } from '../../client/heartbeat.js';
import {
  RunningInfoProperty,
  type ConsumerRunningInfoData,
  type PopProcessQueueInfoData,
} from '../../protocol/body/consumer-running-info.js';
import type { MessageQueueData } from '../../protocol/body/message-queue-map.js';
import {
  ConsumeFromWhere,
  ConsumeType,
  MessageModel,
  type SubscriptionData,
} from '../../protocol/headers/heartbeat.js';
import { registerConsumer, unregisterConsumer, type RegisteredPopConsumer } from '../push/broker-requests.js';
import type { HeldMessages } from './held.js';
import type { ResolvedSimpleConsumerOptions } from './options.js';

/** What the group entry reads of each SimpleConsumer in it. */
export interface PopMember {
  readonly options: Readonly<ResolvedSimpleConsumerOptions>;
  readonly held: HeldMessages;
  /** When its start() finished (ms). */
  startTimestamp(): number;
  /** The subscriptions on the wire (namespace applied). */
  subscriptionData(): SubscriptionData[];
}

class PopGroupEntry implements RegisteredPopConsumer {
  readonly kind = 'pop' as const;
  readonly members = new Set<PopMember>();
  readonly contributor: HeartbeatContributor = {
    consumerData: () => [
      {
        groupName: this.wireGroup,
        consumeType: ConsumeType.CONSUME_POP,
        messageModel: MessageModel.CLUSTERING,
        consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
        subscriptionDataSet: this.subscriptions(),
        unitMode: false,
      },
    ],
  };

  constructor(readonly wireGroup: string) {}

  private subscriptions(): SubscriptionData[] {
    const byTopic = new Map<string, SubscriptionData>();
    for (const m of this.members) for (const s of m.subscriptionData()) byTopic.set(s.topic, s);
    return [...byTopic.values()];
  }

  runningInfo(jstack: boolean): ConsumerRunningInfoData {
    const first = [...this.members][0];
    const properties: Record<string, string> = {};
    const queues = new Map<string, [MessageQueueData, PopProcessQueueInfoData]>();
    let inflight = 0;
    for (const m of this.members)
      for (const q of m.held.queues()) {
        const key = `${q.mq.topic}@${q.mq.brokerName}@${q.mq.queueId}`;
        const prior = queues.get(key)?.[1];
        inflight += q.waitAckCount;
        queues.set(key, [
          q.mq,
          {
            waitAckCount: (prior?.waitAckCount ?? 0) + q.waitAckCount,
            droped: false,
            lastPopTimestamp: Math.max(prior?.lastPopTimestamp ?? 0, q.lastPopTimestamp),
          },
        ]);
      }
    if (first !== undefined) {
      const o = first.options;
      for (const [k, v] of Object.entries(o))
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
          properties[k] = String(v);
      properties.namesrvAddr = o.namesrvAddr.join(';');
      properties[RunningInfoProperty.PROP_NAMESERVER_ADDR] = o.namesrvAddr.join(';');
      properties[RunningInfoProperty.PROP_CONSUME_ORDERLY] = String(o.fifo === true);
      properties[RunningInfoProperty.PROP_CONSUMER_START_TIMESTAMP] = String(first.startTimestamp());
    }
    properties[RunningInfoProperty.PROP_CONSUME_TYPE] = ConsumeType.CONSUME_POP;
    properties[RunningInfoProperty.PROP_CLIENT_VERSION] = 'V5_5_0';
    properties.simpleConsumers = String(this.members.size);
    properties.popInflight = String(inflight);
    return {
      properties,
      subscriptionSet: this.subscriptions(),
      mqTable: [],
      mqPopTable: [...queues.values()],
      statusTable: {},
      jstack: jstack ? `node ${process.version} pid ${process.pid}: no thread dump in JavaScript` : undefined,
    };
  }
}

const entries = new WeakMap<ClientInstance, Map<string, PopGroupEntry>>();

/** Adds a started SimpleConsumer to its group's entry in `instance` (and heartbeats at once). */
export function joinPopGroup(instance: ClientInstance, wireGroup: string, member: PopMember): void {
  let groups = entries.get(instance);
  if (groups === undefined) {
    groups = new Map();
    entries.set(instance, groups);
  }
  const entry = groups.get(wireGroup);
  if (entry !== undefined) {
    entry.members.add(member);
    return;
  }
  const created = new PopGroupEntry(wireGroup);
  // A push or pull consumer of the same group in this client keeps the group's entry.
  if (!registerConsumer(instance, wireGroup, created)) return;
  created.members.add(member); // before the first heartbeat, which carries its subscriptions
  groups.set(wireGroup, created);
  instance.heartbeat.register(created.contributor);
}

/** Removes it; the last member's leave unregisters the group from the brokers. */
export async function leavePopGroup(
  instance: ClientInstance,
  wireGroup: string,
  member: PopMember,
): Promise<void> {
  const groups = entries.get(instance);
  const entry = groups?.get(wireGroup);
  if (entry === undefined || !entry.members.delete(member) || entry.members.size > 0) return;
  groups!.delete(wireGroup);
  unregisterConsumer(instance, wireGroup, entry);
  await instance.heartbeat.unregister(entry.contributor);
}
