/** CONSUMER_SEND_MSG_BACK (36) and GET_CONSUMER_LIST_BY_GROUP (38), protocol.md §10.2. */
import { RequestCode } from '../codes.js';
import { parseFastjson } from '../fastjson.js';
import { F, declareRequest, expectArray, expectObject, jsonString, type HeaderOf } from './fields.js';

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
export const encodeConsumerSendMsgBackRequestHeader = ConsumerSendMsgBack.encode;
export const decodeConsumerSendMsgBackRequestHeader = ConsumerSendMsgBack.decode;

export const GetConsumerListByGroup = declareRequest(
  RequestCode.GET_CONSUMER_LIST_BY_GROUP,
  'GET_CONSUMER_LIST_BY_GROUP',
  {
    consumerGroup: F.string.required(),
    bname: F.string.optional(),
  },
);
export type GetConsumerListByGroupRequestHeader = HeaderOf<typeof GetConsumerListByGroup.spec>;
export const encodeGetConsumerListByGroupRequestHeader = GetConsumerListByGroup.encode;
export const decodeGetConsumerListByGroupRequestHeader = GetConsumerListByGroup.decode;

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
