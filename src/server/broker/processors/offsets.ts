/**
 * Offsets: QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15), GET_MAX_OFFSET (30),
 * GET_MIN_OFFSET (31), SEARCH_OFFSET_BY_TIMESTAMP (29), GET_EARLIEST_MSG_STORETIME (32).
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import type { RequestHandler } from '../../../remoting/options.js';
import {
  GetEarliestMsgStoretime,
  GetEarliestMsgStoretimeResponse,
  GetMaxOffset,
  GetMinOffset,
  OffsetResponse,
  QueryConsumerOffset,
  SearchOffsetByTimestamp,
  UpdateConsumerOffset,
} from '../../../protocol/headers/offset.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';

export function offsetProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [QueryConsumerOffset.code, (r) => queryConsumerOffset(ctx, r)],
    [UpdateConsumerOffset.code, (r) => updateConsumerOffset(ctx, r)],
    [GetMaxOffset.code, (r) => queueOffset(ctx, r, 'max')],
    [GetMinOffset.code, (r) => queueOffset(ctx, r, 'min')],
    [SearchOffsetByTimestamp.code, (r) => searchOffset(ctx, r)],
    [GetEarliestMsgStoretime.code, (r) => earliestStoreTime(ctx, r)],
  ];
}

/**
 * Java `ConsumerManageProcessor#queryConsumerOffset`: the stored offset; else 0 when the queue
 * still starts at 0 and its message 0 is "in memory", else QUERY_NOT_FOUND (the client then
 * starts from its consumeFromWhere). "In memory" is Java's rule: message 0 lies within the last
 * 40% of RAM of the commit log (`accessMessageInMemoryMaxRatio`); an empty queue counts as in
 * memory. So a new group on a young queue reads it from the start, like on a Java broker.
 * [5.x] `setZeroIfNotFound=false` forces QUERY_NOT_FOUND.
 */
async function queryConsumerOffset(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const {
    consumerGroup: group,
    topic,
    queueId,
    setZeroIfNotFound,
  } = requestHeader(QueryConsumerOffset, request);
  const offset = ctx.store.consumerOffsets.get(group, topic, queueId);
  if (offset !== undefined && offset >= 0) return offsetResponse(request, offset);
  if (
    (setZeroIfNotFound ?? true) &&
    ctx.store.getMinOffset(topic, queueId) <= 0 &&
    !(await ctx.store.checkInDiskByConsumeOffset(topic, queueId, 0))
  ) {
    return offsetResponse(request, 0);
  }
  return createResponse(
    request,
    ResponseCode.QUERY_NOT_FOUND,
    'Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first',
  );
}

function updateConsumerOffset(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { consumerGroup: group, topic, queueId, commitOffset } = requestHeader(UpdateConsumerOffset, request);
  if (queueId < 0)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `queueId[${queueId}] is illegal`);
  ctx.store.consumerOffsets.set(group, topic, queueId, commitOffset);
  return createResponse(request, ResponseCode.SUCCESS);
}

function queueOffset(ctx: BrokerContext, request: RemotingCommand, which: 'max' | 'min'): RemotingCommand {
  const { topic, queueId } = requestHeader(which === 'max' ? GetMaxOffset : GetMinOffset, request);
  const offset =
    which === 'max' ? ctx.store.getMaxOffset(topic, queueId) : ctx.store.getMinOffset(topic, queueId);
  return offsetResponse(request, offset);
}

async function searchOffset(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const { topic, queueId, timestamp } = requestHeader(SearchOffsetByTimestamp, request);
  return offsetResponse(request, await ctx.store.getOffsetByTimestamp(topic, queueId, timestamp));
}

async function earliestStoreTime(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const { topic, queueId } = requestHeader(GetEarliestMsgStoretime, request);
  const min = ctx.store.getMinOffset(topic, queueId);
  const got = await ctx.store.getMessages(topic, queueId, min, 1);
  const first = got.messages[0];
  if (got.status !== 'FOUND' || !first) {
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `Physical offset which is not found. topic=${topic} queueId=${queueId}`,
    );
  }
  const timestamp = decodeStoredMessage(first).message.storeTimestamp;
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    GetEarliestMsgStoretimeResponse.encode({ timestamp }),
  );
}

function offsetResponse(request: RemotingCommand, offset: number): RemotingCommand {
  return createResponse(request, ResponseCode.SUCCESS, undefined, OffsetResponse.encode({ offset }));
}
