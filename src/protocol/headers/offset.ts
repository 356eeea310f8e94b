/** Consumer-offset and queue-offset commands (docs/protocol.md §10.2). */
import { RequestCode } from '../codes.js';
import { F, declareRequest, defineHeader, type HeaderOf } from './fields.js';

export const QueryConsumerOffset = declareRequest(
  RequestCode.QUERY_CONSUMER_OFFSET,
  'QUERY_CONSUMER_OFFSET',
  {
    consumerGroup: F.string.required(),
    topic: F.string.required(),
    queueId: F.int.required(),
    /** [5.x] */
    setZeroIfNotFound: F.bool.optional(),
    bname: F.string.optional(),
  },
);
export type QueryConsumerOffsetRequestHeader = HeaderOf<typeof QueryConsumerOffset.spec>;

export const UpdateConsumerOffset = declareRequest(
  RequestCode.UPDATE_CONSUMER_OFFSET,
  'UPDATE_CONSUMER_OFFSET',
  {
    consumerGroup: F.string.required(),
    topic: F.string.required(),
    queueId: F.int.required(),
    commitOffset: F.long.required(),
    bname: F.string.optional(),
  },
);
export type UpdateConsumerOffsetRequestHeader = HeaderOf<typeof UpdateConsumerOffset.spec>;

export const GetMaxOffset = declareRequest(RequestCode.GET_MAX_OFFSET, 'GET_MAX_OFFSET', {
  topic: F.string.required(),
  queueId: F.int.required(),
  /** [5.x] */
  committed: F.bool.optional(),
  bname: F.string.optional(),
});
export type GetMaxOffsetRequestHeader = HeaderOf<typeof GetMaxOffset.spec>;

export const GetMinOffset = declareRequest(RequestCode.GET_MIN_OFFSET, 'GET_MIN_OFFSET', {
  topic: F.string.required(),
  queueId: F.int.required(),
  bname: F.string.optional(),
});
export type GetMinOffsetRequestHeader = HeaderOf<typeof GetMinOffset.spec>;

export const SearchOffsetByTimestamp = declareRequest(
  RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
  'SEARCH_OFFSET_BY_TIMESTAMP',
  {
    topic: F.string.required(),
    queueId: F.int.required(),
    timestamp: F.long.required(),
    /** [5.x] `LOWER` | `UPPER` */
    boundaryType: F.string.optional(),
    bname: F.string.optional(),
  },
);
export type SearchOffsetRequestHeader = HeaderOf<typeof SearchOffsetByTimestamp.spec>;

/** Response header of QUERY_CONSUMER_OFFSET, GET_MAX_OFFSET, GET_MIN_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP. */
export const OffsetResponse = defineHeader('OffsetResponseHeader', {
  offset: F.long.required(),
});
export type OffsetResponseHeader = HeaderOf<typeof OffsetResponse.spec>;

/** GET_EARLIEST_MSG_STORETIME (32). */
export const GetEarliestMsgStoretime = declareRequest(
  RequestCode.GET_EARLIEST_MSG_STORETIME,
  'GET_EARLIEST_MSG_STORETIME',
  {
    topic: F.string.required(),
    queueId: F.int.required(),
    bname: F.string.optional(),
  },
);
export const GetEarliestMsgStoretimeResponse = defineHeader('GetEarliestMsgStoretimeResponseHeader', {
  timestamp: F.long.required(),
});
