/**
 * Broker-side load balancing (Java `QueryAssignmentProcessor`, docs/consumers.md §1.12):
 * SET_MESSAGE_REQUEST_MODE (401) records whether a group consumes a topic by PULL or POP
 * (message-request-modes.ts), and QUERY_ASSIGNMENT (400) answers a `clientRebalance: false`
 * consumer with its queues: in PULL mode the strategy's share of the topic's queues (as a
 * client-side rebalance would compute it), in POP mode every queue as queueId −1 (each consumer
 * pops the whole broker) unless `popShareQueueNum` narrows it. A retry topic is always PULL.
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import {
  encodeQueryAssignmentResponse,
  parseQueryAssignmentRequest,
  parseSetMessageRequestModeBody,
  type MessageQueueAssignment,
  type MessageRequestModeSetting,
  type QueryAssignmentRequest,
} from '../../../protocol/body/assignment.js';
import { compareMessageQueues, type MessageQueueData } from '../../../protocol/body/message-queue-map.js';
import { QueryAssignment, SetMessageRequestMode } from '../../../protocol/headers/consumer.js';
import type { TopicRouteData } from '../../../protocol/headers/route.js';
import { isReadable } from '../../../protocol/perm.js';
import {
  checkGroup,
  RETRY_GROUP_TOPIC_PREFIX,
  validateGroup,
  validateTopic,
} from '../../../protocol/validation.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requiredBody } from '../../namesrv/decode-request.js';
import type { BrokerContext } from '../context.js';
import type { MessageRequestModeManager } from '../message-request-modes.js';

/** Java `BrokerConfig` defaults: PULL unless set, and a POP group pops every queue (−1). */
const DEFAULT_MODE = 'PULL';
const DEFAULT_POP_SHARE_QUEUE_NUM = -1;

export interface AssignmentSources {
  readonly modes: MessageRequestModeManager;
  /** The topic's route from the NameServers; undefined when none knows it (or none is set). */
  topicRoute(topic: string): Promise<TopicRouteData | undefined>;
}

export function assignmentProcessors(
  ctx: BrokerContext,
  sources: AssignmentSources,
): Array<[number, RequestHandler]> {
  return [
    [QueryAssignment.code, (r) => queryAssignment(ctx, sources, r)],
    [SetMessageRequestMode.code, (r) => setMessageRequestMode(ctx, sources, r)],
  ];
}

async function setMessageRequestMode(
  ctx: BrokerContext,
  sources: AssignmentSources,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const body = parseSetMessageRequestModeBody(requiredBody(request, 'SetMessageRequestModeRequestBody'));
  if (body.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
    return createResponse(request, ResponseCode.NO_PERMISSION, 'retry topic is not allowed to set mode');
  if (ctx.topics.get(body.topic) === undefined)
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, `topic[${body.topic}] not exist`);
  // Java's findSubscriptionGroupConfig creates a valid group on first sight (autoCreateSubscriptionGroup).
  if (checkGroup(body.consumerGroup) !== undefined)
    return createResponse(
      request,
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      'subscription group does not exist',
    );
  ctx.subscriptionGroups.ensure(body.consumerGroup);
  await sources.modes.set(body);
  ctx.logger.info('message request mode set', {
    topic: body.topic,
    group: body.consumerGroup,
    mode: body.mode,
    popShareQueueNum: body.popShareQueueNum,
  });
  return createResponse(request, ResponseCode.SUCCESS);
}

async function queryAssignment(
  ctx: BrokerContext,
  sources: AssignmentSources,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const q = parseQueryAssignmentRequest(requiredBody(request, 'QueryAssignmentRequestBody'));
  // Names held to the rules header names are held to at the edge (docs/security.md §7).
  validateTopic(q.topic, 'topic');
  validateGroup(q.consumerGroup, 'consumerGroup');
  const setting = sources.modes.get(q.topic, q.consumerGroup) ?? defaultSetting(q);
  const queues = await assignedQueues(ctx, sources, q, setting);
  const assignments: MessageQueueAssignment[] | undefined = queues?.map((messageQueue) => ({
    messageQueue,
    mode: setting.mode,
  }));
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeQueryAssignmentResponse(assignments),
  );
}

function defaultSetting(q: QueryAssignmentRequest): MessageRequestModeSetting {
  const mode = q.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) ? 'PULL' : DEFAULT_MODE;
  return {
    topic: q.topic,
    consumerGroup: q.consumerGroup,
    mode,
    popShareQueueNum: mode === 'PULL' ? 0 : DEFAULT_POP_SHARE_QUEUE_NUM,
  };
}

/** Java `doLoadBalance`: the client's queues, or undefined ("no valid answer, keep what you hold"). */
async function assignedQueues(
  ctx: BrokerContext,
  sources: AssignmentSources,
  q: QueryAssignmentRequest,
  setting: MessageRequestModeSetting,
): Promise<MessageQueueData[] | undefined> {
  const mqSet = await subscribeQueues(ctx, sources, q.topic);
  if (mqSet === undefined) {
    if (!q.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      ctx.logger.warn('QueryLoad: no assignment, the topic does not exist', {
        group: q.consumerGroup,
        topic: q.topic,
      });
    return undefined;
  }
  if (q.messageModel === 'BROADCASTING') return mqSet;
  const cidAll = ctx.clients.consumerIds(q.consumerGroup).sort();
  const strategy = STRATEGIES[q.strategyName];
  if (cidAll.length === 0 || strategy === undefined || q.clientId === '') {
    ctx.logger.warn('QueryLoad: no assignment', {
      group: q.consumerGroup,
      topic: q.topic,
      reason:
        cidAll.length === 0
          ? 'no consumer online'
          : strategy === undefined
            ? `unsupported strategy ${q.strategyName}`
            : 'no clientId',
    });
    return undefined;
  }
  const mqAll = [...mqSet].sort(compareMessageQueues);
  if (setting.mode === 'POP')
    return allocate4Pop(strategy, q.clientId, mqAll, cidAll, setting.popShareQueueNum);
  return strategy(q.clientId, mqAll, cidAll);
}

/**
 * Java `allocate4Pop`: popShareQueueNum ≤ 0 or ≥ consumers − 1 gives every queue as queueId −1;
 * otherwise this client's share plus that of the popShareQueueNum clients after it, or, with more
 * clients than queues, one queue by position so every client has one.
 */
export function allocate4Pop(
  strategy: Strategy,
  clientId: string,
  mqAll: readonly MessageQueueData[],
  cidAll: readonly string[],
  popShareQueueNum: number,
): MessageQueueData[] {
  if (popShareQueueNum <= 0 || popShareQueueNum >= cidAll.length - 1) {
    const seen = new Set<string>();
    const out: MessageQueueData[] = [];
    for (const mq of mqAll) {
      const key = `${mq.topic}@${mq.brokerName}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ topic: mq.topic, brokerName: mq.brokerName, queueId: -1 });
    }
    return out;
  }
  const index = cidAll.indexOf(clientId);
  if (cidAll.length > mqAll.length) return index < 0 ? [] : [mqAll[index % mqAll.length]!];
  const out = strategy(clientId, mqAll, cidAll);
  if (index >= 0)
    for (let i = 1; i <= popShareQueueNum; i++)
      out.push(...strategy(cidAll[(index + i) % cidAll.length]!, mqAll, cidAll));
  return dedupe(out);
}

/** Java returns a Set: a queue shared twice is assigned once. */
function dedupe(mqs: readonly MessageQueueData[]): MessageQueueData[] {
  const seen = new Set<string>();
  return mqs.filter((mq) => {
    const key = `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The readable queues of every broker of the topic; this broker's own when no NameServer answers. */
async function subscribeQueues(
  ctx: BrokerContext,
  sources: AssignmentSources,
  topic: string,
): Promise<MessageQueueData[] | undefined> {
  const route = await sources.topicRoute(topic);
  if (route !== undefined) {
    const out: MessageQueueData[] = [];
    for (const qd of route.queueDatas) {
      if (!isReadable(qd.perm)) continue;
      for (let i = 0; i < qd.readQueueNums; i++) out.push({ topic, brokerName: qd.brokerName, queueId: i });
    }
    return out;
  }
  const config = ctx.topics.get(topic);
  if (config === undefined || !isReadable(config.perm)) return undefined;
  const out: MessageQueueData[] = [];
  for (let i = 0; i < config.readQueueNums; i++)
    out.push({ topic, brokerName: ctx.options.brokerName, queueId: i });
  return out;
}

/** A broker-side strategy over sorted queues and client ids (Java registers only these two). */
type Strategy = (
  clientId: string,
  mqAll: readonly MessageQueueData[],
  cidAll: readonly string[],
) => MessageQueueData[];

/**
 * The broker's own copies of AllocateMessageQueueAveragely / ByCircle: the broker must not import
 * the client's consumer/ layer, and these are Java's two registered names.
 */
const STRATEGIES: Readonly<Record<string, Strategy>> = Object.freeze({
  AVG: (clientId, mqAll, cidAll) => {
    const index = cidAll.indexOf(clientId);
    if (index < 0) return [];
    const mod = mqAll.length % cidAll.length;
    const size =
      mqAll.length <= cidAll.length
        ? 1
        : mod > 0 && index < mod
          ? Math.floor(mqAll.length / cidAll.length) + 1
          : Math.floor(mqAll.length / cidAll.length);
    const start = mod > 0 && index < mod ? index * size : index * size + mod;
    const range = Math.min(size, mqAll.length - start);
    const out: MessageQueueData[] = [];
    for (let i = 0; i < range; i++) out.push(mqAll[(start + i) % mqAll.length]!);
    return out;
  },
  AVG_BY_CIRCLE: (clientId, mqAll, cidAll) => {
    const index = cidAll.indexOf(clientId);
    const out: MessageQueueData[] = [];
    if (index < 0) return out;
    for (let i = index; i < mqAll.length; i += cidAll.length) out.push(mqAll[i]!);
    return out;
  },
});
