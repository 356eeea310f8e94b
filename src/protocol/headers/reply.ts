/**
 * PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker → requester): the reply message, rebuilt by the
 * requester from this header and the body (Java `ReplyMessageRequestHeader`).
 * The responder's SEND_REPLY_MESSAGE_V2 (325) header is `SendReplyMessageV2` in send.ts.
 */
import { RequestCode } from '../codes.js';
import { F, declareRequest, type HeaderOf } from './fields.js';
import { sendSpec } from './send.js';

// Java's ReplyMessageRequestHeader: the send header's fields up to unitMode, then the hosts.
const { batch: _batch, maxReconsumeTimes: _max, bname: _bname, ...replyFields } = sendSpec;

export const PushReplyMessageToClient = declareRequest(
  RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT,
  'PUSH_REPLY_MESSAGE_TO_CLIENT',
  {
    ...replyFields,
    /** `ip:port` of the responder's connection. */
    bornHost: F.string.required(),
    /** `ip:port` of the broker. */
    storeHost: F.string.required(),
    storeTimestamp: F.long.required(),
  },
);
export type PushReplyMessageToClientRequestHeader = HeaderOf<typeof PushReplyMessageToClient.spec>;

/** Java `MixAll.getReplyTopic`: every broker of the cluster creates it at startup (1 queue). */
export function replyTopicOf(clusterName: string): string {
  return `${clusterName}_REPLY_TOPIC`;
}
