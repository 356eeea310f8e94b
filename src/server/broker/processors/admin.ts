/**
 * Topic administration: UPDATE_AND_CREATE_TOPIC (17, with [5.x] topic attributes), GET_ALL_TOPIC_CONFIG
 * (21), DELETE_TOPIC_IN_BROKER (215).
 */
import { statfs } from 'node:fs/promises';
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import { MESSAGE_TYPE_ATTRIBUTE } from '../../../protocol/message/message-type.js';
import { PermName } from '../../../protocol/perm.js';
import { checkTopic, isSystemTopic } from '../../../protocol/validation.js';
import type { RequestHandler } from '../../../remoting/options.js';
import {
  DeleteTopicInBroker,
  GetAllTopicConfig,
  GetBrokerRuntimeInfo,
  UpdateAndCreateTopic,
} from '../../../protocol/headers/admin.js';
import { jsonBody, withOptionalFields } from '../../../protocol/headers/fields.js';
import { encodeKVTable, topicConfigSerializeWrapperJson } from '../../../protocol/headers/register.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';

const MAX_QUEUES = 1024;
/** Only the topic is needed; the rest fall back to Java's TopicConfig defaults. */
const CreateTopicRequest = withOptionalFields(
  UpdateAndCreateTopic,
  'defaultTopic',
  'readQueueNums',
  'writeQueueNums',
  'perm',
  'topicFilterType',
);

export function adminProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [UpdateAndCreateTopic.code, (r) => updateAndCreateTopic(ctx, r)],
    [GetAllTopicConfig.code, (r) => allTopicConfig(ctx, r)],
    [DeleteTopicInBroker.code, (r) => deleteTopic(ctx, r)],
    [GetBrokerRuntimeInfo.code, (r) => runtimeInfo(ctx, r)],
  ];
}

async function updateAndCreateTopic(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const h = requestHeader(CreateTopicRequest, request);
  const topic = h.topic;
  const problem = checkTopic(topic);
  if (problem !== undefined) return createResponse(request, ResponseCode.SYSTEM_ERROR, problem);
  if (topic === ctx.options.brokerClusterName || isSystemTopic(topic)) {
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The topic[${topic}] is conflict with system topic.`,
    );
  }
  const readQueueNums = h.readQueueNums ?? 16;
  const writeQueueNums = h.writeQueueNums ?? 16;
  const perm = h.perm ?? PermName.PERM_READ | PermName.PERM_WRITE;
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
  // Java 5.5.0 refuses MIXED unless `enableMixedMessageType` (default false; no option here).
  if (h.attributes?.split(',').includes(`+${MESSAGE_TYPE_ATTRIBUTE}=MIXED`))
    return createResponse(request, ResponseCode.INVALID_PARAMETER, 'MIXED message type is not supported.');
  try {
    ctx.topics.update(
      {
        topicName: topic,
        readQueueNums,
        writeQueueNums,
        perm,
        topicFilterType: h.topicFilterType === 'MULTI_TAG' ? 'MULTI_TAG' : 'SINGLE_TAG',
        topicSysFlag: h.topicSysFlag ?? 0,
        order: h.order ?? false,
      },
      h.attributes,
    );
  } catch (err) {
    // A refused attribute change (topic-attributes.ts), answered as Java's broker does.
    return createResponse(request, ResponseCode.SYSTEM_ERROR, (err as Error).message);
  }
  await ctx.registerBrokerAll();
  return createResponse(request, ResponseCode.SUCCESS);
}

function allTopicConfig(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const body = jsonBody(topicConfigSerializeWrapperJson(ctx.topics.wrapper()));
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}

async function deleteTopic(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const { topic } = requestHeader(DeleteTopicInBroker, request);
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

/**
 * The KV table `mqadmin clusterList` / `brokerStatus` read (Java `BrokerController` runtime info).
 * Left out on purpose: `sendThreadPoolQueueSize`, `pullThreadPoolQueueSize`, their
 * `...HeadWaitTimeMills` and `pageCacheLockTimeMills` (this broker has no request thread pools
 * and no page-cache lock, so there is nothing true to report); Java's tools print what is present.
 */
async function runtimeInfo(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const s = ctx.stats;
  let earliest = '';
  const min = ctx.store.minPhysicalOffset;
  if (ctx.store.maxPhysicalOffset > min) {
    const first = await ctx.store.readMessageAt(min).catch(() => undefined);
    if (first) {
      try {
        earliest = String(decodeStoredMessage(first).message.storeTimestamp);
      } catch {
        earliest = '';
      }
    }
  }
  const table: Record<string, string> = {
    brokerVersionDesc: 'V4_9_7',
    brokerVersion: '407',
    bootTimestamp: String(s.bootTimestamp),
    runtime: `[ ${Math.floor((Date.now() - s.bootTimestamp) / 1000)} seconds ]`,
    msgPutTotalTodayNow: String(s.putTotal),
    msgGetTotalTodayNow: String(s.getTotal),
    msgPutTotalTodayMorning: String(s.putTotalTodayMorning),
    msgGetTotalTodayMorning: String(s.getTotalTodayMorning),
    msgPutTotalYesterdayMorning: String(s.putTotalYesterdayMorning),
    msgGetTotalYesterdayMorning: String(s.getTotalYesterdayMorning),
    putTps: s.putTps(),
    getTransferedTps: s.getTps(),
    earliestMessageTimeStamp: earliest,
    commitLogMinOffset: String(min),
    commitLogMaxOffset: String(ctx.store.maxPhysicalOffset),
    brokerName: ctx.options.brokerName,
    brokerClusterName: ctx.options.brokerClusterName,
  };
  const ratio = await diskUsedRatio(ctx.options.storePathRootDir);
  if (ratio !== undefined) table.commitLogDiskRatio = String(ratio);
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, encodeKVTable(table));
}

/** Used share of the store's file system (Java `UtilAll.getDiskPartitionSpaceUsedPercent`). */
async function diskUsedRatio(path: string): Promise<number | undefined> {
  try {
    const fs = await statfs(path);
    const total = fs.blocks * fs.bsize;
    if (total <= 0) return undefined;
    return (total - fs.bfree * fs.bsize) / total;
  } catch {
    return undefined;
  }
}
