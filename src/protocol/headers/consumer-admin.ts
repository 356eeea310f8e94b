/**
 * Admin look-ups of a consumer group (docs/admin-cli.md §1.2): GET_CONSUMER_CONNECTION_LIST (203)
 * and GET_CONSUME_STATS (208). Bodies: protocol/body/consumer-admin.ts.
 */
import { RequestCode } from '../codes.js';
import { F, declareRequest, type HeaderOf } from './fields.js';

/** Unknown or empty group → CONSUMER_NOT_ONLINE "the consumer group[g] not online". */
export const GetConsumerConnectionList = declareRequest(
  RequestCode.GET_CONSUMER_CONNECTION_LIST,
  'GET_CONSUMER_CONNECTION_LIST',
  { consumerGroup: F.string.required() },
);
export type GetConsumerConnectionListRequestHeader = HeaderOf<typeof GetConsumerConnectionList.spec>;

/** Without `topic`: every topic the group has offsets for. Always SUCCESS. */
export const GetConsumeStats = declareRequest(RequestCode.GET_CONSUME_STATS, 'GET_CONSUME_STATS', {
  consumerGroup: F.string.required(),
  topic: F.string.optional(),
});
export type GetConsumeStatsRequestHeader = HeaderOf<typeof GetConsumeStats.spec>;
