/**
 * Topic administration: the topic list (206), routes (105), per-queue statistics (202), configs
 * with [5.x] message types (351, or 21 on 4.x), create (17 to each target master, with
 * attributes) and delete (215 to each master of the cluster, then 216 to every
 * NameServer, as `mqadmin deleteTopic` does).
 */
import {
  BrokerUnavailableError,
  InvalidArgumentError,
  RequestNotSupportedError,
  TopicNotFoundError,
} from '../errors.js';
import { parseTopicStatsTable } from '../protocol/body/admin.js';
import { ResponseCode } from '../protocol/codes.js';
import { parseFastjsonBytes } from '../protocol/fastjson.js';
import { DeleteTopicInBroker, GetAllTopicConfig, UpdateAndCreateTopic } from '../protocol/headers/admin.js';
import { GetTopicConfig, GetTopicStatsInfo } from '../protocol/headers/broker-admin.js';
import { DeleteTopicInNamesrv } from '../protocol/headers/namesrv-admin.js';
import {
  parseTopicConfig,
  parseTopicConfigSerializeWrapper,
  type TopicConfig,
} from '../protocol/headers/register.js';
import { GetAllTopicListFromNameserver, parseTopicList } from '../protocol/headers/route.js';
import {
  DEFAULT_TOPIC_MESSAGE_TYPE,
  isTopicMessageType,
  MESSAGE_TYPE_ATTRIBUTE,
  TOPIC_MESSAGE_TYPES,
} from '../protocol/message/message-type.js';
import { encodeAttributeModification, parseAttributeModification } from '../protocol/topic-attributes.js';
import { checkTopic } from '../protocol/validation.js';
import type { AdminContext } from './admin-context.js';
import type {
  CreateTopicRequest,
  TopicConfigResult,
  TopicListEntry,
  TopicQueueStats,
  TopicRouteResult,
  TopicStats,
  TopicStatsReport,
  UnreachableBroker,
} from './types.js';

export function checkTopicName(topic: unknown, field = 'topic'): string {
  if (typeof topic !== 'string') throw new InvalidArgumentError(field, 'must be a string');
  const problem = checkTopic(topic);
  if (problem !== undefined) throw new InvalidArgumentError(field, problem);
  return topic;
}

/** Every topic the NameServer knows, retry/DLQ/system topics included, sorted. */
export async function topics(ctx: AdminContext): Promise<string[]> {
  const response = await ctx.namesrvCall(GetAllTopicListFromNameserver, undefined);
  return response.body ? parseTopicList(response.body).topicList.sort() : [];
}

export async function topicRoute(ctx: AdminContext, topic: string): Promise<TopicRouteResult> {
  const route = await ctx.route(checkTopicName(topic));
  return {
    topic,
    brokers: route.brokerDatas
      .map((bd) => ({ cluster: bd.cluster, brokerName: bd.brokerName, addresses: { ...bd.brokerAddrs } }))
      .sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0)),
    queues: route.queueDatas
      .map((q) => ({ ...q }))
      .sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0)),
  };
}

/** GET_TOPIC_STATS_INFO from every master in the topic's route, queues sorted by broker and id. */
export async function topicStats(ctx: AdminContext, topic: string): Promise<TopicStats> {
  const { unreachable, ...stats } = await topicStatsReport(ctx, topic);
  const down = unreachable[0];
  if (down) throw down.error;
  return stats;
}

/** As topicStats, but a broker of the route that cannot be reached is listed instead of failing the call. */
export async function topicStatsReport(ctx: AdminContext, topic: string): Promise<TopicStatsReport> {
  const route = await ctx.route(checkTopicName(topic));
  const queues: TopicQueueStats[] = [];
  const unreachable: UnreachableBroker[] = [];
  for (const [brokerName, address] of ctx.routeMasters(route)) {
    let response;
    try {
      response = await ctx.call(address, GetTopicStatsInfo, { topic }, undefined, (r) =>
        r.code === ResponseCode.TOPIC_NOT_EXIST ? new TopicNotFoundError(topic) : undefined,
      );
    } catch (err) {
      if (!(err instanceof BrokerUnavailableError)) throw err;
      unreachable.push({ brokerName, address, error: err });
      continue;
    }
    for (const { mq, value } of parseTopicStatsTable(response.body ?? '{}').values())
      queues.push({ ...mq, ...value });
  }
  queues.sort((a, b) =>
    a.brokerName !== b.brokerName ? (a.brokerName < b.brokerName ? -1 : 1) : a.queueId - b.queueId,
  );
  return { topic, queues, unreachable };
}

function queueCount(field: string, v: number | undefined): number {
  const n = v ?? 8;
  if (!Number.isInteger(n) || n < 1 || n > 1024)
    throw new InvalidArgumentError(field, `must be an integer in [1, 1024], got ${n}`);
  return n;
}

/**
 * The `attributes` header text of a create/update: `messageType` as `+message.type=<type>`, then
 * `attributes` (one parser: protocol/topic-attributes.ts). Undefined when neither is given, so a
 * plain update leaves the topic's attributes as they are.
 */
export function attributesText(req: CreateTopicRequest): string | undefined {
  const modification = parseAttributeModification(req.attributes ?? {});
  if (req.messageType === undefined)
    return modification.size === 0 ? undefined : encodeAttributeModification(modification);
  if (!isTopicMessageType(req.messageType))
    throw new InvalidArgumentError(
      'messageType',
      `must be one of ${TOPIC_MESSAGE_TYPES.join(', ')}, got ${String(req.messageType)}`,
    );
  if (modification.has(MESSAGE_TYPE_ATTRIBUTE))
    throw new InvalidArgumentError('attributes', `give ${MESSAGE_TYPE_ATTRIBUTE} as messageType only`);
  return encodeAttributeModification(new Map([[MESSAGE_TYPE_ATTRIBUTE, req.messageType], ...modification]));
}

/**
 * UPDATE_AND_CREATE_TOPIC to every target master; returns the addresses written to. Every
 * argument is checked before the first request. A 4.x broker ignores `attributes` (the field is
 * unknown to it): the topic is created or updated without them.
 */
export async function createTopic(ctx: AdminContext, req: CreateTopicRequest): Promise<string[]> {
  const topic = checkTopicName(req.topic);
  if ((req.cluster === undefined) === (req.brokers === undefined || req.brokers.length === 0))
    throw new InvalidArgumentError('cluster', 'give exactly one of cluster or brokers');
  const readQueueNums = queueCount('readQueues', req.readQueues);
  const writeQueueNums = queueCount('writeQueues', req.writeQueues);
  const perm = req.perm ?? 6;
  if (!Number.isInteger(perm) || perm < 0 || perm > 7)
    throw new InvalidArgumentError('perm', `must be 0…7 (2 W, 4 R, 6 RW), got ${perm}`);
  if (req.order !== undefined && typeof req.order !== 'boolean')
    throw new InvalidArgumentError('order', 'must be a boolean');
  const attributes = attributesText(req);
  const targets = await ctx.targets(req);
  const written: string[] = [];
  for (const address of targets.values()) {
    await ctx.call(address, UpdateAndCreateTopic, {
      topic,
      defaultTopic: 'TBW102',
      readQueueNums,
      writeQueueNums,
      perm,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: req.order ?? req.messageType === 'FIFO',
      ...(attributes === undefined ? {} : { attributes }),
    });
    written.push(address);
  }
  return written;
}

function configResult(tc: TopicConfig, brokerName: string, address: string): TopicConfigResult {
  const attributes = { ...(tc.attributes ?? {}) };
  const type = attributes[MESSAGE_TYPE_ATTRIBUTE];
  return {
    topic: tc.topicName,
    brokerName,
    address,
    readQueues: tc.readQueueNums,
    writeQueues: tc.writeQueueNums,
    perm: tc.perm,
    order: tc.order,
    topicSysFlag: tc.topicSysFlag,
    topicFilterType: tc.topicFilterType,
    messageType:
      type === undefined ? DEFAULT_TOPIC_MESSAGE_TYPE : isTopicMessageType(type) ? type : 'UNSPECIFIED',
    attributes,
  };
}

/** GET_ALL_TOPIC_CONFIG of one broker: its topic table. */
async function allTopicConfigs(ctx: AdminContext, address: string): Promise<Record<string, TopicConfig>> {
  const response = await ctx.call(address, GetAllTopicConfig, undefined);
  if (!response.body) return {};
  return parseTopicConfigSerializeWrapper(parseFastjsonBytes(response.body)).topicConfigTable;
}

/**
 * The topic's config on every master of its route: GET_TOPIC_CONFIG (5.x), or the topic's entry
 * of GET_ALL_TOPIC_CONFIG where the broker does not know that code (4.x).
 */
export async function topicConfig(ctx: AdminContext, topic: string): Promise<TopicConfigResult[]> {
  const route = await ctx.route(checkTopicName(topic));
  const out: TopicConfigResult[] = [];
  for (const [brokerName, address] of [...ctx.routeMasters(route)].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let tc: TopicConfig | undefined;
    try {
      const response = await ctx.call(address, GetTopicConfig, { topic }, undefined, (r) =>
        r.code === ResponseCode.TOPIC_NOT_EXIST ? new TopicNotFoundError(topic) : undefined,
      );
      tc = parseTopicConfig(parseFastjsonBytes(response.body ?? new Uint8Array()), topic);
    } catch (err) {
      if (!(err instanceof RequestNotSupportedError)) throw err;
      tc = (await allTopicConfigs(ctx, address))[topic];
    }
    if (tc) out.push(configResult(tc, brokerName, address));
  }
  if (out.length === 0) throw new TopicNotFoundError(topic);
  return out;
}

/** Every topic of every master (of `cluster`), with its type: GET_ALL_TOPIC_CONFIG per master. */
export async function topicList(ctx: AdminContext, cluster?: string): Promise<TopicListEntry[]> {
  const byTopic = new Map<string, TopicListEntry>();
  for (const [brokerName, address] of await ctx.masters(cluster)) {
    for (const tc of Object.values(await allTopicConfigs(ctx, address))) {
      const seen = byTopic.get(tc.topicName);
      if (seen) {
        seen.brokers.push(brokerName);
        continue;
      }
      const { messageType, attributes, order } = configResult(tc, brokerName, address);
      byTopic.set(tc.topicName, {
        topic: tc.topicName,
        messageType,
        attributes,
        order,
        brokers: [brokerName],
      });
    }
  }
  return [...byTopic.values()]
    .map((e) => ({ ...e, brokers: e.brokers.sort() }))
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
}

/** DELETE_TOPIC_IN_BROKER on every master of `cluster`, then DELETE_TOPIC_IN_NAMESRV on every NameServer. */
export async function deleteTopic(ctx: AdminContext, topic: string, cluster: string): Promise<void> {
  checkTopicName(topic);
  if (typeof cluster !== 'string' || cluster === '')
    throw new InvalidArgumentError('cluster', 'must be a non-empty string');
  for (const address of (await ctx.masters(cluster)).values())
    await ctx.call(address, DeleteTopicInBroker, { topic });
  for (const address of ctx.options.namesrvAddr)
    await ctx.call(address, DeleteTopicInNamesrv, { topic, clusterName: cluster });
}
