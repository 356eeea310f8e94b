/**
 * Topic administration: the topic list (206), routes (105), per-queue statistics (202), create
 * (17 to each target master) and delete (215 to each master of the cluster, then 216 to every
 * NameServer, as `mqadmin deleteTopic` does).
 */
import { InvalidArgumentError, TopicNotFoundError } from '../errors.js';
import { parseTopicStatsTable } from '../protocol/body/admin.js';
import { ResponseCode } from '../protocol/codes.js';
import { DeleteTopicInBroker, UpdateAndCreateTopic } from '../protocol/headers/admin.js';
import { GetTopicStatsInfo } from '../protocol/headers/broker-admin.js';
import { DeleteTopicInNamesrv } from '../protocol/headers/namesrv-admin.js';
import { GetAllTopicListFromNameserver, parseTopicList } from '../protocol/headers/route.js';
import { checkTopic } from '../protocol/validation.js';
import type { AdminContext } from './admin-context.js';
import type { CreateTopicRequest, TopicQueueStats, TopicRouteResult, TopicStats } from './types.js';

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
  const route = await ctx.route(checkTopicName(topic));
  const queues: TopicQueueStats[] = [];
  for (const [, address] of ctx.routeMasters(route)) {
    const response = await ctx.call(address, GetTopicStatsInfo, { topic }, undefined, (r) =>
      r.code === ResponseCode.TOPIC_NOT_EXIST ? new TopicNotFoundError(topic) : undefined,
    );
    for (const { mq, value } of parseTopicStatsTable(response.body ?? '{}').values())
      queues.push({ ...mq, ...value });
  }
  queues.sort((a, b) =>
    a.brokerName !== b.brokerName ? (a.brokerName < b.brokerName ? -1 : 1) : a.queueId - b.queueId,
  );
  return { topic, queues };
}

function queueCount(field: string, v: number | undefined): number {
  const n = v ?? 8;
  if (!Number.isInteger(n) || n < 1 || n > 1024)
    throw new InvalidArgumentError(field, `must be an integer in [1, 1024], got ${n}`);
  return n;
}

/** UPDATE_AND_CREATE_TOPIC to every target master; returns the addresses written to. */
export async function createTopic(ctx: AdminContext, req: CreateTopicRequest): Promise<string[]> {
  const topic = checkTopicName(req.topic);
  if ((req.cluster === undefined) === (req.brokers === undefined || req.brokers.length === 0))
    throw new InvalidArgumentError('cluster', 'give exactly one of cluster or brokers');
  const readQueueNums = queueCount('readQueues', req.readQueues);
  const writeQueueNums = queueCount('writeQueues', req.writeQueues);
  const perm = req.perm ?? 6;
  if (!Number.isInteger(perm) || perm < 0 || perm > 7)
    throw new InvalidArgumentError('perm', `must be 0…7 (2 W, 4 R, 6 RW), got ${perm}`);
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
      order: req.order ?? false,
    });
    written.push(address);
  }
  return written;
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
