/**
 * Broker administration codes beyond topics (docs/admin-cli.md §1.2): broker config (25, 26),
 * topic statistics (202), who consumes a topic (300), reset offset (222), producer connections
 * (204) and subscription groups (200, 201, 207). Bodies: protocol/body/admin.ts.
 */
import { RequestCode } from '../codes.js';
import { F, declareRequest, type HeaderOf } from './fields.js';

/** UPDATE_BROKER_CONFIG (25): no header; body = properties text. */
export const UpdateBrokerConfig = declareRequest(
  RequestCode.UPDATE_BROKER_CONFIG,
  'UPDATE_BROKER_CONFIG',
  {},
);

/**
 * GET_BROKER_CONFIG (26): no header; response extField `version` and a properties-text body. A 5.x
 * broker lists `timerWheelEnable` and `timerMaxDelaySec` there; a 4.9 broker has neither.
 */
export const GetBrokerConfig = declareRequest(RequestCode.GET_BROKER_CONFIG, 'GET_BROKER_CONFIG', {});

/** GET_TOPIC_STATS_INFO (202); unknown topic → TOPIC_NOT_EXIST. Body `TopicStatsTable`. */
export const GetTopicStatsInfo = declareRequest(RequestCode.GET_TOPIC_STATS_INFO, 'GET_TOPIC_STATS_INFO', {
  topic: F.string.required(),
});
export type GetTopicStatsInfoRequestHeader = HeaderOf<typeof GetTopicStatsInfo.spec>;

/**
 * [5.x] GET_TOPIC_CONFIG (351): body `TopicConfigAndQueueMapping` (a TopicConfig, plus the static
 * queue mapping when `lo`); unknown topic → TOPIC_NOT_EXIST. 5.x `mqadmin topicStatus` needs it.
 */
export const GetTopicConfig = declareRequest(RequestCode.GET_TOPIC_CONFIG, 'GET_TOPIC_CONFIG', {
  topic: F.string.required(),
  lo: F.bool.optional(),
  bname: F.string.optional(),
});

/** QUERY_TOPIC_CONSUME_BY_WHO (300): body `GroupList`. */
export const QueryTopicConsumeByWho = declareRequest(
  RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
  'QUERY_TOPIC_CONSUME_BY_WHO',
  { topic: F.string.required() },
);

/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222): the broker works out each queue's offset for `timestamp`
 * (−1 = latest) and pushes RESET_CONSUMER_CLIENT_OFFSET to the group's clients; response body
 * `ResetOffsetBody`.
 */
export const InvokeBrokerToResetOffset = declareRequest(
  RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
  'INVOKE_BROKER_TO_RESET_OFFSET',
  {
    topic: F.string.required(),
    group: F.string.required(),
    timestamp: F.long.required(),
    /** Java field `isForce`. */
    isForce: F.bool.withDefault(false),
    /** [5.x] −1 = every queue. */
    queueId: F.int.optional(),
    /** [5.x] */
    offset: F.long.optional(),
  },
);
export type ResetOffsetRequestHeader = HeaderOf<typeof InvokeBrokerToResetOffset.spec>;

/** GET_PRODUCER_CONNECTION_LIST (204); unknown group → SYSTEM_ERROR "the producer group[g] not exist". */
export const GetProducerConnectionList = declareRequest(
  RequestCode.GET_PRODUCER_CONNECTION_LIST,
  'GET_PRODUCER_CONNECTION_LIST',
  { producerGroup: F.string.required() },
);

/** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): no header; body `SubscriptionGroupConfig`. */
export const UpdateAndCreateSubscriptionGroup = declareRequest(
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
  'UPDATE_AND_CREATE_SUBSCRIPTIONGROUP',
  {},
);

/** GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): no header; body `SubscriptionGroupWrapper`. */
export const GetAllSubscriptionGroupConfig = declareRequest(
  RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
  'GET_ALL_SUBSCRIPTIONGROUP_CONFIG',
  {},
);

/**
 * [5.x] GET_SUBSCRIPTIONGROUP_CONFIG (352): one group's `SubscriptionGroupConfig` as the body; the
 * broker auto-creates a missing group (`autoCreateSubscriptionGroup`), else SUBSCRIPTION_GROUP_NOT_EXIST.
 * The 5.x Proxy reads `consumeMessageOrderly` from it to decide FIFO POP.
 */
export const GetSubscriptionGroupConfig = declareRequest(
  RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG,
  'GET_SUBSCRIPTIONGROUP_CONFIG',
  { group: F.string.required() },
);

/** DELETE_SUBSCRIPTIONGROUP (207). 4.9 reads `removeOffset`, 5.3 reads `cleanOffset`: both are sent. */
export const DeleteSubscriptionGroup = declareRequest(
  RequestCode.DELETE_SUBSCRIPTIONGROUP,
  'DELETE_SUBSCRIPTIONGROUP',
  {
    groupName: F.string.required(),
    removeOffset: F.bool.optional(),
    cleanOffset: F.bool.optional(),
  },
);

/**
 * VIEW_BROKER_STATS_DATA (315), Java `mqadmin statsAll`/`brokerConsumeStats`' per-item view: one
 * stats item of the broker (e.g. `GROUP_GET_NUMS` keyed `topic@group`: messages that group
 * pulled there). Body `BrokerStatsData` (statsMinute/statsHour/statsDay); an item never counted
 * → SYSTEM_ERROR "not exist".
 */
export const ViewBrokerStatsData = declareRequest(
  RequestCode.VIEW_BROKER_STATS_DATA,
  'VIEW_BROKER_STATS_DATA',
  { statsName: F.string.required(), statsKey: F.string.required() },
);
