/** CONSUMER_SEND_MSG_BACK (36) and GET_CONSUMER_LIST_BY_GROUP (38), docs/protocol.md §10.2. */
import { RequestCode } from '../codes.js';
import { parseMessageQueue, type MessageQueueData } from '../body/message-queue-map.js';
import { parseFastjson } from '../fastjson.js';
import { subscriptionJson, type SubscriptionData } from './heartbeat.js';
import {
  F,
  declareRequest,
  expectArray,
  expectObject,
  jsonBool,
  jsonString,
  type HeaderOf,
} from './fields.js';

export const ConsumerSendMsgBack = declareRequest(
  RequestCode.CONSUMER_SEND_MSG_BACK,
  'CONSUMER_SEND_MSG_BACK',
  {
    /** Commit-log offset of the message. */
    offset: F.long.required(),
    group: F.string.required(),
    delayLevel: F.int.required(),
    originMsgId: F.string.optional(),
    originTopic: F.string.optional(),
    /** Java primitive: always sent. */
    unitMode: F.bool.withDefault(false),
    maxReconsumeTimes: F.int.optional(),
    bname: F.string.optional(),
  },
);
export type ConsumerSendMsgBackRequestHeader = HeaderOf<typeof ConsumerSendMsgBack.spec>;

export const GetConsumerListByGroup = declareRequest(
  RequestCode.GET_CONSUMER_LIST_BY_GROUP,
  'GET_CONSUMER_LIST_BY_GROUP',
  {
    consumerGroup: F.string.required(),
    bname: F.string.optional(),
  },
);
export type GetConsumerListByGroupRequestHeader = HeaderOf<typeof GetConsumerListByGroup.spec>;

/** Response body `{"consumerIdList":[…]}`. */
export function encodeConsumerListBody(consumerIdList: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify({ consumerIdList }), 'utf8');
}

export function parseConsumerListBody(body: Uint8Array | string): string[] {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'GetConsumerListByGroupResponseBody');
  return expectArray(o.consumerIdList ?? [], 'consumerIdList').map((x) => jsonString(x, 'consumerId'));
}

/** Broker → consumer, oneway. */
export const NotifyConsumerIdsChanged = declareRequest(
  RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
  'NOTIFY_CONSUMER_IDS_CHANGED',
  {
    consumerGroup: F.string.required(),
  },
);

/** Broker → client (sync); a client that does not implement it answers REQUEST_CODE_NOT_SUPPORTED. */
export const GetConsumerRunningInfo = declareRequest(
  RequestCode.GET_CONSUMER_RUNNING_INFO,
  'GET_CONSUMER_RUNNING_INFO',
  {
    consumerGroup: F.string.required(),
    clientId: F.string.required(),
    jstackEnable: F.bool.withDefault(false),
  },
);

/** Broker → client (sync). */
export const ConsumeMessageDirectly = declareRequest(
  RequestCode.CONSUME_MESSAGE_DIRECTLY,
  'CONSUME_MESSAGE_DIRECTLY',
  {
    consumerGroup: F.string.required(),
    clientId: F.string.optional(),
    msgId: F.string.optional(),
    brokerName: F.string.optional(),
  },
);

/** CHECK_CLIENT_CONFIG (46): no header; body `CheckClientRequestBody`. */
export const CheckClientConfig = declareRequest(RequestCode.CHECK_CLIENT_CONFIG, 'CHECK_CLIENT_CONFIG', {});

/** `CheckClientRequestBody`: a push consumer asks at start whether a broker supports its filter. */
export function encodeCheckClientRequestBody(body: {
  clientId: string;
  group: string;
  subscriptionData: SubscriptionData;
}): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientId: body.clientId,
      group: body.group,
      subscriptionData: subscriptionJson(body.subscriptionData),
    }),
    'utf8',
  );
}

/** LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42): no header; JSON bodies below (orderly consumers). */
export const LockBatchMQ = declareRequest(RequestCode.LOCK_BATCH_MQ, 'LOCK_BATCH_MQ', {});
export const UnlockBatchMQ = declareRequest(RequestCode.UNLOCK_BATCH_MQ, 'UNLOCK_BATCH_MQ', {});

export type { MessageQueueData } from '../body/message-queue-map.js';

/**
 * QUERY_ASSIGNMENT (400) / SET_MESSAGE_REQUEST_MODE (401): no header; JSON bodies in
 * body/assignment.ts (broker-side load balancing, POP-mode push consumers).
 */
export const QueryAssignment = declareRequest(RequestCode.QUERY_ASSIGNMENT, 'QUERY_ASSIGNMENT', {});
export const SetMessageRequestMode = declareRequest(
  RequestCode.SET_MESSAGE_REQUEST_MODE,
  'SET_MESSAGE_REQUEST_MODE',
  {},
);

/** `LockBatchRequestBody` / `UnlockBatchRequestBody`. */
export interface LockBatchBody {
  consumerGroup: string;
  clientId: string;
  onlyThisBroker?: boolean;
  mqSet: MessageQueueData[];
}

function messageQueueJson(mq: MessageQueueData): Record<string, unknown> {
  return { brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic };
}

export function encodeLockBatchBody(body: LockBatchBody): Buffer {
  const out: Record<string, unknown> = { clientId: body.clientId, consumerGroup: body.consumerGroup };
  out.mqSet = body.mqSet.map(messageQueueJson);
  if (body.onlyThisBroker !== undefined) out.onlyThisBroker = body.onlyThisBroker;
  return Buffer.from(JSON.stringify(out), 'utf8');
}

/** Absent group or client id read as `''` (the broker rejects them when it needs them). */
export function parseLockBatchBody(body: Uint8Array | string): LockBatchBody {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'LockBatchRequestBody');
  const out: LockBatchBody = {
    consumerGroup: jsonString(o.consumerGroup, 'LockBatchRequestBody.consumerGroup', ''),
    clientId: jsonString(o.clientId, 'LockBatchRequestBody.clientId', ''),
    mqSet: expectArray(o.mqSet ?? [], 'mqSet').map((v) => parseMessageQueue(v)),
  };
  if (o.onlyThisBroker !== undefined && o.onlyThisBroker !== null)
    out.onlyThisBroker = jsonBool(o.onlyThisBroker, 'onlyThisBroker');
  return out;
}

/** LOCK_BATCH_MQ response body `{"lockOKMQSet":[…]}`. */
export function encodeLockBatchResponseBody(lockOKMQSet: readonly MessageQueueData[]): Buffer {
  return Buffer.from(JSON.stringify({ lockOKMQSet: lockOKMQSet.map(messageQueueJson) }), 'utf8');
}

export function parseLockBatchResponseBody(body: Uint8Array | string): MessageQueueData[] {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'LockBatchResponseBody');
  return expectArray(o.lockOKMQSet ?? [], 'lockOKMQSet').map((v) => parseMessageQueue(v));
}

/** Broker → client (oneway): RESET_CONSUMER_CLIENT_OFFSET (220); body `ResetOffsetBody`. */
export const ResetConsumerClientOffset = declareRequest(
  RequestCode.RESET_CONSUMER_CLIENT_OFFSET,
  'RESET_CONSUMER_CLIENT_OFFSET',
  {
    topic: F.string.required(),
    group: F.string.required(),
    /** [5.x] −1 = every queue. */
    queueId: F.int.optional(),
    /** [5.x] */
    offset: F.long.optional(),
    timestamp: F.long.required(),
    isForce: F.bool.withDefault(false),
  },
);

/** Broker → client (sync): GET_CONSUMER_STATUS_FROM_CLIENT (221); reply body `GetConsumerStatusBody`. */
export const GetConsumerStatusFromClient = declareRequest(
  RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT,
  'GET_CONSUMER_STATUS_FROM_CLIENT',
  {
    topic: F.string.required(),
    group: F.string.required(),
    clientAddr: F.string.optional(),
  },
);
