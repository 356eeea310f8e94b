/**
 * HEART_BEAT (34) body `HeartbeatData` and UNREGISTER_CLIENT (35), docs/protocol.md §8.
 * JSON is written in fastjson's alphabetical field order so it matches a Java client's bytes.
 */
import { RequestCode } from '../codes.js';
import { parseFastjson } from '../fastjson.js';
import {
  F,
  declareRequest,
  expectArray,
  expectObject,
  jsonBool,
  jsonNumber,
  jsonString,
  type HeaderOf,
} from './fields.js';
import { javaStringHashCode } from '../java-string-hash.js';

export const ConsumeType = {
  CONSUME_ACTIVELY: 'CONSUME_ACTIVELY',
  CONSUME_PASSIVELY: 'CONSUME_PASSIVELY',
  /** [5.x] A POP consumer (the Proxy heartbeats SimpleConsumers so). */
  CONSUME_POP: 'CONSUME_POP',
} as const;
export const MessageModel = { BROADCASTING: 'BROADCASTING', CLUSTERING: 'CLUSTERING' } as const;
export const ConsumeFromWhere = {
  CONSUME_FROM_LAST_OFFSET: 'CONSUME_FROM_LAST_OFFSET',
  CONSUME_FROM_FIRST_OFFSET: 'CONSUME_FROM_FIRST_OFFSET',
  CONSUME_FROM_TIMESTAMP: 'CONSUME_FROM_TIMESTAMP',
} as const;
export const ExpressionType = { TAG: 'TAG', SQL92: 'SQL92' } as const;
/** Subscription expression meaning "every tag". */
export const SUB_ALL = '*';
/** The internal producer group every Java client reports. */
export const CLIENT_INNER_PRODUCER_GROUP = 'CLIENT_INNER_PRODUCER';

export interface ProducerData {
  groupName: string;
}

export interface SubscriptionData {
  topic: string;
  subString: string;
  tagsSet: string[];
  /** Java `String.hashCode()` of each tag. */
  codeSet: number[];
  subVersion: number;
  expressionType: string;
  classFilterMode: boolean;
}

export interface ConsumerData {
  groupName: string;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
  subscriptionDataSet: SubscriptionData[];
  unitMode: boolean;
}

export interface HeartbeatData {
  clientID: string;
  producerDataSet: ProducerData[];
  consumerDataSet: ConsumerData[];
  /** [5.x] */
  heartbeatFingerprint?: number;
  /** [5.x] */
  isWithoutSub?: boolean;
}

export { javaStringHashCode };

/** fastjson's SubscriptionData object (keys sorted; filterClassSource is not serialized). */
export function subscriptionJson(s: SubscriptionData): Record<string, unknown> {
  return {
    classFilterMode: s.classFilterMode,
    codeSet: s.codeSet,
    expressionType: s.expressionType,
    subString: s.subString,
    subVersion: s.subVersion,
    tagsSet: s.tagsSet,
    topic: s.topic,
  };
}

function consumerJson(c: ConsumerData): Record<string, unknown> {
  return {
    consumeFromWhere: c.consumeFromWhere,
    consumeType: c.consumeType,
    groupName: c.groupName,
    messageModel: c.messageModel,
    subscriptionDataSet: c.subscriptionDataSet.map(subscriptionJson),
    unitMode: c.unitMode,
  };
}

export function encodeHeartbeatData(h: HeartbeatData): Buffer {
  const out: Record<string, unknown> = {
    clientID: h.clientID,
    consumerDataSet: h.consumerDataSet.map(consumerJson),
  };
  if (h.heartbeatFingerprint !== undefined) out.heartbeatFingerprint = h.heartbeatFingerprint;
  if (h.isWithoutSub !== undefined) out.isWithoutSub = h.isWithoutSub;
  out.producerDataSet = h.producerDataSet.map((p) => ({ groupName: p.groupName }));
  return Buffer.from(JSON.stringify(out), 'utf8');
}

export function parseSubscription(value: unknown): SubscriptionData {
  const o = expectObject(value, 'SubscriptionData');
  return {
    topic: jsonString(o.topic, 'SubscriptionData.topic'),
    subString: jsonString(o.subString, 'SubscriptionData.subString', SUB_ALL),
    tagsSet: expectArray(o.tagsSet ?? [], 'tagsSet').map((x) => jsonString(x, 'tag')),
    codeSet: expectArray(o.codeSet ?? [], 'codeSet').map((x) => jsonNumber(x, 'code')),
    subVersion: jsonNumber(o.subVersion, 'SubscriptionData.subVersion', 0),
    expressionType: jsonString(o.expressionType, 'SubscriptionData.expressionType', ExpressionType.TAG),
    classFilterMode: jsonBool(o.classFilterMode, 'SubscriptionData.classFilterMode', false),
  };
}

function parseConsumer(value: unknown): ConsumerData {
  const o = expectObject(value, 'ConsumerData');
  return {
    groupName: jsonString(o.groupName, 'ConsumerData.groupName'),
    consumeType: jsonString(o.consumeType, 'ConsumerData.consumeType', ConsumeType.CONSUME_PASSIVELY),
    messageModel: jsonString(o.messageModel, 'ConsumerData.messageModel', MessageModel.CLUSTERING),
    consumeFromWhere: jsonString(
      o.consumeFromWhere,
      'ConsumerData.consumeFromWhere',
      ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
    ),
    subscriptionDataSet: expectArray(o.subscriptionDataSet ?? [], 'subscriptionDataSet').map(
      parseSubscription,
    ),
    unitMode: jsonBool(o.unitMode, 'ConsumerData.unitMode', false),
  };
}

export function parseHeartbeatData(body: Uint8Array | string): HeartbeatData {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'HeartbeatData');
  const h: HeartbeatData = {
    clientID: jsonString(o.clientID, 'HeartbeatData.clientID'),
    producerDataSet: expectArray(o.producerDataSet ?? [], 'producerDataSet').map((p) => ({
      groupName: jsonString(expectObject(p, 'ProducerData').groupName, 'ProducerData.groupName'),
    })),
    consumerDataSet: expectArray(o.consumerDataSet ?? [], 'consumerDataSet').map(parseConsumer),
  };
  if (o.heartbeatFingerprint !== undefined && o.heartbeatFingerprint !== null) {
    h.heartbeatFingerprint = jsonNumber(o.heartbeatFingerprint, 'heartbeatFingerprint');
  }
  const withoutSub = o.isWithoutSub ?? o.withoutSub;
  if (withoutSub !== undefined && withoutSub !== null) h.isWithoutSub = jsonBool(withoutSub, 'isWithoutSub');
  return h;
}

export const UnregisterClient = declareRequest(RequestCode.UNREGISTER_CLIENT, 'UNREGISTER_CLIENT', {
  clientID: F.string.required(),
  producerGroup: F.string.optional(),
  consumerGroup: F.string.optional(),
});
export type UnregisterClientRequestHeader = HeaderOf<typeof UnregisterClient.spec>;

/** HEART_BEAT has no custom header; the body is `HeartbeatData`. */
export const HeartBeat = declareRequest(RequestCode.HEART_BEAT, 'HEART_BEAT', {});
