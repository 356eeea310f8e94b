/**
 * Admin requests the broker relays to one consumer (Java `AdminBrokerProcessor#callConsumer`,
 * docs/admin-cli.md §1.3): GET_CONSUMER_RUNNING_INFO (307) and CONSUME_MESSAGE_DIRECTLY (309).
 * The client's answer goes back unchanged.
 */
import { TimeoutError } from '../../../errors.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createRequest, createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { ConsumeMessageDirectly, GetConsumerRunningInfo } from '../../../protocol/headers/consumer.js';
import { decodeOffsetMsgId } from '../../../protocol/message/message-id.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';

/** Java `Broker2Client#callClient` timeout. */
const CALL_CLIENT_TIMEOUT_MS = 10_000;

export function relayProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [GetConsumerRunningInfo.code, (r) => runningInfo(ctx, r)],
    [ConsumeMessageDirectly.code, (r) => consumeDirectly(ctx, r)],
  ];
}

function runningInfo(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const h = requestHeader(GetConsumerRunningInfo, request);
  return callConsumer(ctx, request, h.consumerGroup, h.clientId, request.extFields ?? {}, request.body);
}

async function consumeDirectly(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const h = requestHeader(ConsumeMessageDirectly, request);
  const ext = { ...(request.extFields ?? {}), brokerName: ctx.options.brokerName };
  let body = request.body;
  if (h.msgId !== undefined) {
    // Java swallows a bad id and relays without a body; the client then answers the failure.
    try {
      body = (await ctx.store.readMessageAt(decodeOffsetMsgId(h.msgId).offset)) ?? body;
    } catch {
      // keep the request body
    }
  }
  return callConsumer(ctx, request, h.consumerGroup, h.clientId ?? '', ext, body);
}

async function callConsumer(
  ctx: BrokerContext,
  request: RemotingCommand,
  group: string,
  clientId: string,
  extFields: Record<string, string>,
  body: Uint8Array | undefined,
): Promise<RemotingCommand> {
  const channels = ctx.clients.consumerGroup(group)?.channels;
  const conn = channels && [...channels].find(([, info]) => info.clientId === clientId)?.[0];
  if (!conn)
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The Consumer <${group}> <${clientId}> not online`,
    );
  try {
    const reply = await conn.request(createRequest(request.code, extFields, body), CALL_CLIENT_TIMEOUT_MS);
    return { ...reply, opaque: request.opaque };
  } catch (err) {
    if (err instanceof TimeoutError)
      return createResponse(
        request,
        ResponseCode.CONSUME_MSG_TIMEOUT,
        `consumer <${group}> <${clientId}> Timeout: ${err.message}`,
      );
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `invoke consumer <${group}> <${clientId}> Exception: ${(err as Error).message}`,
    );
  }
}
