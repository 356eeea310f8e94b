/**
 * [5.x 5.3.2+] RECALL_MESSAGE (370) and its response header (docs/protocol.md §13.4; Java
 * `RecallMessageRequestHeader` / `RecallMessageResponseHeader`). The handle's codec is
 * `protocol/message/recall-handle.ts`.
 */
import { RequestCode } from '../codes.js';
import { F, declareRequest, defineHeader, type HeaderOf } from './fields.js';

export const RecallMessage = declareRequest(RequestCode.RECALL_MESSAGE, 'RECALL_MESSAGE', {
  /** `@CFNullable` in Java; the broker writes it into the marker as PGROUP. */
  producerGroup: F.string.optional(),
  /** The wire topic; must be the handle's. */
  topic: F.string.required(),
  recallHandle: F.string.required(),
  /** The handle's broker name (Java `TopicRequestHeader` → `RpcRequestHeader.bname`): a Proxy forwards by it. */
  bname: F.string.optional(),
});
export type RecallMessageRequestHeader = HeaderOf<typeof RecallMessage.spec>;

export const RecallMessageResponse = defineHeader('RecallMessageResponseHeader', {
  /** The recalled message's UNIQ_KEY. */
  msgId: F.string.required(),
});
export type RecallMessageResponseHeader = HeaderOf<typeof RecallMessageResponse.spec>;
