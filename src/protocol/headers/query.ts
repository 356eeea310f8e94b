/** QUERY_MESSAGE (12) and VIEW_MESSAGE_BY_ID (33), docs/protocol.md §10.2. Bodies are stored messages. */
import { RequestCode } from '../codes.js';
import { F, declareRequest, defineHeader, type HeaderOf } from './fields.js';

/** extFields key QUERY_MESSAGE adds outside the header; excluded from ACL signatures. */
export const UNIQUE_MSG_QUERY_FLAG = '_UNIQUE_KEY_QUERY';

export const QueryMessage = declareRequest(RequestCode.QUERY_MESSAGE, 'QUERY_MESSAGE', {
  topic: F.string.required(),
  key: F.string.required(),
  maxNum: F.int.required(),
  beginTimestamp: F.long.required(),
  endTimestamp: F.long.required(),
  /** True: `key` is a UNIQ_KEY; false: a KEYS entry. */
  uniqueKeyQuery: F.bool.optional(UNIQUE_MSG_QUERY_FLAG),
  bname: F.string.optional(),
});
export type QueryMessageRequestHeader = HeaderOf<typeof QueryMessage.spec>;

export const QueryMessageResponse = defineHeader('QueryMessageResponseHeader', {
  indexLastUpdateTimestamp: F.long.required(),
  indexLastUpdatePhyoffset: F.long.required(),
});
export type QueryMessageResponseHeader = HeaderOf<typeof QueryMessageResponse.spec>;

export const ViewMessageById = declareRequest(RequestCode.VIEW_MESSAGE_BY_ID, 'VIEW_MESSAGE_BY_ID', {
  /** Commit-log offset decoded from the offsetMsgId. */
  offset: F.long.required(),
  /** [5.x] */
  topic: F.string.optional(),
  bname: F.string.optional(),
});
export type ViewMessageRequestHeader = HeaderOf<typeof ViewMessageById.spec>;
