/**
 * The Admin client (`mqadmin` as a library): cluster, broker, topic, group and message
 * administration against real Apache RocketMQ 4.9.x/5.x clusters and the embedded one. Each
 * request family lives in its own module; this class holds the connections and delegates.
 * Results are plain typed objects; failures are typed errors (admin/errors.ts).
 */
import { IllegalStateError } from '../errors.js';
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
import { messageTrace } from './traces.js';
import type { TraceContext } from '../protocol/trace/trace-data.js';
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

export class Admin {
  readonly options: ResolvedAdminOptions;
  private readonly ctx: AdminContext;
  private closed = false;

  constructor(options?: AdminOptions) {
    this.options = validateAdminOptions(options);
    this.ctx = new AdminContext(this.options);
  }

  private get c(): AdminContext {
    if (this.closed) throw new IllegalStateError('admin client is closed');
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

  /**
   * The trace records (Pub, SubBefore, SubAfter) of the message `msgId` that clients with
   * `enableMsgTrace` wrote to `traceTopic` (default RMQ_SYS_TRACE_TOPIC), oldest first.
   */
  messageTrace(msgId: string, traceTopic?: string): Promise<TraceContext[]> {
    return messageTrace(this.c, msgId, traceTopic);
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

  /** Closes every connection; idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ctx.close();
  }
}
