/**
 * SEND_MESSAGE / SEND_REPLY_MESSAGE (10/324, long names) and SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE / SEND_REPLY_MESSAGE_V2
 * (310/320/325, keys `a`…`n`), docs/protocol.md §3.1–§3.2.
 */
import { ProtocolError } from '../../errors.js';
import { RequestCode } from '../codes.js';
import { F, declareRequest, defineHeader, type HeaderOf } from './fields.js';

/** SEND_MESSAGE's fields (long names); PUSH_REPLY_MESSAGE_TO_CLIENT (reply.ts) starts with the same. */
export const sendSpec = {
  producerGroup: F.string.required(),
  topic: F.string.required(),
  defaultTopic: F.string.required(),
  defaultTopicQueueNums: F.int.required(),
  queueId: F.int.required(),
  sysFlag: F.int.required(),
  bornTimestamp: F.long.required(),
  flag: F.int.required(),
  properties: F.string.optional(),
  reconsumeTimes: F.int.optional(),
  /** A Java 4.9.7 primitive: always sent, `false` by default. */
  unitMode: F.bool.withDefault(false),
  /** A Java 4.9.7 primitive: always sent; `true` only for SEND_BATCH_MESSAGE. */
  batch: F.bool.withDefault(false),
  maxReconsumeTimes: F.int.optional(),
  /** Target broker name (4.9.7 `RpcRequestHeader.bname`). */
  bname: F.string.optional(),
} as const;

const sendV2Spec = {
  producerGroup: F.string.required('a'),
  topic: F.string.required('b'),
  defaultTopic: F.string.required('c'),
  defaultTopicQueueNums: F.int.required('d'),
  queueId: F.int.required('e'),
  sysFlag: F.int.required('f'),
  bornTimestamp: F.long.required('g'),
  flag: F.int.required('h'),
  properties: F.string.optional('i'),
  reconsumeTimes: F.int.optional('j'),
  unitMode: F.bool.withDefault(false, 'k'),
  maxReconsumeTimes: F.int.optional('l'),
  batch: F.bool.withDefault(false, 'm'),
  bname: F.string.optional('n'),
} as const;

export type SendMessageRequestHeader = HeaderOf<typeof sendSpec>;

export const SendMessage = declareRequest(RequestCode.SEND_MESSAGE, 'SEND_MESSAGE', sendSpec);
export const SendMessageV2 = declareRequest(RequestCode.SEND_MESSAGE_V2, 'SEND_MESSAGE_V2', sendV2Spec);
export const SendBatchMessage = declareRequest(
  RequestCode.SEND_BATCH_MESSAGE,
  'SEND_BATCH_MESSAGE',
  sendV2Spec,
);
/** SEND_REPLY_MESSAGE (324): a reply with SEND_MESSAGE's long names. */
export const SendReplyMessage = declareRequest(
  RequestCode.SEND_REPLY_MESSAGE,
  'SEND_REPLY_MESSAGE',
  sendSpec,
);
export const SendReplyMessageV2 = declareRequest(
  RequestCode.SEND_REPLY_MESSAGE_V2,
  'SEND_REPLY_MESSAGE_V2',
  sendV2Spec,
);

/** V1 → V2 extFields (keys `a`…`n`; Java `SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2`). */
export function toV2(h: SendMessageRequestHeader): Record<string, string> {
  return SendMessageV2.encode(h);
}
/** V2 extFields → the long-name header (Java `createSendMessageRequestHeaderV1`). */
export function fromV2(ext: Readonly<Record<string, string>> | undefined): SendMessageRequestHeader {
  return SendMessageV2.decode(ext);
}

/** Broker side: the header of any send code, V1 or V2 by request code. */
export function decodeAnySendMessageRequestHeader(
  code: number,
  ext: Readonly<Record<string, string>> | undefined,
): SendMessageRequestHeader {
  switch (code) {
    case RequestCode.SEND_MESSAGE:
    case RequestCode.SEND_REPLY_MESSAGE:
      return SendMessage.decode(ext);
    case RequestCode.SEND_MESSAGE_V2:
    case RequestCode.SEND_BATCH_MESSAGE:
    case RequestCode.SEND_REPLY_MESSAGE_V2:
      return SendMessageV2.decode(ext);
    default:
      throw new ProtocolError(`request code ${code} is not a send code`);
  }
}

const sendResponseSpec = {
  /** The offsetMsgId (comma-joined for batches). */
  msgId: F.string.required(),
  queueId: F.int.required(),
  queueOffset: F.long.required(),
  transactionId: F.string.optional(),
  /** [5.x] */
  batchUniqId: F.string.optional(),
  /**
   * [5.x 5.3.2+] Single timer sends only (not batches, not delay levels, not retry topics):
   * the handle for RECALL_MESSAGE (protocol/message/recall-handle.ts).
   */
  recallHandle: F.string.optional(),
  /** Broker `regionId`; always sent by the broker. */
  regionId: F.string.optional('MSG_REGION'),
  /** `"true"` unless tracing is off; always sent by the broker. */
  traceOn: F.bool.optional('TRACE_ON'),
} as const;

export type SendMessageResponseHeader = HeaderOf<typeof sendResponseSpec>;
export const SendMessageResponse = defineHeader('SendMessageResponseHeader', sendResponseSpec);

/** Default broker `regionId` (`MSG_REGION`). */
export const DEFAULT_REGION_ID = 'DefaultRegion';

export function encodeSendMessageResponseHeader(h: SendMessageResponseHeader): Record<string, string> {
  return SendMessageResponse.encode(h);
}
export function decodeSendMessageResponseHeader(
  ext: Readonly<Record<string, string>> | undefined,
): SendMessageResponseHeader {
  return SendMessageResponse.decode(ext);
}
