/**
 * Consumer and producer groups: progress and lag (208), connections (203, 204), a client's
 * running info (307, relayed by the broker) and reset by time (222, or — for a group with no
 * live member — the offsets written directly, as Java's `resetOffsetByTimestampOld` does).
 */
import {
  BrokerUnavailableError,
  InvalidArgumentError,
  ConsumerGroupNotFoundError,
  ConsumerGroupOnlineError,
  ConsumerNotOnlineError,
  ProducerGroupNotOnlineError,
} from '../errors.js';
import { parseGroupList, parseProducerConnection, parseResetOffsetBody } from '../protocol/body/admin.js';
import { parseConsumeStats, parseConsumerConnection } from '../protocol/body/consumer-admin.js';
import {
  parseConsumerRunningInfo,
  type ConsumerRunningInfoData,
} from '../protocol/body/consumer-running-info.js';
import { ResponseCode } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';
import {
  GetProducerConnectionList,
  InvokeBrokerToResetOffset,
  QueryTopicConsumeByWho,
} from '../protocol/headers/broker-admin.js';
import { GetConsumerRunningInfo } from '../protocol/headers/consumer.js';
import { GetConsumeStats, GetConsumerConnectionList } from '../protocol/headers/consumer-admin.js';
import {
  GetMaxOffset,
  OffsetResponse,
  SearchOffsetByTimestamp,
  UpdateConsumerOffset,
} from '../protocol/headers/offset.js';
import { checkString } from '../options.js';
import type { TopicRouteData } from '../protocol/headers/route.js';
import type { AdminContext } from './admin-context.js';
import { checkTopicName } from './topics.js';
import type {
  ClientConnection,
  ConsumerConnections,
  ConsumerProgress,
  ConsumerProgressReport,
  ConsumerQueueProgress,
  ResetOffsetResult,
  UnreachableBroker,
} from './types.js';

export const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';

export function checkGroupName(group: unknown, field = 'group'): string {
  return checkString(field, group, { maxLength: 255, pattern: /^[%|a-zA-Z0-9_-]+$/ });
}

/** Brokers that may know the group: those serving `%RETRY%<group>`, else every master. */
async function groupBrokers(ctx: AdminContext, group: string): Promise<Map<string, string>> {
  const route = await ctx.routeIfAny(RETRY_GROUP_TOPIC_PREFIX + group);
  const masters = route ? ctx.routeMasters(route) : undefined;
  return masters && masters.size > 0 ? masters : ctx.masters();
}

function byQueue<T extends { topic: string; brokerName: string; queueId: number }>(a: T, b: T): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  return a.queueId - b.queueId;
}

/**
 * GET_CONSUME_STATS of `group` (and `topic`) from `brokers` (address by name), appended to
 * `queues`; the TPS summed. A broker that cannot be reached goes to `unreachable`.
 */
async function collectStats(
  ctx: AdminContext,
  brokers: ReadonlyMap<string, string>,
  group: string,
  topic: string | undefined,
  queues: ConsumerQueueProgress[],
  unreachable: UnreachableBroker[],
  unreported?: Set<ConsumerQueueProgress>,
): Promise<number> {
  let consumeTps = 0;
  for (const [brokerName, address] of brokers) {
    let response;
    try {
      response = await ctx.call(address, GetConsumeStats, { consumerGroup: group, topic });
    } catch (err) {
      if (!(err instanceof BrokerUnavailableError)) throw err;
      if (!unreachable.some((u) => u.address === address))
        unreachable.push({ brokerName, address, error: err });
      continue;
    }
    const stats = parseConsumeStats(response.body ?? '{}');
    consumeTps += stats.consumeTps;
    for (const { mq, value } of stats.offsetTable.values()) {
      const { popInflight, ...offsets } = value;
      const q = {
        ...mq,
        ...offsets,
        lag: Math.max(0, value.brokerOffset - value.consumerOffset),
        inflight: popInflight ?? 0,
      };
      queues.push(q);
      if (popInflight === undefined) unreported?.add(q);
    }
  }
  return consumeTps;
}

/** The group's connections, undefined when no member is online. */
function onlineMembers(ctx: AdminContext, group: string): Promise<ConsumerConnections | undefined> {
  return consumerConnections(ctx, group).then(
    (c) => (c.connections.length > 0 ? c : undefined),
    (err: unknown) => {
      if (err instanceof ConsumerNotOnlineError) return undefined;
      throw err;
    },
  );
}

/**
 * GET_CONSUME_STATS from every broker of the group, merged, with the online members. A broker
 * lists (without `topic`) only the topics the group has committed offsets for, so a member that
 * is online but has committed nothing yet would show nothing: then each topic it subscribes is
 * asked for by name, as Java's mqadmin shows such a group (its queues, consumer offset 0).
 * ConsumerGroupNotFoundError only when there is neither progress nor an online member; a broker
 * that cannot be reached rejects the call (consumerProgressReport lists it instead).
 */
export async function consumerProgress(
  ctx: AdminContext,
  group: string,
  topic?: string,
): Promise<ConsumerProgress> {
  const { unreachable, ...progress } = await consumerProgressReport(ctx, group, topic);
  const down = unreachable[0];
  if (down) throw down.error;
  return progress;
}

/**
 * As consumerProgress, but the queues of the brokers that answered, with the ones that could not
 * be reached in `unreachable`. When no broker answered with a queue and one was unreachable, its
 * BrokerUnavailableError rejects the call (the group may well exist there).
 */
export async function consumerProgressReport(
  ctx: AdminContext,
  group: string,
  topic?: string,
): Promise<ConsumerProgressReport> {
  checkGroupName(group);
  if (topic !== undefined) checkTopicName(topic);
  const queues: ConsumerQueueProgress[] = [];
  const unreachable: UnreachableBroker[] = [];
  const unreported = new Set<ConsumerQueueProgress>();
  const brokers = await groupBrokers(ctx, group);
  let consumeTps = await collectStats(ctx, brokers, group, topic, queues, unreachable, unreported);
  const online = await onlineMembers(ctx, group);
  if (queues.length === 0 && online !== undefined && topic === undefined) {
    for (const t of Object.keys(online.subscriptions)) {
      const route = await ctx.routeIfAny(t);
      if (route !== undefined)
        consumeTps += await collectStats(
          ctx,
          ctx.routeMasters(route),
          group,
          t,
          queues,
          unreachable,
          unreported,
        );
    }
  }
  if (unreported.size > 0 && online !== undefined) await addMembersInflight(ctx, group, online, unreported);
  if (queues.length === 0) {
    const down = unreachable[0];
    if (down) throw down.error;
    throw new ConsumerGroupNotFoundError(
      group,
      online === undefined
        ? undefined
        : `${online.connections.length} member(s) online, but no broker serves ${topic ?? 'the topics it subscribes'}`,
    );
  }
  queues.sort(byQueue);
  return {
    group,
    consumeTps,
    totalLag: queues.reduce((s, q) => s + q.lag, 0),
    totalInflight: queues.reduce((s, q) => s + q.inflight, 0),
    queues,
    members: online?.connections ?? [],
    unreachable,
  };
}

/**
 * A Java broker counts no POP in-flight messages: there each queue's `inflight` is the sum of
 * what the online members report holding (GET_CONSUMER_RUNNING_INFO `mqPopTable` waitAckCount;
 * our SimpleConsumer and Java's POP push consumer send it). A member that cannot answer adds nothing.
 */
async function addMembersInflight(
  ctx: AdminContext,
  group: string,
  online: ConsumerConnections,
  queues: Set<ConsumerQueueProgress>,
): Promise<void> {
  const byKey = new Map([...queues].map((q) => [`${q.topic}@${q.brokerName}@${q.queueId}`, q]));
  for (const { clientId } of online.connections) {
    const info = await consumerRunningInfo(ctx, group, clientId).catch(() => undefined);
    for (const [mq, pq] of info?.mqPopTable ?? []) {
      const q = byKey.get(`${mq.topic}@${mq.brokerName}@${mq.queueId}`);
      if (q !== undefined) q.inflight += pq.waitAckCount;
    }
  }
}

/**
 * GET_CONSUMER_CONNECTION_LIST from the first broker that knows the group online; a broker that
 * cannot be reached or fails is skipped (its error rejects the call only when no other answers).
 */
export async function consumerConnections(ctx: AdminContext, group: string): Promise<ConsumerConnections> {
  checkGroupName(group);
  let lastError: Error | undefined;
  for (const address of (await groupBrokers(ctx, group)).values()) {
    let response;
    try {
      response = await ctx.send(address, GetConsumerConnectionList, { consumerGroup: group });
    } catch (err) {
      if (!(err instanceof BrokerUnavailableError)) throw err;
      lastError = err;
      continue;
    }
    if (response.code === ResponseCode.CONSUMER_NOT_ONLINE) continue;
    if (response.code !== ResponseCode.SUCCESS) {
      lastError = ctx.failure(address, GetConsumerConnectionList.code, response);
      continue;
    }
    const c = parseConsumerConnection(response.body ?? '{}');
    const subscriptions: ConsumerConnections['subscriptions'] = {};
    for (const [topic, sub] of Object.entries(c.subscriptionTable))
      subscriptions[topic] = { expressionType: sub.expressionType, expression: sub.subString };
    return {
      group,
      connections: c.connectionSet.map((e) => ({ ...e })),
      subscriptions,
      consumeType: c.consumeType,
      messageModel: c.messageModel,
      consumeFromWhere: c.consumeFromWhere,
    };
  }
  throw lastError ?? new ConsumerNotOnlineError(group, undefined);
}

/** Groups consuming `topic`: online subscribers and groups with stored offsets (300), from every master of its route. */
export async function topicConsumers(ctx: AdminContext, topic: string): Promise<string[]> {
  const route = await ctx.route(checkTopicName(topic));
  const out = new Set<string>();
  for (const address of ctx.routeMasters(route).values()) {
    const response = await ctx.call(address, QueryTopicConsumeByWho, { topic });
    for (const g of parseGroupList(response.body ?? '{}')) out.add(g);
  }
  return [...out].sort();
}

/** GET_CONSUMER_RUNNING_INFO relayed to `clientId` by a broker it is connected to. */
export async function consumerRunningInfo(
  ctx: AdminContext,
  group: string,
  clientId: string,
): Promise<ConsumerRunningInfoData> {
  checkGroupName(group);
  checkString('clientId', clientId);
  let lastError: Error | undefined;
  for (const address of (await groupBrokers(ctx, group)).values()) {
    const response = await ctx.send(address, GetConsumerRunningInfo, {
      consumerGroup: group,
      clientId,
      jstackEnable: false,
    });
    if (response.code === ResponseCode.SUCCESS) return parseConsumerRunningInfo(response.body ?? '{}');
    lastError =
      response.code === ResponseCode.SYSTEM_ERROR && /not online/.test(response.remark ?? '')
        ? new ConsumerNotOnlineError(group, clientId)
        : ctx.failure(address, GetConsumerRunningInfo.code, response);
  }
  throw lastError ?? new ConsumerNotOnlineError(group, clientId);
}

/** Producer connections of `group` on a broker serving `topic` (the broker does not filter by topic). */
export async function producerConnections(
  ctx: AdminContext,
  group: string,
  topic: string,
): Promise<ClientConnection[]> {
  checkGroupName(group);
  const route = await ctx.route(checkTopicName(topic));
  const out = new Map<string, ClientConnection>();
  let found = false;
  for (const address of ctx.routeMasters(route).values()) {
    const response = await ctx.send(address, GetProducerConnectionList, { producerGroup: group });
    if (response.code === ResponseCode.SYSTEM_ERROR && /not exist/.test(response.remark ?? '')) continue;
    if (response.code !== ResponseCode.SUCCESS)
      throw ctx.failure(address, GetProducerConnectionList.code, response);
    found = true;
    // The same client is connected to every broker: one entry per client id.
    for (const c of parseProducerConnection(response.body ?? '{}'))
      if (!out.has(c.clientId)) out.set(c.clientId, c);
  }
  if (!found) throw new ProducerGroupNotOnlineError(group);
  return [...out.values()].sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
}

/**
 * Moves `group`'s offsets on `topic` to the first message stored at or after `timestamp` (−1 =
 * the end). With live members the brokers push the new offsets to them (222), which needs
 * `force` (without it ConsumerGroupOnlineError: the members would commit over a quiet rewrite);
 * without live members the offsets are written directly. Without `force` an offset only moves
 * back (Java's rule).
 */
export async function resetOffsetByTime(
  ctx: AdminContext,
  group: string,
  topic: string,
  timestamp: number,
  force: boolean,
): Promise<ResetOffsetResult[]> {
  checkGroupName(group);
  checkTopicName(topic);
  if (!Number.isSafeInteger(timestamp) || timestamp < -1)
    throw new InvalidArgumentError('timestamp', `must be ms since the epoch or -1, got ${timestamp}`);
  const route = await ctx.route(topic);
  const masters = ctx.routeMasters(route);
  const online = await onlineMembers(ctx, group);
  if (online !== undefined && !force) throw new ConsumerGroupOnlineError(group, online.connections.length);
  if (online !== undefined) {
    const out: ResetOffsetResult[] = [];
    for (const [brokerName, address] of masters) {
      const header = { topic, group, timestamp, isForce: force };
      let response = await ctx.send(address, InvokeBrokerToResetOffset, header);
      if (groupUnknown(response) && subscribes(online, topic)) {
        // The broker (Java `Broker2Client#resetOffset`) refuses when any write queue has no
        // committed offset, and a running member commits a queue only once it got messages or
        // a pull answered "nothing new". A forced reset sets every queue to its target anyway:
        // store the targets first (what the members are about to be told), then ask again.
        const queueIds = writeQueueIds(route, brokerName);
        await writeTargets(ctx, address, brokerName, group, topic, timestamp, queueIds);
        response = await ctx.send(address, InvokeBrokerToResetOffset, header);
      }
      if (response.code !== ResponseCode.SUCCESS) throw resetFailure(ctx, address, response, group, topic);
      for (const { mq, value } of parseResetOffsetBody(response.body ?? '{}').values())
        out.push({ ...mq, offset: value });
    }
    return out.sort(byQueue);
  }
  return resetOffline(ctx, group, topic, timestamp, force, masters);
}

/** The broker's "THe consumer group <g> not exist": some queue of the topic has no committed offset. */
function groupUnknown(response: RemotingCommand): boolean {
  return (
    response.code === ResponseCode.SYSTEM_ERROR && /consumer group .* not exist/i.test(response.remark ?? '')
  );
}

/** As the broker's GET_CONSUME_STATS: a group online without subscriptions (assign mode) reads any topic. */
function subscribes(online: ConsumerConnections, topic: string): boolean {
  return Object.keys(online.subscriptions).length === 0 || topic in online.subscriptions;
}

function writeQueueIds(route: TopicRouteData, brokerName: string): number[] {
  const n = route.queueDatas.find((q) => q.brokerName === brokerName)?.writeQueueNums ?? 0;
  return Array.from({ length: n }, (_, i) => i);
}

/** Where a reset by `timestamp` puts a queue (29, or 30 for −1), as the broker computes it. */
async function resetTarget(
  ctx: AdminContext,
  address: string,
  brokerName: string,
  topic: string,
  queueId: number,
  timestamp: number,
): Promise<number> {
  const target =
    timestamp === -1
      ? await ctx.call(address, GetMaxOffset, { topic, queueId, bname: brokerName })
      : await ctx.call(address, SearchOffsetByTimestamp, { topic, queueId, timestamp, bname: brokerName });
  return Math.max(0, OffsetResponse.decode(target.extFields).offset);
}

function writeOffset(
  ctx: AdminContext,
  address: string,
  brokerName: string,
  group: string,
  topic: string,
  queueId: number,
  offset: number,
): Promise<RemotingCommand> {
  return ctx.call(address, UpdateConsumerOffset, {
    consumerGroup: group,
    topic,
    queueId,
    commitOffset: offset,
    bname: brokerName,
  });
}

/** Stores each queue's reset target on one broker, one queue after another (remote-broker.ts `commitAll`). */
async function writeTargets(
  ctx: AdminContext,
  address: string,
  brokerName: string,
  group: string,
  topic: string,
  timestamp: number,
  queueIds: readonly number[],
): Promise<void> {
  for (const queueId of queueIds) {
    const target = await resetTarget(ctx, address, brokerName, topic, queueId, timestamp);
    await writeOffset(ctx, address, brokerName, group, topic, queueId, target);
  }
}

function resetFailure(
  ctx: AdminContext,
  address: string,
  response: RemotingCommand,
  group: string,
  topic: string,
): Error {
  if (response.code === ResponseCode.CONSUMER_NOT_ONLINE) return new ConsumerNotOnlineError(group, undefined);
  if (groupUnknown(response))
    return new ConsumerGroupNotFoundError(
      group,
      `no committed offset of ${topic} on ${address}, and its online members do not subscribe it`,
    );
  return ctx.failure(address, InvokeBrokerToResetOffset.code, response);
}

/** Java `resetOffsetByTimestampOld`: committed offsets from 208, targets from 29/30, written with 15. */
async function resetOffline(
  ctx: AdminContext,
  group: string,
  topic: string,
  timestamp: number,
  force: boolean,
  masters: Map<string, string>,
): Promise<ResetOffsetResult[]> {
  const out: ResetOffsetResult[] = [];
  for (const [brokerName, address] of masters) {
    const stats = parseConsumeStats(
      (await ctx.call(address, GetConsumeStats, { consumerGroup: group, topic })).body ?? '{}',
    );
    for (const { mq, value } of stats.offsetTable.values()) {
      const targetOffset = await resetTarget(ctx, address, brokerName, topic, mq.queueId, timestamp);
      const offset = force || targetOffset < value.consumerOffset ? targetOffset : value.consumerOffset;
      await writeOffset(ctx, address, brokerName, group, topic, mq.queueId, offset);
      out.push({ ...mq, offset });
    }
  }
  if (out.length === 0) throw new ConsumerGroupNotFoundError(group, `no consume progress on ${topic}`);
  return out.sort(byQueue);
}
