/**
 * Topic read-outs for tools: GET_TOPIC_STATS_INFO (202), per write queue the min/max offset and
 * the store time of the newest message; [5.x] GET_TOPIC_CONFIG (351), one topic's config.
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { encodeTopicStatsTable, type TopicOffset } from '../../../protocol/body/admin.js';
import type { MessageQueueData } from '../../../protocol/body/message-queue-map.js';
import { GetTopicConfig, GetTopicStatsInfo } from '../../../protocol/headers/broker-admin.js';
import { jsonBody } from '../../../protocol/headers/fields.js';
import { topicConfigJson } from '../../../protocol/headers/register.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';
import { storeTimestampAt } from './consumer-admin.js';

export function topicStatsProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [GetTopicStatsInfo.code, (r) => topicStats(ctx, r)],
    [GetTopicConfig.code, (r) => topicConfig(ctx, r)],
  ];
}

/** Java `AdminBrokerProcessor#getTopicStatsInfo`: queues 0…writeQueueNums−1. */
async function topicStats(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const { topic } = requestHeader(GetTopicStatsInfo, request);
  const config = ctx.topics.get(topic);
  if (!config) return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, `topic[${topic}] not exist`);
  const entries: Array<[MessageQueueData, TopicOffset]> = [];
  for (let queueId = 0; queueId < config.writeQueueNums; queueId++) {
    const minOffset = Math.max(0, ctx.store.getMinOffset(topic, queueId));
    const maxOffset = Math.max(0, ctx.store.getMaxOffset(topic, queueId));
    const lastUpdateTimestamp =
      maxOffset > 0 ? await storeTimestampAt(ctx, topic, queueId, maxOffset - 1) : 0;
    entries.push([
      { topic, brokerName: ctx.options.brokerName, queueId },
      { minOffset, maxOffset, lastUpdateTimestamp },
    ]);
  }
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, encodeTopicStatsTable(entries));
}

/** Java `AdminBrokerProcessor#getTopicConfig`; this broker has no static topics, so no mapping. */
function topicConfig(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { topic } = requestHeader(GetTopicConfig, request);
  const config = ctx.topics.get(topic);
  if (!config)
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, `No topic in this broker. topic: ${topic}`);
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    jsonBody(topicConfigJson(config)),
  );
}
