/** Topic administration: UPDATE_AND_CREATE_TOPIC (17), GET_ALL_TOPIC_CONFIG (21), DELETE_TOPIC_IN_BROKER (215). */
import { RequestCode, ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { PermName } from '../../../protocol/perm.js';
import { checkTopic, isSystemTopic } from '../../../protocol/validation.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { RequestFields } from '../../namesrv/request-fields.js';
import { topicConfigWrapperJson } from '../../namesrv/wire.js';
import type { BrokerContext } from '../context.js';

const DELETE_TOPIC_IN_BROKER = 215;
const GET_BROKER_RUNTIME_INFO = 28;
const MAX_QUEUES = 1024;

export function adminProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [RequestCode.UPDATE_AND_CREATE_TOPIC, (r) => updateAndCreateTopic(ctx, r)],
    [RequestCode.GET_ALL_TOPIC_CONFIG, (r) => allTopicConfig(ctx, r)],
    [DELETE_TOPIC_IN_BROKER, (r) => deleteTopic(ctx, r)],
    [GET_BROKER_RUNTIME_INFO, (r) => runtimeInfo(ctx, r)],
  ];
}

async function updateAndCreateTopic(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const f = new RequestFields(request);
  const topic = f.string('topic');
  const problem = checkTopic(topic);
  if (problem !== undefined) return createResponse(request, ResponseCode.SYSTEM_ERROR, problem);
  if (topic === ctx.options.brokerClusterName || isSystemTopic(topic)) {
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The topic[${topic}] is conflict with system topic.`,
    );
  }
  const readQueueNums = f.optInt('readQueueNums') ?? 16;
  const writeQueueNums = f.optInt('writeQueueNums') ?? 16;
  const perm = f.optInt('perm') ?? PermName.PERM_READ | PermName.PERM_WRITE;
  for (const [name, v] of [
    ['readQueueNums', readQueueNums],
    ['writeQueueNums', writeQueueNums],
  ] as const) {
    if (v < 1 || v > MAX_QUEUES)
      return createResponse(
        request,
        ResponseCode.SYSTEM_ERROR,
        `${name} ${v} is out of range [1, ${MAX_QUEUES}]`,
      );
  }
  if (perm < 0 || perm > 15)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `perm ${perm} is illegal`);
  ctx.topics.update({
    topicName: topic,
    readQueueNums,
    writeQueueNums,
    perm,
    topicFilterType: f.optString('topicFilterType') === 'MULTI_TAG' ? 'MULTI_TAG' : 'SINGLE_TAG',
    topicSysFlag: f.optInt('topicSysFlag') ?? 0,
    order: f.optBool('order') ?? false,
  });
  await ctx.registerBrokerAll();
  return createResponse(request, ResponseCode.SUCCESS);
}

function allTopicConfig(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const body = Buffer.from(JSON.stringify(topicConfigWrapperJson(ctx.topics.wrapper())));
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}

async function deleteTopic(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const topic = new RequestFields(request).string('topic');
  if (isSystemTopic(topic))
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The topic[${topic}] is conflict with system topic.`,
    );
  ctx.topics.delete(topic);
  await ctx.registerBrokerAll();
  return createResponse(request, ResponseCode.SUCCESS);
}

/** The KV table `mqadmin clusterList` / `brokerStatus` read (Java `BrokerController` runtime info). */
async function runtimeInfo(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const s = ctx.stats;
  let earliest = '';
  const min = ctx.store.minPhysicalOffset;
  if (ctx.store.maxPhysicalOffset > min) {
    const first = await ctx.store.readMessageAt(min).catch(() => undefined);
    if (first && first.length >= 64) earliest = String(Number(first.readBigInt64BE(56)));
  }
  const table: Record<string, string> = {
    brokerVersionDesc: 'V4_9_7',
    brokerVersion: '407',
    bootTimestamp: String(s.bootTimestamp),
    runtime: `[ ${Math.floor((Date.now() - s.bootTimestamp) / 1000)} seconds ]`,
    msgPutTotalTodayNow: String(s.putTotal),
    msgGetTotalTodayNow: String(s.getTotal),
    msgPutTotalTodayMorning: '0',
    msgGetTotalTodayMorning: '0',
    msgPutTotalYesterdayMorning: '0',
    msgGetTotalYesterdayMorning: '0',
    putTps: s.putTps(),
    getTransferedTps: s.getTps(),
    sendThreadPoolQueueSize: '0',
    pullThreadPoolQueueSize: '0',
    sendThreadPoolQueueHeadWaitTimeMills: '0',
    pullThreadPoolQueueHeadWaitTimeMills: '0',
    pageCacheLockTimeMills: '0',
    earliestMessageTimeStamp: earliest,
    commitLogDiskRatio: '0.0',
    commitLogMinOffset: String(min),
    commitLogMaxOffset: String(ctx.store.maxPhysicalOffset),
    brokerName: ctx.options.brokerName,
    brokerClusterName: ctx.options.brokerClusterName,
  };
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    Buffer.from(JSON.stringify({ table })),
  );
}
