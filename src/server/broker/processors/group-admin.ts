/**
 * Group administration (Java `AdminBrokerProcessor`): subscription groups (200 create/update,
 * 201 list, 352 one, 207 delete), the connections of a producer group (204) and which groups consume a
 * topic (300).
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import {
  encodeGroupList,
  encodeProducerConnection,
  encodeSubscriptionGroupConfig,
  encodeSubscriptionGroupWrapper,
  parseSubscriptionGroupConfig,
} from '../../../protocol/body/admin.js';
import type { ConsumerConnectionEntry } from '../../../protocol/body/consumer-admin.js';
import {
  DeleteSubscriptionGroup,
  GetAllSubscriptionGroupConfig,
  GetProducerConnectionList,
  GetSubscriptionGroupConfig,
  QueryTopicConsumeByWho,
  UpdateAndCreateSubscriptionGroup,
} from '../../../protocol/headers/broker-admin.js';
import { checkGroup } from '../../../protocol/validation.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader, requiredBody } from '../request-header.js';
import { requestHeader as decodeRequestHeader } from '../../namesrv/decode-request.js';
import type { BrokerContext } from '../context.js';

export function groupAdminProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [UpdateAndCreateSubscriptionGroup.code, (r) => updateGroup(ctx, r)],
    [GetAllSubscriptionGroupConfig.code, (r) => allGroups(ctx, r)],
    [GetSubscriptionGroupConfig.code, (r) => oneGroup(ctx, r)],
    [DeleteSubscriptionGroup.code, (r) => deleteGroup(ctx, r)],
    [GetProducerConnectionList.code, (r) => producerConnections(ctx, r)],
    [QueryTopicConsumeByWho.code, (r) => consumedBy(ctx, r)],
  ];
}

function updateGroup(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const config = parseSubscriptionGroupConfig(requiredBody(request, 'SubscriptionGroupConfig'));
  // Java 5.x `TopicValidator.validateGroup`, answered INVALID_PARAMETER with its remark.
  const problem = checkGroup(config.groupName, 'groupName');
  if (problem !== undefined) return createResponse(request, ResponseCode.INVALID_PARAMETER, problem);
  ctx.subscriptionGroups.update(config);
  return createResponse(request, ResponseCode.SUCCESS);
}

/**
 * Groups consuming here (online or with offsets) are auto-created first, as Java's
 * `autoCreateSubscriptionGroup` does when they heartbeat or pull.
 */
function allGroups(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  for (const g of ctx.clients.consumerGroupNames()) ctx.subscriptionGroups.ensure(g);
  for (const e of ctx.store.consumerOffsets.entries()) ctx.subscriptionGroups.ensure(e.group);
  const body = encodeSubscriptionGroupWrapper(ctx.subscriptionGroups.wrapper());
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}

/** Java `getSubscriptionGroup` through `findSubscriptionGroupConfig`, which auto-creates the group. */
function oneGroup(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  // Decoded without the edge's name check: the name is checked just below, before anything is
  // created, and answered as Java answers it (SUBSCRIPTION_GROUP_NOT_EXIST, not SYSTEM_ERROR).
  const { group } = decodeRequestHeader(GetSubscriptionGroupConfig, request);
  if (checkGroup(group, 'group') !== undefined)
    return createResponse(request, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, 'No group in this broker');
  ctx.subscriptionGroups.ensure(group);
  const config = ctx.subscriptionGroups.get(group)!;
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeSubscriptionGroupConfig(config),
  );
}

function deleteGroup(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const h = requestHeader(DeleteSubscriptionGroup, request);
  ctx.subscriptionGroups.delete(h.groupName);
  if (h.removeOffset === true || h.cleanOffset === true) {
    for (const e of ctx.store.consumerOffsets.entries())
      if (e.group === h.groupName) ctx.store.consumerOffsets.removeGroupTopic(e.group, e.topic);
  }
  return createResponse(request, ResponseCode.SUCCESS);
}

function producerConnections(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { producerGroup } = requestHeader(GetProducerConnectionList, request);
  const channels = ctx.clients.producerChannels(producerGroup);
  if (!channels || channels.size === 0)
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `the producer group[${producerGroup}] not exist`,
    );
  const set: ConsumerConnectionEntry[] = [...channels].map(([conn, info]) => ({
    clientId: info.clientId,
    clientAddr: conn.remoteAddress,
    language: info.language,
    version: info.version,
  }));
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, encodeProducerConnection(set));
}

/** Java `queryTopicConsumeByWho`: online subscribers ∪ groups with stored offsets. */
function consumedBy(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { topic } = requestHeader(QueryTopicConsumeByWho, request);
  const groups = new Set<string>();
  for (const g of ctx.clients.consumerGroupNames())
    if (ctx.clients.consumerGroup(g)?.subscriptions.has(topic)) groups.add(g);
  for (const g of ctx.store.consumerOffsets.groupsOf(topic)) groups.add(g);
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeGroupList([...groups].sort()),
  );
}
