/**
 * Client bookkeeping: HEART_BEAT (34), UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38),
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ (41/42, orderly consumers) and CHECK_CLIENT_CONFIG (46).
 */
import { ProtocolError } from '../../../errors.js';
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
  type MessageQueueData,
} from '../../../protocol/headers/consumer.js';
import { HeartBeat, parseHeartbeatData, UnregisterClient } from '../../../protocol/headers/heartbeat.js';
import { PermName } from '../../../protocol/perm.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../../protocol/validation.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader, requiredBody } from '../../namesrv/decode-request.js';
import type { HeartbeatConsumer } from '../client-manager.js';
import type { BrokerContext } from '../context.js';

/** Java `REBALANCE_LOCK_MAX_LIVE_TIME`. */
const LOCK_MAX_LIVE_MS = 60_000;

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
  return {
    clientID: data.clientID,
    producerGroups: data.producerDataSet.map((p) => p.groupName).filter((g) => g !== ''),
    consumers,
  };
}

function parseLockBody(request: RemotingCommand, what: string): LockBatchBody {
  return parseLockBatchBody(requiredBody(request, what));
}

export function clientProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  const locks = new Map<string, Map<string, { clientId: string; lastUpdate: number }>>();
  return [
    [HeartBeat.code, (r, c) => heartbeat(ctx, r, c)],
    [UnregisterClient.code, (r, c) => unregisterClient(ctx, r, c)],
    [GetConsumerListByGroup.code, (r) => consumerList(ctx, r)],
    [LockBatchMQ.code, (r) => lockBatch(locks, r)],
    [UnlockBatchMQ.code, (r) => unlockBatch(locks, r)],
    [CheckClientConfig.code, (r) => createResponse(r, ResponseCode.SUCCESS)],
  ];
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

function mqKey(mq: MessageQueueData): string {
  return `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
}

function lockBatch(
  locks: Map<string, Map<string, { clientId: string; lastUpdate: number }>>,
  request: RemotingCommand,
): RemotingCommand {
  const { consumerGroup: group, clientId, mqSet } = parseLockBody(request, 'lock batch');
  if (group === '' || clientId === '')
    throw new ProtocolError('lock batch: consumerGroup and clientId are required');
  let table = locks.get(group);
  if (!table) locks.set(group, (table = new Map()));
  const now = Date.now();
  const locked: MessageQueueData[] = [];
  for (const mq of mqSet) {
    const k = mqKey(mq);
    const entry = table.get(k);
    if (!entry || entry.clientId === clientId || now - entry.lastUpdate > LOCK_MAX_LIVE_MS) {
      table.set(k, { clientId, lastUpdate: now });
      locked.push(mq);
    }
  }
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeLockBatchResponseBody(locked),
  );
}

function unlockBatch(
  locks: Map<string, Map<string, { clientId: string; lastUpdate: number }>>,
  request: RemotingCommand,
): RemotingCommand {
  const { consumerGroup, clientId, mqSet } = parseLockBody(request, 'unlock batch');
  const table = locks.get(consumerGroup);
  if (table) {
    for (const mq of mqSet) {
      const k = mqKey(mq);
      if (table.get(k)?.clientId === clientId) table.delete(k);
    }
  }
  return createResponse(request, ResponseCode.SUCCESS);
}
