/**
 * Client bookkeeping: HEART_BEAT (34), UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38),
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ (41/42, orderly consumers) and CHECK_CLIENT_CONFIG (46).
 */
import { RequestCode, ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { parseFastjsonBytes } from '../../../protocol/fastjson.js';
import { PermName } from '../../../protocol/perm.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../../protocol/validation.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { BadRequestError, RequestFields } from '../../namesrv/request-fields.js';
import type { HeartbeatConsumer } from '../client-manager.js';
import type { BrokerContext } from '../context.js';

const CHECK_CLIENT_CONFIG = 46;
/** Java `REBALANCE_LOCK_MAX_LIVE_TIME`. */
const LOCK_MAX_LIVE_MS = 60_000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : fallback;
}

function jsonBody(request: RemotingCommand, what: string): Record<string, unknown> {
  if (!request.body || request.body.length === 0) throw new BadRequestError(`${what}: body is empty`);
  let json: unknown;
  try {
    json = parseFastjsonBytes(request.body);
  } catch (err) {
    throw new BadRequestError(`${what}: body is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(json)) throw new BadRequestError(`${what}: body is not a JSON object`);
  return json;
}

interface HeartbeatData {
  clientID: string;
  producerGroups: string[];
  consumers: HeartbeatConsumer[];
}

function parseHeartbeat(request: RemotingCommand): HeartbeatData {
  const json = jsonBody(request, 'heartbeat');
  const clientID = str(json.clientID);
  if (clientID === '') throw new BadRequestError('heartbeat: clientID is missing');
  const producers = Array.isArray(json.producerDataSet) ? json.producerDataSet : [];
  const consumersRaw = Array.isArray(json.consumerDataSet) ? json.consumerDataSet : [];
  const consumers: HeartbeatConsumer[] = [];
  for (const c of consumersRaw) {
    if (!isObject(c) || str(c.groupName) === '') throw new BadRequestError('heartbeat: bad consumer data');
    const subsRaw = Array.isArray(c.subscriptionDataSet) ? c.subscriptionDataSet : [];
    consumers.push({
      groupName: str(c.groupName),
      consumeType: str(c.consumeType, 'CONSUME_PASSIVELY'),
      messageModel: str(c.messageModel, 'CLUSTERING'),
      consumeFromWhere: str(c.consumeFromWhere, 'CONSUME_FROM_LAST_OFFSET'),
      subscriptions: subsRaw.filter(isObject).map((s) => ({
        topic: str(s.topic),
        subString: str(s.subString, '*'),
        expressionType: str(s.expressionType, 'TAG'),
        subVersion: typeof s.subVersion === 'number' ? s.subVersion : Number(str(s.subVersion, '0')) || 0,
      })),
    });
  }
  return {
    clientID,
    producerGroups: producers
      .filter(isObject)
      .map((p) => str(p.groupName))
      .filter((g) => g !== ''),
    consumers,
  };
}

export function clientProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  const locks = new Map<string, Map<string, { clientId: string; lastUpdate: number }>>();
  return [
    [RequestCode.HEART_BEAT, (r, c) => heartbeat(ctx, r, c)],
    [RequestCode.UNREGISTER_CLIENT, (r, c) => unregisterClient(ctx, r, c)],
    [RequestCode.GET_CONSUMER_LIST_BY_GROUP, (r) => consumerList(ctx, r)],
    [RequestCode.LOCK_BATCH_MQ, (r) => lockBatch(locks, r)],
    [RequestCode.UNLOCK_BATCH_MQ, (r) => unlockBatch(locks, r)],
    [CHECK_CLIENT_CONFIG, (r) => createResponse(r, ResponseCode.SUCCESS)],
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
  const f = new RequestFields(request);
  f.string('clientID');
  const producerGroup = f.optString('producerGroup');
  const consumerGroup = f.optString('consumerGroup');
  if (producerGroup !== undefined) ctx.clients.unregisterProducer(producerGroup, conn);
  if (consumerGroup !== undefined) ctx.clients.unregisterConsumer(consumerGroup, conn);
  return createResponse(request, ResponseCode.SUCCESS);
}

function consumerList(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const group = new RequestFields(request).string('consumerGroup');
  const ids = ctx.clients.consumerIds(group);
  if (ids.length === 0)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `no consumer for this group, ${group}`);
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    Buffer.from(JSON.stringify({ consumerIdList: ids })),
  );
}

interface Mq {
  topic: string;
  brokerName: string;
  queueId: number;
}

function parseMqSet(json: Record<string, unknown>): Mq[] {
  const raw = Array.isArray(json.mqSet) ? json.mqSet : [];
  return raw
    .filter(isObject)
    .map((m) => ({ topic: str(m.topic), brokerName: str(m.brokerName), queueId: Number(m.queueId) }));
}

function mqKey(mq: Mq): string {
  return `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
}

function lockBatch(
  locks: Map<string, Map<string, { clientId: string; lastUpdate: number }>>,
  request: RemotingCommand,
): RemotingCommand {
  const json = jsonBody(request, 'lock batch');
  const group = str(json.consumerGroup);
  const clientId = str(json.clientId);
  if (group === '' || clientId === '')
    throw new BadRequestError('lock batch: consumerGroup and clientId are required');
  let table = locks.get(group);
  if (!table) locks.set(group, (table = new Map()));
  const now = Date.now();
  const locked: Mq[] = [];
  for (const mq of parseMqSet(json)) {
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
    Buffer.from(JSON.stringify({ lockOKMQSet: locked })),
  );
}

function unlockBatch(
  locks: Map<string, Map<string, { clientId: string; lastUpdate: number }>>,
  request: RemotingCommand,
): RemotingCommand {
  const json = jsonBody(request, 'unlock batch');
  const table = locks.get(str(json.consumerGroup));
  const clientId = str(json.clientId);
  if (table) {
    for (const mq of parseMqSet(json)) {
      const k = mqKey(mq);
      if (table.get(k)?.clientId === clientId) table.delete(k);
    }
  }
  return createResponse(request, ResponseCode.SUCCESS);
}
