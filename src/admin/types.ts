/** Results of the Admin client: plain typed objects (no class instances), ready for JSON. */
import type { SubscriptionGroupConfig } from '../protocol/body/admin.js';
import type { TopicMessageType } from '../protocol/message/message-type.js';
import type { ConsumerRunningInfoData } from '../protocol/body/consumer-running-info.js';

export type { SubscriptionGroupConfig, ConsumerRunningInfoData, TopicMessageType };

/** A queue of a topic on a broker. */
export interface AdminQueue {
  topic: string;
  brokerName: string;
  queueId: number;
}

/** One address of a broker group (brokerId 0 = master). */
export interface BrokerAddressInfo {
  cluster: string;
  brokerName: string;
  brokerId: number;
  address: string;
}

/** GET_BROKER_CLUSTER_INFO. */
export interface ClusterInfoResult {
  /** cluster name → broker names, sorted. */
  clusters: Record<string, string[]>;
  /** Every broker address, sorted by cluster, broker name, id. */
  brokers: BrokerAddressInfo[];
}

/** GET_BROKER_RUNTIME_INFO of one broker address, with the values tools read parsed. */
export interface BrokerRuntimeStats {
  address: string;
  /** `brokerVersionDesc`, e.g. `V4_9_7`. */
  version: string;
  /**
   * Messages put per second over 10 s, 60 s, 600 s (`putTps`); a window the broker has not been
   * up for yet is `undefined`.
   */
  putTps: Array<number | undefined>;
  /** Messages sent to consumers per second (`getTransferedTps`; 5.x `getTransferredTps`). */
  getTransferredTps: Array<number | undefined>;
  msgPutTotalYesterdayMorning: number;
  msgPutTotalTodayMorning: number;
  msgPutTotalTodayNow: number;
  msgGetTotalYesterdayMorning: number;
  msgGetTotalTodayMorning: number;
  msgGetTotalTodayNow: number;
  /** Used share of the commit-log disk, 0…1; undefined when not reported. */
  commitLogDiskRatio: number | undefined;
  commitLogMinOffset: number;
  commitLogMaxOffset: number;
  bootTimestamp: number;
  /** Every key as the broker sent it. */
  raw: Record<string, string>;
}

/** One window of VIEW_BROKER_STATS_DATA: the total, per second, and mean time per item. */
export interface BrokerStatsWindow {
  sum: number;
  tps: number;
  avgpt: number;
}

/** VIEW_BROKER_STATS_DATA of one stats item on one broker address. */
export interface BrokerStatsData {
  address: string;
  statsMinute: BrokerStatsWindow;
  statsHour: BrokerStatsWindow;
  statsDay: BrokerStatsWindow;
}

export interface TopicRouteResult {
  topic: string;
  brokers: Array<{ cluster: string; brokerName: string; addresses: Record<string, string> }>;
  queues: Array<{
    brokerName: string;
    readQueueNums: number;
    writeQueueNums: number;
    perm: number;
    topicSysFlag: number;
  }>;
}

/** GET_TOPIC_STATS_INFO of one queue. */
export interface TopicQueueStats extends AdminQueue {
  minOffset: number;
  maxOffset: number;
  /** Store time of the newest message, 0 when the queue is empty. */
  lastUpdateTimestamp: number;
}

export interface TopicStats {
  topic: string;
  queues: TopicQueueStats[];
}

/** A broker a "report" call could not reach: its part of the answer is missing. */
export interface UnreachableBroker {
  brokerName: string;
  address: string;
  /** The BrokerUnavailableError (its `cause` is the transport failure). */
  error: Error;
}

/** topicStatsReport(): the queues of the brokers that answered, and the ones that did not. */
export interface TopicStatsReport extends TopicStats {
  unreachable: UnreachableBroker[];
}

/** consumerGroupsReport(): the groups of the masters that answered, and the ones that did not. */
export interface ConsumerGroupsReport {
  groups: ConsumerGroupSummary[];
  unreachable: UnreachableBroker[];
}

export interface CreateTopicRequest {
  topic: string;
  /** @default 8 */
  readQueues?: number | undefined;
  /** @default 8 */
  writeQueues?: number | undefined;
  /** PermName bits: 2 W, 4 R, 6 RW. @default 6 */
  perm?: number | undefined;
  /**
   * Java's `order` flag. @default true when `messageType` is FIFO (as Java's guide creates FIFO
   * topics, `-o true`), else false
   */
  order?: boolean | undefined;
  /**
   * [5.x] The topic's `message.type` attribute, sent as `+message.type=<type>`; a 4.x broker
   * ignores attributes (the topic is created untyped). @default undefined: unchanged (a new topic
   * is NORMAL)
   */
  messageType?: TopicMessageType | undefined;
  /**
   * [5.x] Other topic attributes: `{ key: value }` adds or replaces, `{ key: null }` removes, or
   * Java's text `+key=value,-key` (`mqadmin updateTopic -a`). The broker accepts only the keys it
   * knows (5.5.0: `message.type`, `queue.type`, `cleanup.policy`, `reserve.time`,
   * `lite.topic.expiration`) and refuses a removal on creation. @default undefined: unchanged
   */
  attributes?: Readonly<Record<string, string | null>> | string | undefined;
  /** Every master of this cluster… */
  cluster?: string | undefined;
  /** …or these brokers (names or `host:port`). */
  brokers?: readonly string[] | undefined;
}

/** GET_CONSUME_STATS of one queue. */
export interface ConsumerQueueProgress extends AdminQueue {
  brokerOffset: number;
  consumerOffset: number;
  /** brokerOffset − consumerOffset: not yet handed out. */
  lag: number;
  /**
   * POP messages handed out and not yet acked (invisible, or back for redelivery), which the
   * committed offset of a POP group has already passed (docs/consumers.md §3.6); 0 for a pull
   * group. From the embedded broker's GET_CONSUME_STATS; a Java broker does not count it, so
   * there it is the sum of what the online members report holding (their running info).
   */
  inflight: number;
  /** Store time of the last consumed message, 0 when none. */
  lastTimestamp: number;
}

export interface ConsumerProgress {
  group: string;
  consumeTps: number;
  totalLag: number;
  /** Sum of the queues' `inflight`. */
  totalInflight: number;
  queues: ConsumerQueueProgress[];
  /** The group's online members (GET_CONSUMER_CONNECTION_LIST); empty when none is online. */
  members: ClientConnection[];
}

/** consumerProgressReport(): the queues of the brokers that answered, and the ones that did not. */
export interface ConsumerProgressReport extends ConsumerProgress {
  unreachable: UnreachableBroker[];
}

export interface ClientConnection {
  clientId: string;
  clientAddr: string;
  language: string;
  version: number;
}

export interface ConsumerConnections {
  group: string;
  connections: ClientConnection[];
  /** topic → subscription expression. */
  subscriptions: Record<string, { expressionType: string; expression: string }>;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
}

export interface ConsumerGroupSummary {
  group: string;
  /** Broker names the group's config is on. */
  brokers: string[];
  config: SubscriptionGroupConfig;
}

/** One queue of a reset: the offset the group continues from. */
export interface ResetOffsetResult extends AdminQueue {
  offset: number;
}

/** A stored message as tools show it. */
export interface AdminMessage {
  topic: string;
  /** UNIQ_KEY when the producer set one, else offsetMsgId. */
  msgId: string;
  offsetMsgId: string;
  tags: string | undefined;
  keys: string[];
  /** Decompressed body (zlib); other algorithms stay as stored. */
  body: Buffer;
  /** Every property, system ones included. */
  properties: Record<string, string>;
  queueId: number;
  queueOffset: number;
  commitLogOffset: number;
  reconsumeTimes: number;
  bornTimestamp: number;
  storeTimestamp: number;
  bornHost: string;
  storeHost: string;
  sysFlag: number;
}

export interface QueueMessages {
  messages: AdminMessage[];
  /** Offset to read from next. */
  nextOffset: number;
  minOffset: number;
  maxOffset: number;
}

export interface ConsumeDirectlyResult {
  consumeResult: string;
  order: boolean;
  autoCommit: boolean;
  remark: string | undefined;
  spentTimeMillis: number;
}

/** Where a subscription group or topic change goes: every master of `cluster`, or `brokers`. */
export interface AdminTarget {
  cluster?: string | undefined;
  brokers?: readonly string[] | undefined;
}

/** One broker's config of a topic (GET_TOPIC_CONFIG, or GET_ALL_TOPIC_CONFIG on a 4.x broker). */
export interface TopicConfigResult {
  topic: string;
  brokerName: string;
  address: string;
  readQueues: number;
  writeQueues: number;
  perm: number;
  order: boolean;
  topicSysFlag: number;
  topicFilterType: string;
  /** The `message.type` attribute; NORMAL when absent (always on a 4.x broker). */
  messageType: TopicMessageType;
  /** Every attribute, `message.type` included; empty on a 4.x broker. */
  attributes: Record<string, string>;
}

/** A topic as `topicList` reports it: its type and where it lives. */
export interface TopicListEntry {
  topic: string;
  /** `message.type` on the first broker (by name) that has the topic; NORMAL when absent. */
  messageType: TopicMessageType;
  /** That broker's attributes. */
  attributes: Record<string, string>;
  order: boolean;
  /** Broker names holding the topic, sorted. */
  brokers: string[];
}
