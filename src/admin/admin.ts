/**
 * The Admin client (`mqadmin` as a library): cluster, broker, topic, group and message
 * administration against real Apache RocketMQ 4.9.x/5.x clusters and the embedded one. Each
 * request family lives in its own module; this class holds the connections and delegates.
 * Results are plain typed objects; failures are typed errors (admin/errors.ts). Every call takes
 * a trailing `{ signal }` (CallOptions): an aborted call rejects with AbortError and its requests
 * leave their connections at once. A call that changes several brokers may have changed some of
 * them when it is aborted (as when one of them fails).
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
import { signalOf, throwIfAborted, type CallOptions } from '../remoting/abort.js';
import {
  createAcl,
  createUser,
  deleteAcl,
  deleteUser,
  getAcl,
  getUser,
  listAcl,
  listUsers,
  updateAcl,
  updateUser,
  type AclInfo,
  type AclRequest,
  type CreateUserRequest,
  type ListAclFilter,
  type UpdateUserRequest,
  type UserInfo,
} from './acl2.js';
import { AdminContext } from './admin-context.js';
import {
  brokerConfig,
  brokerRuntimeStats,
  brokerStatsData,
  clusterInfo,
  updateBrokerConfig,
} from './cluster.js';
import {
  consumerConnections,
  consumerProgress,
  consumerProgressReport,
  consumerRunningInfo,
  producerConnections,
  resetOffsetByTime,
  topicConsumers,
} from './consumers.js';
import { messagesOfQueue, queryMessagesByKey, resendMessage, viewMessage } from './messages.js';
import { validateAdminOptions, type AdminOptions, type ResolvedAdminOptions } from './options.js';
import {
  consumerGroups,
  consumerGroupsReport,
  createOrUpdateSubscriptionGroup,
  deleteSubscriptionGroup,
  type SubscriptionGroupSettings,
} from './subscription-groups.js';
import {
  createTopic,
  deleteTopic,
  topicConfig,
  topicList,
  topicRoute,
  topicStats,
  topicStatsReport,
  topics,
} from './topics.js';
import { messageTrace } from './traces.js';
import {
  browseMessagesByTime,
  deadLetterMessages,
  messageRequestModeOf,
  type BrowseByTimeRequest,
  type BrowsePage,
  type DeadLetterPage,
  type DeadLetterQueueCursor,
} from './browse.js';
import { setMessageRequestMode, type MessageRequestMode } from './request-mode.js';
import type { TraceContext } from '../protocol/trace/trace-data.js';
import type {
  AdminMessage,
  AdminQueue,
  AdminTarget,
  BrokerRuntimeStats,
  BrokerStatsData,
  ClientConnection,
  ClusterInfoResult,
  ConsumeDirectlyResult,
  ConsumerConnections,
  ConsumerGroupSummary,
  ConsumerGroupsReport,
  ConsumerProgress,
  ConsumerProgressReport,
  ConsumerRunningInfoData,
  CreateTopicRequest,
  QueueMessages,
  ResetOffsetResult,
  TopicConfigResult,
  TopicListEntry,
  TopicRouteResult,
  TopicStats,
  TopicStatsReport,
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

  /**
   * Runs one call on its context: `options.signal` (checked: InvalidArgumentError, or AbortError
   * when aborted already, before anything is sent) aborts every request the call makes. Bad
   * options and a closed client reject, as every other failure of a call does.
   */
  private run<T>(options: CallOptions | undefined, call: (c: AdminContext) => Promise<T>): Promise<T> {
    let ctx: AdminContext;
    try {
      const signal = signalOf(options);
      throwIfAborted(signal, 'the admin call');
      ctx = this.c.withSignal(signal);
    } catch (err) {
      return Promise.reject(err);
    }
    return call(ctx);
  }

  /** Clusters and every broker address (GET_BROKER_CLUSTER_INFO). */
  clusterInfo(options?: CallOptions): Promise<ClusterInfoResult> {
    return this.run(options, (c) => clusterInfo(c));
  }

  /** Runtime statistics of a broker, named by broker name (its master) or `host:port`. */
  brokerRuntimeStats(broker: string, options?: CallOptions): Promise<BrokerRuntimeStats> {
    return this.run(options, (c) => brokerRuntimeStats(c, broker));
  }

  /**
   * One stats item of a broker (VIEW_BROKER_STATS_DATA), e.g. `('TOPIC_PUT_SIZE', topic)` or
   * `('GROUP_GET_SIZE', 'topic@group')`: the broker's own per-minute, hour and day figures.
   */
  brokerStatsData(
    broker: string,
    statsName: string,
    statsKey: string,
    options?: CallOptions,
  ): Promise<BrokerStatsData> {
    return this.run(options, (c) => brokerStatsData(c, broker, statsName, statsKey));
  }

  brokerConfig(broker: string, options?: CallOptions): Promise<Record<string, string>> {
    return this.run(options, (c) => brokerConfig(c, broker));
  }

  updateBrokerConfig(
    broker: string,
    properties: Readonly<Record<string, string | number | boolean>>,
    options?: CallOptions,
  ): Promise<void> {
    return this.run(options, (c) => updateBrokerConfig(c, broker, properties));
  }

  /** Every topic the NameServer knows (retry, DLQ and system topics included). */
  topics(options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => topics(c));
  }

  topicRoute(topic: string, options?: CallOptions): Promise<TopicRouteResult> {
    return this.run(options, (c) => topicRoute(c, topic));
  }

  topicStats(topic: string, options?: CallOptions): Promise<TopicStats> {
    return this.run(options, (c) => topicStats(c, topic));
  }

  /**
   * topicStats that keeps going past a broker it cannot reach (BrokerUnavailableError), listing it
   * in `unreachable` (the dashboard shows it as down); any other failure still rejects.
   */
  topicStatsReport(topic: string, options?: CallOptions): Promise<TopicStatsReport> {
    return this.run(options, (c) => topicStatsReport(c, topic));
  }

  /** Groups that consume `topic` (online subscribers and groups with offsets). */
  topicConsumers(topic: string, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => topicConsumers(c, topic));
  }

  /**
   * Creates or updates a topic on every master of `cluster`, or on `brokers`; returns the
   * addresses. [5.x] `messageType` and `attributes` set topic attributes (docs/admin-cli.md §5).
   */
  createTopic(request: CreateTopicRequest, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => createTopic(c, request));
  }

  /** The same request as createTopic (UPDATE_AND_CREATE_TOPIC both creates and updates). */
  updateTopic(request: CreateTopicRequest, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => createTopic(c, request));
  }

  /** The topic's config on each master of its route, with its message type and attributes. */
  topicConfig(topic: string, options?: CallOptions): Promise<TopicConfigResult[]> {
    return this.run(options, (c) => topicConfig(c, topic));
  }

  /** Every topic on the masters (of `cluster`, else all), with its message type; sorted. */
  topicList(cluster?: string, options?: CallOptions): Promise<TopicListEntry[]> {
    return this.run(options, (c) => topicList(c, cluster));
  }

  deleteTopic(topic: string, cluster: string, options?: CallOptions): Promise<void> {
    return this.run(options, (c) => deleteTopic(c, topic, cluster));
  }

  /** Subscription groups on every master (built-in groups only with `includeSystem`). */
  consumerGroups(includeSystem = false, options?: CallOptions): Promise<ConsumerGroupSummary[]> {
    return this.run(options, (c) => consumerGroups(c, includeSystem));
  }

  /** consumerGroups that lists the masters it cannot reach in `unreachable` instead of rejecting. */
  consumerGroupsReport(includeSystem = false, options?: CallOptions): Promise<ConsumerGroupsReport> {
    return this.run(options, (c) => consumerGroupsReport(c, includeSystem));
  }

  /** Per-queue broker offset, consumer offset and lag of `group` (optionally one topic). */
  consumerProgress(group: string, topic?: string, options?: CallOptions): Promise<ConsumerProgress> {
    return this.run(options, (c) => consumerProgress(c, group, topic));
  }

  /** consumerProgress that lists the brokers it cannot reach in `unreachable` instead of rejecting. */
  consumerProgressReport(
    group: string,
    topic?: string,
    options?: CallOptions,
  ): Promise<ConsumerProgressReport> {
    return this.run(options, (c) => consumerProgressReport(c, group, topic));
  }

  consumerConnections(group: string, options?: CallOptions): Promise<ConsumerConnections> {
    return this.run(options, (c) => consumerConnections(c, group));
  }

  consumerRunningInfo(
    group: string,
    clientId: string,
    options?: CallOptions,
  ): Promise<ConsumerRunningInfoData> {
    return this.run(options, (c) => consumerRunningInfo(c, group, clientId));
  }

  /** Moves the group's offsets on `topic` to `timestamp` (ms; −1 = the end). See consumers.ts. */
  resetOffsetByTime(
    group: string,
    topic: string,
    timestamp: number,
    force = false,
    options?: CallOptions,
  ): Promise<ResetOffsetResult[]> {
    return this.run(options, (c) => resetOffsetByTime(c, group, topic, timestamp, force));
  }

  producerConnections(group: string, topic: string, options?: CallOptions): Promise<ClientConnection[]> {
    return this.run(options, (c) => producerConnections(c, group, topic));
  }

  queryMessagesByKey(
    topic: string,
    key: string,
    max?: number,
    begin?: number,
    end?: number,
    options?: CallOptions,
  ): Promise<AdminMessage[]> {
    return this.run(options, (c) => queryMessagesByKey(c, topic, key, max, begin, end));
  }

  /** A message by offsetMsgId, or by msgId (UNIQ_KEY) when `topic` is given. */
  viewMessage(id: string, topic?: string, options?: CallOptions): Promise<AdminMessage> {
    return this.run(options, (c) => viewMessage(c, id, topic));
  }

  /**
   * The trace records (Pub, SubBefore, SubAfter) of the message `msgId` that clients with
   * `enableMsgTrace` wrote to `traceTopic` (default RMQ_SYS_TRACE_TOPIC), oldest first.
   */
  messageTrace(msgId: string, traceTopic?: string, options?: CallOptions): Promise<TraceContext[]> {
    return this.run(options, (c) => messageTrace(c, msgId, traceTopic));
  }

  messagesOfQueue(
    queue: AdminQueue,
    fromOffset: number,
    count: number,
    options?: CallOptions,
  ): Promise<QueueMessages> {
    return this.run(options, (c) => messagesOfQueue(c, queue, fromOffset, count));
  }

  /**
   * One page of the messages of a topic stored between two times (SEARCH_OFFSET_BY_TIMESTAMP per
   * queue, then pulls as TOOLS_CONSUMER; nothing is committed), oldest first within the page.
   * Pass the page's `next` back as `cursor` for the following page. InvalidArgumentError when
   * `end` is before `begin`, or `brokerName`/`queueId` name no queue of the topic;
   * TopicNotFoundError for an unknown topic.
   */
  browseMessages(request: BrowseByTimeRequest, options?: CallOptions): Promise<BrowsePage> {
    return this.run(options, (c) => browseMessagesByTime(c, request));
  }

  /**
   * One page of the dead letters of `group` (`%DLQ%<group>`), newest first, each with the topic
   * it came from (`originalTopic`). A group without a DLQ topic gets an empty page (`exists`
   * false). Pass `next` back as `cursor` for older ones.
   */
  deadLetters(
    group: string,
    pageSize?: number,
    cursor?: readonly DeadLetterQueueCursor[],
    options?: CallOptions,
  ): Promise<DeadLetterPage> {
    return this.run(options, (c) => deadLetterMessages(c, group, pageSize, cursor));
  }

  /**
   * POP or PULL: how the broker has `group` consume `topic` (SET_MESSAGE_REQUEST_MODE, read back
   * with QUERY_ASSIGNMENT); undefined when no member of the group is online to answer for.
   */
  messageRequestMode(
    topic: string,
    group: string,
    options?: CallOptions,
  ): Promise<'PULL' | 'POP' | undefined> {
    return this.run(options, (c) => messageRequestModeOf(c, topic, group));
  }

  /** Has `clientId` of `group` consume the message now (CONSUME_MESSAGE_DIRECTLY). */
  resendMessage(
    msgId: string,
    group: string,
    clientId: string,
    topic?: string,
    options?: CallOptions,
  ): Promise<ConsumeDirectlyResult> {
    return this.run(options, (c) => resendMessage(c, msgId, group, clientId, topic));
  }

  createOrUpdateSubscriptionGroup(
    settings: SubscriptionGroupSettings,
    target: AdminTarget = {},
    options?: CallOptions,
  ): Promise<string[]> {
    return this.run(options, (c) => createOrUpdateSubscriptionGroup(c, settings, target));
  }

  deleteSubscriptionGroup(
    group: string,
    target: AdminTarget = {},
    removeOffset = false,
    options?: CallOptions,
  ): Promise<string[]> {
    return this.run(options, (c) => deleteSubscriptionGroup(c, group, target, removeOffset));
  }

  // [5.3+] ACL 2.0 users and ACL entries (admin/acl2.ts, docs/security.md §6). Changes go to every
  // broker of `target` (masters and slaves; every broker without one), as mqadmin's; reads to its
  // masters, first answer with something wins. A broker without ACL 2.0 → AuthAdminNotSupportedError.

  /** AUTH_CREATE_USER on every target broker; returns the addresses written to. */
  createUser(user: CreateUserRequest, target: AdminTarget = {}, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => createUser(c, user, target));
  }

  /** AUTH_UPDATE_USER: the fields given change, the others stay. */
  updateUser(user: UpdateUserRequest, target: AdminTarget = {}, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => updateUser(c, user, target));
  }

  /** AUTH_DELETE_USER (deleting an unknown user succeeds, as on the broker). */
  deleteUser(username: string, target: AdminTarget = {}, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => deleteUser(c, username, target));
  }

  /** AUTH_GET_USER: the user, or undefined when no master has it. */
  getUser(username: string, target: AdminTarget = {}, options?: CallOptions): Promise<UserInfo | undefined> {
    return this.run(options, (c) => getUser(c, username, target));
  }

  /** AUTH_LIST_USER: users whose name contains `filter` (all without one). */
  listUsers(filter?: string, target: AdminTarget = {}, options?: CallOptions): Promise<UserInfo[]> {
    return this.run(options, (c) => listUsers(c, filter, target));
  }

  /** AUTH_CREATE_ACL: one policy entry per resource, as mqadmin createAcl. */
  createAcl(acl: AclRequest, target: AdminTarget = {}, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => createAcl(c, acl, target));
  }

  /** AUTH_UPDATE_ACL: the entries replace the subject's entries on the same resources. */
  updateAcl(acl: AclRequest, target: AdminTarget = {}, options?: CallOptions): Promise<string[]> {
    return this.run(options, (c) => updateAcl(c, acl, target));
  }

  /** AUTH_DELETE_ACL: the subject's entry on `resource`, or all its entries without one. */
  deleteAcl(
    subject: string,
    resource?: string,
    target: AdminTarget = {},
    options?: CallOptions,
  ): Promise<string[]> {
    return this.run(options, (c) => deleteAcl(c, subject, resource, target));
  }

  /** AUTH_GET_ACL: the subject's policies, or undefined when it has none. */
  getAcl(subject: string, target: AdminTarget = {}, options?: CallOptions): Promise<AclInfo | undefined> {
    return this.run(options, (c) => getAcl(c, subject, target));
  }

  /** AUTH_LIST_ACL: ACLs whose subject / resource contain the filters. */
  listAcl(filter: ListAclFilter = {}, target: AdminTarget = {}, options?: CallOptions): Promise<AclInfo[]> {
    return this.run(options, (c) => listAcl(c, filter, target));
  }

  /**
   * Whether `group` consumes `topic` by PULL or POP (SET_MESSAGE_REQUEST_MODE, mqadmin
   * `setConsumeMode`), for its `clientRebalance: false` push consumers (docs/consumers.md §1.12).
   * `popShareQueueNum` (POP): each consumer also pops the queues of the N consumers after it; 0
   * means every consumer pops every queue. Goes to every master of `target` (a cluster or brokers),
   * or to the masters serving the topic; returns the addresses written to.
   */
  setMessageRequestMode(
    topic: string,
    group: string,
    mode: MessageRequestMode,
    popShareQueueNum = 0,
    target: AdminTarget = {},
    options?: CallOptions,
  ): Promise<string[]> {
    return this.run(options, (c) => setMessageRequestMode(c, topic, group, mode, popShareQueueNum, target));
  }
}
