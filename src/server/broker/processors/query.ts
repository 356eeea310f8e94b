/** VIEW_MESSAGE_BY_ID (33) and QUERY_MESSAGE (12): look messages up by commit-log offset or key. */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { QueryMessage, QueryMessageResponse, ViewMessageById } from '../../../protocol/headers/query.js';
import { requestHeader } from '../../namesrv/decode-request.js';
import type { BrokerContext } from '../context.js';

/** Java `defaultQueryMaxNum`. */
const DEFAULT_QUERY_MAX_NUM = 32;

export function queryProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [ViewMessageById.code, (r) => viewById(ctx, r)],
    [QueryMessage.code, (r) => queryMessage(ctx, r)],
  ];
}

async function viewById(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const { offset } = requestHeader(ViewMessageById, request);
  const record = offset >= 0 ? await ctx.store.readMessageAt(offset) : undefined;
  if (!record)
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `can not find message by the offset, ${offset}`,
    );
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, record);
}

async function queryMessage(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const h = requestHeader(QueryMessage, request);
  const { topic, key, beginTimestamp: begin, endTimestamp: end } = h;
  let maxNum = h.maxNum;
  if (h.uniqueKeyQuery === true) maxNum = DEFAULT_QUERY_MAX_NUM;
  if (maxNum <= 0) maxNum = DEFAULT_QUERY_MAX_NUM;
  const records = await ctx.store.queryMessagesByKey(topic, key, Math.min(maxNum, 64), begin, end);
  const header = QueryMessageResponse.encode({
    indexLastUpdateTimestamp: Date.now(),
    indexLastUpdatePhyoffset: 0,
  });
  if (records.length === 0) {
    return createResponse(
      request,
      ResponseCode.QUERY_NOT_FOUND,
      'can not find message, maybe time range not correct',
      header,
    );
  }
  return createResponse(request, ResponseCode.SUCCESS, undefined, header, Buffer.concat(records));
}
