/**
 * Client bookkeeping: HEART_BEAT (34), UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38),
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ (41/42, orderly consumers) and CHECK_CLIENT_CONFIG (46).
 */
import { ProtocolError, FilterExpressionError } from '../../../errors.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import {
  CheckClientConfig,
  encodeConsumerListBody,
  encodeLockBatchResponseBody,
  GetConsumerListByGroup,
  LockBatchMQ,
  parseLockBatchBody,
  UnlockBatchMQ,
  type LockBatchBody,
} from '../../../protocol/headers/consumer.js';
import { HeartBeat, parseHeartbeatData, UnregisterClient } from '../../../protocol/headers/heartbeat.js';
import { parseFastjsonBytes } from '../../../protocol/fastjson.js';
import { PermName } from '../../../protocol/perm.js';
import { RETRY_GROUP_TOPIC_PREFIX, validateGroup, validateTopic } from '../../../protocol/validation.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader, requiredBody } from '../request-header.js';
import type { HeartbeatConsumer } from '../client-manager.js';
import type { BrokerContext } from '../context.js';
import { isTagType } from '../../../protocol/filter/tags.js';
import { buildMessageFilter } from '../message-filter.js';
import { filterUnsupportedRemark } from './pull.js';

interface Heartbeat {
  clientID: string;
  producerGroups: string[];
  consumers: HeartbeatConsumer[];
}

function parseHeartbeat(request: RemotingCommand): Heartbeat {
  const data = parseHeartbeatData(requiredBody(request, 'heartbeat'));
  if (data.clientID === '') throw new ProtocolError('heartbeat: clientID is missing');
  const consumers = data.consumerDataSet.map((c): HeartbeatConsumer => {
    if (c.groupName === '') throw new ProtocolError('heartbeat: bad consumer data');
    // Names from the body pass the same validator as header names (request-header.ts).
    validateGroup(c.groupName, 'consumerDataSet.groupName');
    for (const s of c.subscriptionDataSet) validateTopic(s.topic, 'subscriptionDataSet.topic');
    return {
      groupName: c.groupName,
      consumeType: c.consumeType,
      messageModel: c.messageModel,
      consumeFromWhere: c.consumeFromWhere,
      subscriptions: c.subscriptionDataSet.map(({ topic, subString, expressionType, subVersion }) => ({
        topic,
        subString,
        expressionType,
        subVersion,
      })),
    };
  });
  const producerGroups = data.producerDataSet.map((p) => p.groupName).filter((g) => g !== '');
  for (const g of producerGroups) validateGroup(g, 'producerDataSet.groupName');
  return { clientID: data.clientID, producerGroups, consumers };
}

/**
 * A lock body, its names held to the topic and group rules as header names are at the edge
 * (docs/security.md §7): the lock table keeps them for as long as the client lives.
 */
function parseLockBody(request: RemotingCommand, what: string): LockBatchBody {
  const body = parseLockBatchBody(requiredBody(request, what));
  if (body.consumerGroup !== '') validateGroup(body.consumerGroup, 'consumerGroup');
  body.mqSet.forEach((mq, i) => validateTopic(mq.topic, `mqSet[${i}].topic`));
  return body;
}

export function clientProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [HeartBeat.code, (r, c) => heartbeat(ctx, r, c)],
    [UnregisterClient.code, (r, c) => unregisterClient(ctx, r, c)],
    [GetConsumerListByGroup.code, (r) => consumerList(ctx, r)],
    [LockBatchMQ.code, (r) => lockBatch(ctx, r)],
    [UnlockBatchMQ.code, (r) => unlockBatch(ctx, r)],
    [CheckClientConfig.code, (r) => checkClientConfig(ctx, r)],
  ];
}

/**
 * CHECK_CLIENT_CONFIG (Java `ClientManageProcessor#checkClientConfig`): a push consumer asks before
 * start whether its filter works here. TAG always does; another type needs `enablePropertyFilter`
 * (else SYSTEM_ERROR) and must compile (else SUBSCRIPTION_PARSE_FAILED with the parser's message).
 */
function checkClientConfig(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  if (!request.body || request.body.length === 0) return createResponse(request, ResponseCode.SUCCESS);
  const body = parseFastjsonBytes(request.body);
  const sub =
    body !== null && typeof body === 'object'
      ? (body as Record<string, unknown>).subscriptionData
      : undefined;
  if (sub === null || typeof sub !== 'object') return createResponse(request, ResponseCode.SUCCESS);
  const { expressionType: type, subString } = sub as Record<string, unknown>;
  const expressionType = typeof type === 'string' ? type : undefined;
  if (isTagType(expressionType)) return createResponse(request, ResponseCode.SUCCESS);
  if (!ctx.options.enablePropertyFilter)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, filterUnsupportedRemark(expressionType ?? ''));
  try {
    buildMessageFilter(expressionType, typeof subString === 'string' ? subString : '');
  } catch (err) {
    if (!(err instanceof FilterExpressionError)) throw err;
    return createResponse(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, err.message);
  }
  return createResponse(request, ResponseCode.SUCCESS);
}

function heartbeat(ctx: BrokerContext, request: RemotingCommand, conn: Connection): RemotingCommand {
  const data = parseHeartbeat(request);
  const info = {
    clientId: data.clientID,
    language: request.language,
    version: request.version,
    lastUpdateTimestamp: Date.now(),
  };
  for (const group of data.producerGroups) ctx.clients.registerProducer(group, conn, { ...info });
  for (const consumer of data.consumers) {
    // Java creates the retry topic with the subscription group, so the route exists before the first retry.
    ctx.topics.createTopicInSendMessageBackMethod(
      RETRY_GROUP_TOPIC_PREFIX + consumer.groupName,
      1,
      PermName.PERM_READ | PermName.PERM_WRITE,
    );
    ctx.clients.registerConsumer(consumer, conn, { ...info });
  }
  return createResponse(request, ResponseCode.SUCCESS);
}

function unregisterClient(ctx: BrokerContext, request: RemotingCommand, conn: Connection): RemotingCommand {
  const { producerGroup, consumerGroup } = requestHeader(UnregisterClient, request);
  if (producerGroup !== undefined) ctx.clients.unregisterProducer(producerGroup, conn);
  if (consumerGroup !== undefined) ctx.clients.unregisterConsumer(consumerGroup, conn);
  return createResponse(request, ResponseCode.SUCCESS);
}

function consumerList(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { consumerGroup: group } = requestHeader(GetConsumerListByGroup, request);
  const ids = ctx.clients.consumerIds(group);
  if (ids.length === 0)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `no consumer for this group, ${group}`);
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, encodeConsumerListBody(ids));
}

function lockBatch(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { consumerGroup: group, clientId, mqSet } = parseLockBody(request, 'lock batch');
  if (group === '' || clientId === '')
    throw new ProtocolError('lock batch: consumerGroup and clientId are required');
  const locked = ctx.clients.locks.lock(group, clientId, mqSet);
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeLockBatchResponseBody(locked),
  );
}

function unlockBatch(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const { consumerGroup, clientId, mqSet } = parseLockBody(request, 'unlock batch');
  ctx.clients.locks.unlock(consumerGroup, clientId, mqSet);
  return createResponse(request, ResponseCode.SUCCESS);
}
