/** VIEW_MESSAGE_BY_ID (33) and QUERY_MESSAGE (12): look messages up by commit-log offset or key. */
import { RequestCode, ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { RequestFields } from '../../namesrv/request-fields.js';
import type { BrokerContext } from '../context.js';

/** Java `defaultQueryMaxNum`. */
const DEFAULT_QUERY_MAX_NUM = 32;

export function queryProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [RequestCode.VIEW_MESSAGE_BY_ID, (r) => viewById(ctx, r)],
    [RequestCode.QUERY_MESSAGE, (r) => queryMessage(ctx, r)],
  ];
}

async function viewById(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const offset = new RequestFields(request).int('offset');
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
  const f = new RequestFields(request);
  const topic = f.string('topic');
  const key = f.string('key');
  let maxNum = f.int('maxNum');
  const begin = f.int('beginTimestamp');
  const end = f.int('endTimestamp');
  if (f.optBool('_UNIQUE_KEY_QUERY') === true) maxNum = DEFAULT_QUERY_MAX_NUM;
  if (maxNum <= 0) maxNum = DEFAULT_QUERY_MAX_NUM;
  const records = await ctx.store.queryMessagesByKey(topic, key, Math.min(maxNum, 64), begin, end);
  const header = { indexLastUpdateTimestamp: Date.now(), indexLastUpdatePhyoffset: 0 };
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
