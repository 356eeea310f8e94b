/** UPDATE_AND_CREATE_TOPIC (17), docs/protocol.md §10.2. */
import { RequestCode } from '../codes.js';
import { F, declareRequest, type HeaderOf } from './fields.js';

export const UpdateAndCreateTopic = declareRequest(
  RequestCode.UPDATE_AND_CREATE_TOPIC,
  'UPDATE_AND_CREATE_TOPIC',
  {
    topic: F.string.required(),
    defaultTopic: F.string.required(),
    readQueueNums: F.int.required(),
    writeQueueNums: F.int.required(),
    perm: F.int.required(),
    /** `SINGLE_TAG` or `MULTI_TAG`. */
    topicFilterType: F.string.required(),
    topicSysFlag: F.int.optional(),
    /** Java `Boolean order = false`: always sent. */
    order: F.bool.withDefault(false),
    /** [5.x] `+key=value,…` */
    attributes: F.string.optional(),
    /** [5.x] */
    force: F.bool.optional(),
  },
);
export type CreateTopicRequestHeader = HeaderOf<typeof UpdateAndCreateTopic.spec>;

/** DELETE_TOPIC_IN_BROKER (215). */
export const DeleteTopicInBroker = declareRequest(
  RequestCode.DELETE_TOPIC_IN_BROKER,
  'DELETE_TOPIC_IN_BROKER',
  { topic: F.string.required() },
);

/** GET_ALL_TOPIC_CONFIG (21): no header; body `TopicConfigSerializeWrapper` (see register.ts). */
export const GetAllTopicConfig = declareRequest(RequestCode.GET_ALL_TOPIC_CONFIG, 'GET_ALL_TOPIC_CONFIG', {});

/** GET_BROKER_RUNTIME_INFO (28): no header; body `KVTable` (see register.ts). */
export const GetBrokerRuntimeInfo = declareRequest(
  RequestCode.GET_BROKER_RUNTIME_INFO,
  'GET_BROKER_RUNTIME_INFO',
  {},
);

/**
 * What the embedded broker (versioned 4.9.7, with a timer wheel of its own) lists in its
 * GET_BROKER_CONFIG answer to say it honours timer messages; no Apache broker writes it.
 */
export const EMBEDDED_TIMER_KEY = 'rocketmqTsTimerWheel';
