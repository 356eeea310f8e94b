/** VIEW_MESSAGE_BY_ID (33) and QUERY_MESSAGE (12): look messages up by commit-log offset or key. */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { QueryMessage, QueryMessageResponse, ViewMessageById } from '../../../protocol/headers/query.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';
import { Perm } from '../../acl/permission.js';

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
  // Stricter than Java (request-rules.ts): SUB on the topic of the message read. The remark
  // does not name the topic, which would tell a non-subscriber what lives at the offset.
  if (
    ctx.options.acl !== undefined &&
    !ctx.aclAllows(request, decodeStoredMessage(record).message.topic, Perm.SUB)
  )
    return createResponse(
      request,
      ResponseCode.NO_PERMISSION,
      `No SUB permission on the topic of the message at offset ${offset}`,
    );
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, record);
}

/**
 * `mqadmin queryMsgByKey` sends Long.MAX_VALUE as "no end"; a JS number cannot hold it, and any
 * time past Number.MAX_SAFE_INTEGER ms bounds the search the same way, so such values are clamped.
 */
function withSafeTimestamps(request: RemotingCommand): RemotingCommand {
  const ext = request.extFields;
  if (!ext) return request;
  const out = { ...ext };
  for (const k of ['beginTimestamp', 'endTimestamp']) {
    const v = out[k]?.trim();
    if (v !== undefined && /^\d{17,20}$/.test(v) && BigInt(v) > BigInt(Number.MAX_SAFE_INTEGER))
      out[k] = String(Number.MAX_SAFE_INTEGER);
  }
  return { ...request, extFields: out };
}

async function queryMessage(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const h = requestHeader(QueryMessage, withSafeTimestamps(request));
  const { topic, key, beginTimestamp: begin, endTimestamp: end } = h;
  let maxNum = h.maxNum;
  if (h.uniqueKeyQuery === true) maxNum = DEFAULT_QUERY_MAX_NUM;
  if (maxNum <= 0) maxNum = DEFAULT_QUERY_MAX_NUM;
  const records = await ctx.store.queryMessagesByKey(topic, key, Math.min(maxNum, 64), begin, end);
  const last = await lastStoredMessage(ctx);
  const header = QueryMessageResponse.encode({
    indexLastUpdateTimestamp: last?.storeTimestamp ?? 0,
    indexLastUpdatePhyoffset: last?.physicalOffset ?? 0,
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

/**
 * The newest stored message: where Java's index header says the index last grew (endPhyOffset,
 * endTimestamp). The key index is updated with every put, so that is the last put; Java counts
 * only messages with keys, which nearly all are (producers set UNIQ_KEY). Without a put since
 * start, the last message of every queue is read once.
 */
async function lastStoredMessage(
  ctx: BrokerContext,
): Promise<{ physicalOffset: number; storeTimestamp: number } | undefined> {
  const arrivals =
    ctx.stats.latestArrivals() ??
    ctx.store
      .topics()
      .flatMap((topic) =>
        ctx.store
          .queueIds(topic)
          .map((queueId) => ({ topic, queueId, maxOffset: ctx.store.getMaxOffset(topic, queueId) })),
      );
  let best: { physicalOffset: number; storeTimestamp: number } | undefined;
  for (const { topic, queueId, maxOffset } of arrivals) {
    if (maxOffset <= 0) continue;
    const got = await ctx.store.getMessages(topic, queueId, maxOffset - 1, 1);
    const record = got.status === 'FOUND' ? got.messages[0] : undefined;
    if (!record) continue;
    const { physicalOffset, storeTimestamp } = decodeStoredMessage(record).message;
    if (!best || physicalOffset > best.physicalOffset) best = { physicalOffset, storeTimestamp };
  }
  return best;
}
