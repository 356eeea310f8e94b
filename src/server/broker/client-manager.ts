/**
 * Who is connected (Java `ProducerManager` + `ConsumerManager`): producer and consumer groups,
 * their connections with last-seen times, and each consumer group's subscriptions. Membership
 * changes of a consumer group are announced to its members with NOTIFY_CONSUMER_IDS_CHANGED so
 * push consumers rebalance at once.
 */
import { FilterExpressionError } from '../../errors.js';
import { RequestCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import type { Connection } from '../../remoting/connection.js';
import type { Logger } from '../../observability/logger.js';
import { RebalanceLocks } from './rebalance-locks.js';
import { buildMessageFilter, type MessageFilter } from './message-filter.js';

export interface ClientChannelInfo {
  clientId: string;
  language: string;
  version: number;
  lastUpdateTimestamp: number;
}

export interface SubscriptionData {
  topic: string;
  subString: string;
  expressionType: string;
  subVersion: number;
  /** Compiled once per registration; undefined when the SQL92 expression did not compile (Java: no ConsumerFilterData). */
  filter: MessageFilter | undefined;
}

export interface ConsumerGroupInfo {
  groupName: string;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
  channels: Map<Connection, ClientChannelInfo>;
  subscriptions: Map<string, SubscriptionData>;
}

export interface HeartbeatConsumer {
  groupName: string;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
  subscriptions: Array<{ topic: string; subString: string; expressionType: string; subVersion: number }>;
}

export class ClientManager {
  private readonly producers = new Map<string, Map<Connection, ClientChannelInfo>>();
  private readonly consumers = new Map<string, ConsumerGroupInfo>();
  /** Orderly consumers' queue locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ). */
  readonly locks = new RebalanceLocks();

  constructor(private readonly logger: Logger) {}

  registerProducer(group: string, conn: Connection, info: ClientChannelInfo): void {
    let channels = this.producers.get(group);
    if (!channels) this.producers.set(group, (channels = new Map()));
    channels.set(conn, info);
  }

  unregisterProducer(group: string, conn: Connection): void {
    const channels = this.producers.get(group);
    if (!channels) return;
    channels.delete(conn);
    if (channels.size === 0) this.producers.delete(group);
  }

  /** A live connection of a producer in `group` (for CHECK_TRANSACTION_STATE). */
  producerChannel(group: string): Connection | undefined {
    const channels = this.producers.get(group);
    if (!channels) return undefined;
    for (const conn of channels.keys()) if (!conn.closed) return conn;
    return undefined;
  }

  /** The live channels of a producer group (GET_PRODUCER_CONNECTION_LIST). */
  producerChannels(group: string): ReadonlyMap<Connection, ClientChannelInfo> | undefined {
    return this.producers.get(group);
  }

  /** Names of the consumer groups with a live channel. */
  consumerGroupNames(): string[] {
    return [...this.consumers.keys()];
  }

  /** The live connection of client `clientId` registered for any producer group (Java `findChannel`, for replies). */
  producerChannelOfClient(clientId: string): Connection | undefined {
    for (const channels of this.producers.values())
      for (const [conn, info] of channels) if (info.clientId === clientId && !conn.closed) return conn;
    return undefined;
  }

  registerConsumer(data: HeartbeatConsumer, conn: Connection, info: ClientChannelInfo): void {
    let group = this.consumers.get(data.groupName);
    if (!group) {
      group = {
        groupName: data.groupName,
        consumeType: data.consumeType,
        messageModel: data.messageModel,
        consumeFromWhere: data.consumeFromWhere,
        channels: new Map(),
        subscriptions: new Map(),
      };
      this.consumers.set(data.groupName, group);
    }
    group.consumeType = data.consumeType;
    group.messageModel = data.messageModel;
    group.consumeFromWhere = data.consumeFromWhere;
    let changed = !group.channels.has(conn);
    group.channels.set(conn, info);
    const topics = new Set<string>();
    for (const sub of data.subscriptions) {
      topics.add(sub.topic);
      const old = group.subscriptions.get(sub.topic);
      if (old && old.subVersion >= sub.subVersion && old.subString === sub.subString) continue;
      if (!old) changed = true;
      group.subscriptions.set(sub.topic, { ...sub, filter: this.compileFilter(data.groupName, sub) });
    }
    // Like Java ConsumerGroupInfo.updateSubscription: a heartbeat carries the whole set, so a
    // topic it no longer names was unsubscribed, for the whole group (last writer wins).
    for (const topic of [...group.subscriptions.keys()]) {
      if (topics.has(topic)) continue;
      group.subscriptions.delete(topic);
      changed = true;
    }
    // Java ConsumerManager.registerConsumer: a new channel or a topic added/removed tells the group.
    if (changed) this.notifyConsumerIdsChanged(group);
  }

  private compileFilter(
    group: string,
    sub: { topic: string; subString: string; expressionType: string },
  ): MessageFilter | undefined {
    try {
      return buildMessageFilter(sub.expressionType, sub.subString);
    } catch (err) {
      if (!(err instanceof FilterExpressionError)) throw err;
      this.logger.warn('consumer filter expression does not compile', {
        group,
        topic: sub.topic,
        error: err,
      });
      return undefined;
    }
  }

  unregisterConsumer(groupName: string, conn: Connection): void {
    const group = this.consumers.get(groupName);
    if (!group || !group.channels.delete(conn)) return;
    if (group.channels.size === 0) this.consumers.delete(groupName);
    else this.notifyConsumerIdsChanged(group);
  }

  consumerGroup(name: string): ConsumerGroupInfo | undefined {
    return this.consumers.get(name);
  }

  consumerIds(groupName: string): string[] {
    const group = this.consumers.get(groupName);
    if (!group) return [];
    return [...new Set([...group.channels.values()].map((c) => c.clientId))];
  }

  /** The connection closed: forget it everywhere, and free the queue locks of its clients. */
  connectionClosed(conn: Connection): void {
    const clientIds = new Set<string>();
    for (const group of this.consumers.values()) {
      const info = group.channels.get(conn);
      if (info) clientIds.add(info.clientId);
    }
    for (const group of [...this.producers.keys()]) this.unregisterProducer(group, conn);
    for (const group of [...this.consumers.keys()]) this.unregisterConsumer(group, conn);
    for (const clientId of clientIds)
      if (!this.hasConsumerClient(clientId)) this.locks.releaseClient(clientId);
  }

  private hasConsumerClient(clientId: string): boolean {
    for (const group of this.consumers.values())
      for (const info of group.channels.values()) if (info.clientId === clientId) return true;
    return false;
  }

  /** Drops clients silent for longer than `expiryMs` (and closes their connections). */
  scanNotActive(expiryMs: number, now: number = Date.now()): number {
    const stale = new Set<Connection>();
    for (const channels of this.producers.values()) {
      for (const [conn, info] of channels) if (now - info.lastUpdateTimestamp > expiryMs) stale.add(conn);
    }
    for (const group of this.consumers.values()) {
      for (const [conn, info] of group.channels)
        if (now - info.lastUpdateTimestamp > expiryMs) stale.add(conn);
    }
    for (const conn of stale) {
      this.logger.warn('client channel expired', { remoteAddress: conn.remoteAddress });
      this.connectionClosed(conn);
      conn.close();
    }
    this.locks.pruneExpired(now);
    return stale.size;
  }

  private notifyConsumerIdsChanged(group: ConsumerGroupInfo): void {
    for (const conn of group.channels.keys()) {
      if (conn.closed) continue;
      const request = createRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, {
        consumerGroup: group.groupName,
      });
      conn
        .oneway(request)
        .catch((err: unknown) => this.logger.debug('notify consumer ids changed failed', { error: err }));
    }
  }

  stats(): { producerGroups: number; consumerGroups: number } {
    return { producerGroups: this.producers.size, consumerGroups: this.consumers.size };
  }
}
