/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222), Java `Broker2Client#resetOffset`: the broker works out each
 * write queue's target offset and pushes RESET_CONSUMER_CLIENT_OFFSET (220) to the group's clients,
 * which apply and commit it (the broker's own offsets are left alone, as in 4.9).
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createRequest, createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { encodeResetOffsetBody } from '../../../protocol/body/admin.js';
import type { MessageQueueData } from '../../../protocol/body/message-queue-map.js';
import { InvokeBrokerToResetOffset } from '../../../protocol/headers/broker-admin.js';
import { ResetConsumerClientOffset } from '../../../protocol/headers/consumer.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';

export function resetOffsetProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [[InvokeBrokerToResetOffset.code, (r) => resetOffset(ctx, r)]];
}

async function resetOffset(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const { topic, group, timestamp, isForce } = requestHeader(InvokeBrokerToResetOffset, request);
  const config = ctx.topics.get(topic);
  if (!config)
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `[reset-offset] reset offset failed, no topic in this broker. topic=${topic}`,
    );
  const table: Array<[MessageQueueData, number]> = [];
  for (let queueId = 0; queueId < config.writeQueueNums; queueId++) {
    const committed = ctx.store.consumerOffsets.get(group, topic, queueId) ?? -1;
    if (committed === -1)
      return createResponse(request, ResponseCode.SYSTEM_ERROR, `THe consumer group <${group}> not exist`);
    let target =
      timestamp === -1
        ? ctx.store.getMaxOffset(topic, queueId)
        : await ctx.store.getOffsetByTimestamp(topic, queueId, timestamp);
    if (target < 0) target = 0;
    const offset = isForce || target < committed ? target : committed;
    table.push([{ topic, brokerName: ctx.options.brokerName, queueId }, offset]);
  }
  const channels = ctx.clients.consumerGroup(group)?.channels;
  if (!channels || channels.size === 0)
    return createResponse(
      request,
      ResponseCode.CONSUMER_NOT_ONLINE,
      `Consumer not online, so can not reset offset, Group: ${group} Topic: ${topic} Timestamp: ${timestamp}`,
    );
  const body = encodeResetOffsetBody(table);
  const header = ResetConsumerClientOffset.encode({ topic, group, timestamp, isForce: false });
  for (const conn of channels.keys()) {
    conn
      .oneway(createRequest(ResetConsumerClientOffset.code, header, body))
      .catch((err: unknown) =>
        ctx.logger.warn('reset offset push failed', { group, client: conn.remoteAddress, error: err }),
      );
  }
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}
