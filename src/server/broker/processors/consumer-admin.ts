/**
 * Admin look-ups of a consumer group (Java `AdminBrokerProcessor`): GET_CONSUMER_CONNECTION_LIST
 * (203), who is connected and what the group subscribes; GET_CONSUME_STATS (208), per queue the
 * broker's max offset against the group's committed offset (the lag tools show).
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import {
  encodeConsumeStats,
  encodeConsumerConnection,
  type ConsumerConnectionEntry,
  type OffsetWrapper,
} from '../../../protocol/body/consumer-admin.js';
import type { MessageQueueData } from '../../../protocol/body/message-queue-map.js';
import { GetConsumeStats, GetConsumerConnectionList } from '../../../protocol/headers/consumer-admin.js';
import type { SubscriptionData as WireSubscription } from '../../../protocol/headers/heartbeat.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader } from '../request-header.js';
import type { SubscriptionData } from '../client-manager.js';
import type { BrokerContext } from '../context.js';
import type { PopService } from '../pop/pop-service.js';

export function consumerAdminProcessors(
  ctx: BrokerContext,
  pop: PopService,
): Array<[number, RequestHandler]> {
  return [
    [GetConsumerConnectionList.code, (r) => consumerConnectionList(ctx, r)],
    [GetConsumeStats.code, (r) => consumeStats(ctx, pop, r)],
  ];
}

/** The heartbeat's SubscriptionData as the broker keeps it (tag and code sets from the compiled filter). */
function wireSubscription(s: SubscriptionData): WireSubscription {
  const tags = s.filter?.type === 'TAG' ? s.filter.tags : undefined;
  return {
    topic: s.topic,
    subString: s.subString,
    tagsSet: tags ? [...tags.tags] : [],
    codeSet: tags ? [...tags.codes] : [],
    subVersion: s.subVersion,
    expressionType: s.expressionType,
    classFilterMode: false,
  };
}

function consumerConnectionList(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { consumerGroup } = requestHeader(GetConsumerConnectionList, request);
  const group = ctx.clients.consumerGroup(consumerGroup);
  if (!group || group.channels.size === 0)
    return createResponse(
      request,
      ResponseCode.CONSUMER_NOT_ONLINE,
      `the consumer group[${consumerGroup}] not online`,
    );
  const connectionSet: ConsumerConnectionEntry[] = [...group.channels].map(([conn, info]) => ({
    clientId: info.clientId,
    clientAddr: conn.remoteAddress,
    language: info.language,
    version: info.version,
  }));
  connectionSet.sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  const subscriptionTable: Record<string, WireSubscription> = {};
  for (const [topic, sub] of group.subscriptions) subscriptionTable[topic] = wireSubscription(sub);
  const body = encodeConsumerConnection({
    connectionSet,
    subscriptionTable,
    consumeType: group.consumeType,
    messageModel: group.messageModel,
    consumeFromWhere: group.consumeFromWhere,
  });
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}

/** Store time of the message at `offset`, 0 when it is gone. */
export async function storeTimestampAt(
  ctx: BrokerContext,
  topic: string,
  queueId: number,
  offset: number,
): Promise<number> {
  const got = await ctx.store.getMessages(topic, queueId, offset, 1);
  const rec = got.status === 'FOUND' ? got.messages[0] : undefined;
  return rec ? decodeStoredMessage(rec).message.storeTimestamp : 0;
}

/**
 * Java `AdminBrokerProcessor#getConsumeStats`: the given topic, or every topic the group has
 * offsets for; topics without config are skipped, and so are unsubscribed ones while the group
 * is online with subscriptions. Queues 0…readQueueNums−1; a negative committed offset reads 0.
 * Ours: each queue's `popInflight`, the group's POP messages handed out and not acked.
 */
async function consumeStats(
  ctx: BrokerContext,
  pop: PopService,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const { consumerGroup, topic } = requestHeader(GetConsumeStats, request);
  const topics =
    topic !== undefined && topic !== ''
      ? [topic]
      : ctx.store.consumerOffsets
          .entries()
          .filter((e) => e.group === consumerGroup)
          .map((e) => e.topic);
  const online = ctx.clients.consumerGroup(consumerGroup);
  const inflight = pop.state.inflightOf(consumerGroup);
  const offsetTable: Array<readonly [MessageQueueData, OffsetWrapper]> = [];
  let consumeTps = 0;
  for (const t of topics) {
    const config = ctx.topics.get(t);
    if (!config) continue;
    if (online && online.subscriptions.size > 0 && !online.subscriptions.has(t)) continue;
    for (let queueId = 0; queueId < config.readQueueNums; queueId++) {
      const brokerOffset = ctx.store.getMaxOffset(t, queueId);
      const consumerOffset = Math.max(0, ctx.store.consumerOffsets.get(consumerGroup, t, queueId) ?? -1);
      const lastTimestamp =
        consumerOffset > 0 ? await storeTimestampAt(ctx, t, queueId, consumerOffset - 1) : 0;
      offsetTable.push([
        { topic: t, brokerName: ctx.options.brokerName, queueId },
        { brokerOffset, consumerOffset, lastTimestamp, popInflight: inflight.get(`${t}@${queueId}`) ?? 0 },
      ]);
    }
    consumeTps += ctx.stats.groupGetTps(t, consumerGroup);
  }
  const body = encodeConsumeStats({ offsetTable, consumeTps });
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}
