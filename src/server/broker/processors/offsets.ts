/**
 * Offsets: QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15), GET_MAX_OFFSET (30),
 * GET_MIN_OFFSET (31), SEARCH_OFFSET_BY_TIMESTAMP (29), GET_EARLIEST_MSG_STORETIME (32).
 */
import { RequestCode, ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { RequestFields } from '../../namesrv/request-fields.js';
import type { BrokerContext } from '../context.js';

export function offsetProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [RequestCode.QUERY_CONSUMER_OFFSET, (r) => queryConsumerOffset(ctx, r)],
    [RequestCode.UPDATE_CONSUMER_OFFSET, (r) => updateConsumerOffset(ctx, r)],
    [RequestCode.GET_MAX_OFFSET, (r) => queueOffset(ctx, r, 'max')],
    [RequestCode.GET_MIN_OFFSET, (r) => queueOffset(ctx, r, 'min')],
    [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, (r) => searchOffset(ctx, r)],
    [RequestCode.GET_EARLIEST_MSG_STORETIME, (r) => earliestStoreTime(ctx, r)],
  ];
}

function queryConsumerOffset(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const f = new RequestFields(request);
  const group = f.string('consumerGroup');
  const topic = f.string('topic');
  const queueId = f.int('queueId');
  const offset = ctx.store.consumerOffsets.get(group, topic, queueId);
  if (offset !== undefined && offset >= 0)
    return createResponse(request, ResponseCode.SUCCESS, undefined, { offset });
  // Java: a group new to a queue that still starts at 0 begins there; [5.x] setZeroIfNotFound=false opts out.
  const zeroIfNotFound = f.optBool('setZeroIfNotFound') ?? true;
  if (zeroIfNotFound && ctx.store.getMinOffset(topic, queueId) <= 0) {
    return createResponse(request, ResponseCode.SUCCESS, undefined, { offset: 0 });
  }
  return createResponse(
    request,
    ResponseCode.QUERY_NOT_FOUND,
    'Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first',
  );
}

function updateConsumerOffset(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const f = new RequestFields(request);
  const group = f.string('consumerGroup');
  const topic = f.string('topic');
  const queueId = f.int('queueId');
  const commitOffset = f.int('commitOffset');
  if (queueId < 0)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `queueId[${queueId}] is illegal`);
  ctx.store.consumerOffsets.set(group, topic, queueId, commitOffset);
  return createResponse(request, ResponseCode.SUCCESS);
}

function queueOffset(ctx: BrokerContext, request: RemotingCommand, which: 'max' | 'min'): RemotingCommand {
  const f = new RequestFields(request);
  const topic = f.string('topic');
  const queueId = f.int('queueId');
  const offset =
    which === 'max' ? ctx.store.getMaxOffset(topic, queueId) : ctx.store.getMinOffset(topic, queueId);
  return createResponse(request, ResponseCode.SUCCESS, undefined, { offset });
}

async function searchOffset(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const f = new RequestFields(request);
  const offset = await ctx.store.getOffsetByTimestamp(
    f.string('topic'),
    f.int('queueId'),
    f.int('timestamp'),
  );
  return createResponse(request, ResponseCode.SUCCESS, undefined, { offset });
}

async function earliestStoreTime(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const f = new RequestFields(request);
  const topic = f.string('topic');
  const queueId = f.int('queueId');
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
  return createResponse(request, ResponseCode.SUCCESS, undefined, { timestamp });
}
