/**
 * The Admin client (`mqadmin` as a library): cluster, broker, topic, group and message
 * administration against real Apache RocketMQ 4.9.x/5.x clusters and the embedded one. Each
 * request family lives in its own module; this class holds the connections and delegates.
 * Results are plain typed objects; failures are typed errors (admin/errors.ts).
 *
 * Lifecycle (client/lifecycle.ts): `start()` / `shutdown()` (`close()` is its alias). Start
 * does no I/O (as Java's `DefaultMQAdminExt.start()`): connections open with the first request.
 * A method called before start() starts the client itself; after shutdown() it rejects with
 * IllegalStateError. Events (docs/events.md): 'connect', 'disconnect'.
 */
import { EventEmitter } from 'node:events';
import { forwardConnectionEvents, type ConnectionEvents } from '../client/instance-events.js';
import { Lifecycle, type LifecycleState } from '../client/lifecycle.js';
import { keyList } from '../options.js';
import { AdminContext } from './admin-context.js';
import { brokerConfig, brokerRuntimeStats, clusterInfo, updateBrokerConfig } from './cluster.js';
import {
  consumerConnections,
  consumerProgress,
  consumerRunningInfo,
  producerConnections,
  resetOffsetByTime,
  topicConsumers,
} from './consumers.js';
import { messagesOfQueue, queryMessagesByKey, resendMessage, viewMessage } from './messages.js';
import { validateAdminOptions, type AdminOptions, type ResolvedAdminOptions } from './options.js';
import {
  consumerGroups,
  createOrUpdateSubscriptionGroup,
  deleteSubscriptionGroup,
  type SubscriptionGroupSettings,
} from './subscription-groups.js';
import { createTopic, deleteTopic, topicRoute, topicStats, topics } from './topics.js';
import type {
  AdminMessage,
  AdminQueue,
  AdminTarget,
  BrokerRuntimeStats,
  ClientConnection,
  ClusterInfoResult,
  ConsumeDirectlyResult,
  ConsumerConnections,
  ConsumerGroupSummary,
  ConsumerProgress,
  ConsumerRunningInfoData,
  CreateTopicRequest,
  QueueMessages,
  ResetOffsetResult,
  TopicRouteResult,
  TopicStats,
} from './types.js';

/** docs/events.md: the Admin client's connections. */
export type AdminEvents = ConnectionEvents;

/** Every event an Admin emits; docs/events.md lists the same. */
export const ADMIN_EVENTS = keyList<AdminEvents>({ connect: true, disconnect: true });

export class Admin extends EventEmitter<AdminEvents> {
  readonly options: ResolvedAdminOptions;
  private readonly ctx: AdminContext;
  private stopForwarding: (() => void) | undefined;
  private readonly lifecycle = new Lifecycle('admin client', {
    start: () => {
      this.stopForwarding ??= forwardConnectionEvents(this.ctx.instance.pool, this);
      return Promise.resolve();
    },
    stop: async () => {
      // Connections opened by requests made while starting are closed here too.
      await this.ctx.close();
      this.stopForwarding?.();
      this.stopForwarding = undefined;
    },
  });

  constructor(options?: AdminOptions) {
    super();
    this.options = validateAdminOptions(options);
    this.ctx = new AdminContext(this.options);
  }

  /** CREATED → STARTING → RUNNING → STOPPING → STOPPED (client/lifecycle.ts). */
  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /** Starts the client (no I/O); methods called before it start it themselves. */
  start(): Promise<void> {
    return this.lifecycle.start();
  }

  /** Closes every connection; later calls return the first call's promise. */
  shutdown(): Promise<void> {
    const done = this.lifecycle.shutdown();
    // Also for a client never started, whose shutdown has nothing to stop.
    this.ctx.refuseRequests();
    return done;
  }

  /** Alias of `shutdown()`. */
  close(): Promise<void> {
    return this.shutdown();
  }

  /** The request context; starts the client on first use, rejects every request once shut down. */
  private get c(): AdminContext {
    // A shutdown during this implicit start rejects it; the request itself reports the shutdown.
    if (this.lifecycle.state === 'CREATED') this.start().catch(() => undefined);
    return this.ctx;
  }

  /** Clusters and every broker address (GET_BROKER_CLUSTER_INFO). */
  clusterInfo(): Promise<ClusterInfoResult> {
    return clusterInfo(this.c);
  }

  /** Runtime statistics of a broker, named by broker name (its master) or `host:port`. */
  brokerRuntimeStats(broker: string): Promise<BrokerRuntimeStats> {
    return brokerRuntimeStats(this.c, broker);
  }

  brokerConfig(broker: string): Promise<Record<string, string>> {
    return brokerConfig(this.c, broker);
  }

  updateBrokerConfig(
    broker: string,
    properties: Readonly<Record<string, string | number | boolean>>,
  ): Promise<void> {
    return updateBrokerConfig(this.c, broker, properties);
  }

  /** Every topic the NameServer knows (retry, DLQ and system topics included). */
  topics(): Promise<string[]> {
    return topics(this.c);
  }

  topicRoute(topic: string): Promise<TopicRouteResult> {
    return topicRoute(this.c, topic);
  }

  topicStats(topic: string): Promise<TopicStats> {
    return topicStats(this.c, topic);
  }

  /** Groups that consume `topic` (online subscribers and groups with offsets). */
  topicConsumers(topic: string): Promise<string[]> {
    return topicConsumers(this.c, topic);
  }

  /** Creates or updates a topic on every master of `cluster`, or on `brokers`; returns the addresses. */
  createTopic(request: CreateTopicRequest): Promise<string[]> {
    return createTopic(this.c, request);
  }

  deleteTopic(topic: string, cluster: string): Promise<void> {
    return deleteTopic(this.c, topic, cluster);
  }

  /** Subscription groups on every master (built-in groups only with `includeSystem`). */
  consumerGroups(includeSystem = false): Promise<ConsumerGroupSummary[]> {
    return consumerGroups(this.c, includeSystem);
  }

  /** Per-queue broker offset, consumer offset and lag of `group` (optionally one topic). */
  consumerProgress(group: string, topic?: string): Promise<ConsumerProgress> {
    return consumerProgress(this.c, group, topic);
  }

  consumerConnections(group: string): Promise<ConsumerConnections> {
    return consumerConnections(this.c, group);
  }

  consumerRunningInfo(group: string, clientId: string): Promise<ConsumerRunningInfoData> {
    return consumerRunningInfo(this.c, group, clientId);
  }

  /** Moves the group's offsets on `topic` to `timestamp` (ms; −1 = the end). See consumers.ts. */
  resetOffsetByTime(
    group: string,
    topic: string,
    timestamp: number,
    force = false,
  ): Promise<ResetOffsetResult[]> {
    return resetOffsetByTime(this.c, group, topic, timestamp, force);
  }

  producerConnections(group: string, topic: string): Promise<ClientConnection[]> {
    return producerConnections(this.c, group, topic);
  }

  queryMessagesByKey(
    topic: string,
    key: string,
    max?: number,
    begin?: number,
    end?: number,
  ): Promise<AdminMessage[]> {
    return queryMessagesByKey(this.c, topic, key, max, begin, end);
  }

  /** A message by offsetMsgId, or by msgId (UNIQ_KEY) when `topic` is given. */
  viewMessage(id: string, topic?: string): Promise<AdminMessage> {
    return viewMessage(this.c, id, topic);
  }

  messagesOfQueue(queue: AdminQueue, fromOffset: number, count: number): Promise<QueueMessages> {
    return messagesOfQueue(this.c, queue, fromOffset, count);
  }

  /** Has `clientId` of `group` consume the message now (CONSUME_MESSAGE_DIRECTLY). */
  resendMessage(
    msgId: string,
    group: string,
    clientId: string,
    topic?: string,
  ): Promise<ConsumeDirectlyResult> {
    return resendMessage(this.c, msgId, group, clientId, topic);
  }

  createOrUpdateSubscriptionGroup(
    settings: SubscriptionGroupSettings,
    target: AdminTarget = {},
  ): Promise<string[]> {
    return createOrUpdateSubscriptionGroup(this.c, settings, target);
  }

  deleteSubscriptionGroup(group: string, target: AdminTarget = {}, removeOffset = false): Promise<string[]> {
    return deleteSubscriptionGroup(this.c, group, target, removeOffset);
  }
}
