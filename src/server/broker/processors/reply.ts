/**
 * SEND_REPLY_MESSAGE (324) / SEND_REPLY_MESSAGE_V2 (325), Java `ReplyMessageProcessor`
 * (RIP-16): push the reply to the requester's connection, found by the
 * REPLY_TO_CLIENT client id among the producers' heartbeats, with PUSH_REPLY_MESSAGE_TO_CLIENT
 * (a sync request), then store it in the reply topic (Java's default `storeReplyMessageEnable`).
 * The answer's code is the push result, as in Java.
 */
import { RequestCode, ResponseCode } from '../../../protocol/codes.js';
import { createRequest, createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { PushReplyMessageToClient } from '../../../protocol/headers/reply.js';
import { decodeAnySendMessageRequestHeader } from '../../../protocol/headers/send.js';
import { decodeProperties, encodeProperties, PropertyKey } from '../../../protocol/message/properties.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { BrokerContext } from '../context.js';
import { bornHostOf, checkMessage, SendRejection } from './send.js';
import { encodeOffsetMsgId } from '../../../protocol/message/message-id.js';

/** Java `Broker2Client#callClient` timeout for the push. */
export const PUSH_REPLY_TIMEOUT_MS = 10_000;

export function replyProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  const handler: RequestHandler = (request, conn) => processReply(ctx, request, conn);
  return [
    [RequestCode.SEND_REPLY_MESSAGE, handler],
    [RequestCode.SEND_REPLY_MESSAGE_V2, handler],
  ];
}

function answer(
  ctx: BrokerContext,
  request: RemotingCommand,
  code: number,
  remark: string | undefined,
  fields: { msgId: string; queueId: number; queueOffset: number },
): RemotingCommand {
  const response = createResponse(request, code, remark);
  response.extFields = {
    msgId: fields.msgId,
    queueId: String(fields.queueId),
    queueOffset: String(fields.queueOffset),
    MSG_REGION: ctx.options.regionId,
    TRACE_ON: ctx.options.traceOn ? 'true' : 'false',
  };
  return response;
}

async function processReply(
  ctx: BrokerContext,
  request: RemotingCommand,
  conn: Connection,
): Promise<RemotingCommand> {
  const header = decodeAnySendMessageRequestHeader(request.code, request.extFields);
  let queueId = header.queueId;
  try {
    const config = checkMessage(ctx, header, false);
    if (queueId < 0) queueId = Math.floor(Math.random() * Math.max(1, config.writeQueueNums));
  } catch (err) {
    if (err instanceof SendRejection) return createResponse(request, err.code, err.remark);
    throw err;
  }
  const body = request.body ?? new Uint8Array(0);
  const props = decodeProperties(header.properties ?? '');
  const replyTo = props[PropertyKey.REPLY_TO_CLIENT];
  const fields = { msgId: '0', queueId, queueOffset: 0 };
  if (replyTo === undefined) {
    return answer(
      ctx,
      request,
      ResponseCode.SYSTEM_ERROR,
      'reply message properties[REPLY_TO_CLIENT] is null',
      fields,
    );
  }
  const target = ctx.clients.producerChannelOfClient(replyTo);
  if (target === undefined) {
    return answer(
      ctx,
      request,
      ResponseCode.SYSTEM_ERROR,
      `push reply message fail, channel of <${replyTo}> not found.`,
      fields,
    );
  }
  const now = Date.now();
  props[PropertyKey.PUSH_REPLY_TIME] = String(now);
  const pushHeader = PushReplyMessageToClient.encode({
    producerGroup: header.producerGroup,
    topic: header.topic,
    defaultTopic: header.defaultTopic,
    defaultTopicQueueNums: header.defaultTopicQueueNums,
    queueId,
    sysFlag: header.sysFlag,
    bornTimestamp: header.bornTimestamp,
    flag: header.flag,
    properties: encodeProperties(props, PropertyKey.WAIT),
    reconsumeTimes: header.reconsumeTimes ?? 0,
    unitMode: header.unitMode,
    bornHost: conn.remoteAddress,
    storeHost: `${ctx.storeHost.address}:${ctx.storeHost.port}`,
    storeTimestamp: now,
  });
  let code: number = ResponseCode.SUCCESS;
  let remark: string | undefined;
  try {
    const pushed = await target.request(
      createRequest(PushReplyMessageToClient.code, pushHeader, body),
      PUSH_REPLY_TIMEOUT_MS,
    );
    if (pushed.code !== ResponseCode.SUCCESS) {
      code = ResponseCode.SYSTEM_ERROR;
      remark = `push reply message to ${replyTo}fail.`;
    }
  } catch (err) {
    ctx.logger.warn('push reply message failed', { clientId: replyTo, error: (err as Error).message });
    code = ResponseCode.SYSTEM_ERROR;
    remark = `push reply message to ${replyTo}fail.`;
  }
  props[PropertyKey.CLUSTER] = ctx.options.brokerClusterName;
  const stored = await ctx.putMessage({
    topic: header.topic,
    queueId,
    flag: header.flag,
    sysFlag: header.sysFlag,
    bornTimestamp: header.bornTimestamp,
    bornHost: bornHostOf(conn),
    storeHost: ctx.storeHost,
    reconsumeTimes: header.reconsumeTimes ?? 0,
    preparedTransactionOffset: 0,
    body,
    properties: encodeProperties(props, PropertyKey.WAIT),
  });
  if (stored.status === 'PUT_OK' || stored.status === 'FLUSH_DISK_TIMEOUT') {
    fields.msgId = encodeOffsetMsgId(ctx.storeHost.address, ctx.storeHost.port, stored.physicalOffset);
    fields.queueOffset = stored.queueOffset;
  }
  return answer(ctx, request, code, remark, fields);
}
