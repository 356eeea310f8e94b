/**
 * [5.x] POP_MESSAGE, ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME and NOTIFICATION (docs/consumers.md §3),
 * and BATCH_ACK_MESSAGE (batch-ack.ts):
 * request checks and answers in the order of Java's `PopMessageProcessor`, `AckMessageProcessor`,
 * `ChangeInvisibleTimeProcessor` and `NotificationProcessor`; the bookkeeping is `pop/pop-service.ts`.
 */
import { FilterExpressionError } from '../../../errors.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { isTagType } from '../../../protocol/filter/tags.js';
import {
  AckMessage,
  BatchAckMessage,
  ChangeInvisibleTime,
  ChangeInvisibleTimeResponse,
  Notification,
  NotificationResponse,
  POP_MAX_MSG_NUMS,
  POP_ORDER_REVIVE_QUEUE,
  PopMessage,
  PopMessageResponse,
  type PopMessageRequestHeader,
} from '../../../protocol/headers/pop.js';
import {
  buildMsgOffsetInfo,
  buildOrderCountInfo,
  buildStartOffsetInfo,
  isOrderly,
  parseExtraInfo,
  popRetryTopicV1,
  orderOffsetField,
  retryFlagOf,
  type ExtraInfo,
} from '../../../protocol/pop/extra-info.js';
import { isReadable } from '../../../protocol/perm.js';
import type { Connection } from '../../../remoting/connection.js';
import { releaseAfterWrite, releaseWriteBuffer } from '../../../remoting/write-buffer-pool.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';
import { buildMessageFilter, type MessageFilter } from '../message-filter.js';
import { NORMAL_REVIVE_QID, type PopRead, type PopService } from '../pop/pop-service.js';
import { popPlan } from '../priority.js';
import { APPLY_TOPIC_HINT } from './send.js';
import { processBatchAck } from './batch-ack.js';

/** Java `isTimeoutTooMuch`: a request this late (ms past bornTime + pollTime) is answered at once. */
const TOO_LATE_MS = 500;

export function popProcessors(ctx: BrokerContext, pop: PopService): Array<[number, RequestHandler]> {
  return [
    [PopMessage.code, (r, conn) => processPop(ctx, pop, r, conn)],
    [AckMessage.code, (r) => processAck(ctx, pop, r)],
    [BatchAckMessage.code, (r) => processBatchAck(ctx, pop, r)],
    [ChangeInvisibleTime.code, (r) => processChangeInvisible(ctx, pop, r)],
    [Notification.code, (r, conn) => processNotification(ctx, pop, r, conn)],
  ];
}

function fail(request: RemotingCommand, code: number, remark: string): RemotingCommand {
  return createResponse(request, code, remark);
}

/** Topic and queue checks shared by POP and NOTIFICATION; a response when they fail. */
function checkTopic(
  ctx: BrokerContext,
  request: RemotingCommand,
  topic: string,
  queueId: number,
): RemotingCommand | number {
  if (!isReadable(ctx.options.brokerPermission))
    return fail(
      request,
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.options.brokerIP1}] peeking message is forbidden`,
    );
  const config = ctx.topics.get(topic);
  if (!config)
    return fail(
      request,
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${topic}] not exist, apply first please! ${APPLY_TOPIC_HINT}`,
    );
  if (!isReadable(config.perm))
    return fail(request, ResponseCode.NO_PERMISSION, `the topic[${topic}] peeking message is forbidden`);
  if (queueId >= config.readQueueNums)
    return fail(
      request,
      ResponseCode.INVALID_PARAMETER,
      `queueId[${queueId}] is illegal, topic:[${topic}] topicConfig.readQueueNums:[${config.readQueueNums}]`,
    );
  return config.readQueueNums;
}

function filterOf(h: PopMessageRequestHeader): MessageFilter | string {
  try {
    return buildMessageFilter(h.expType ?? 'TAG', h.exp ?? '*');
  } catch (err) {
    if (err instanceof FilterExpressionError)
      return `parse the consumer's subscription failed: ${err.message}`;
    throw err;
  }
}

async function processPop(
  ctx: BrokerContext,
  pop: PopService,
  request: RemotingCommand,
  conn: Connection,
): Promise<RemotingCommand | undefined> {
  const h = requestHeader(PopMessage, request);
  if (h.maxMsgNums > POP_MAX_MSG_NUMS)
    return fail(
      request,
      ResponseCode.INVALID_PARAMETER,
      `the broker[${ctx.options.brokerIP1}] pop message's num is greater than 32`,
    );
  const checked = checkTopic(ctx, request, h.topic, h.queueId);
  if (typeof checked !== 'number') return checked;
  const filter = filterOf(h);
  if (typeof filter === 'string') return fail(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, filter);
  if (!isTagType(h.expType) && !ctx.options.enablePropertyFilter)
    return fail(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The broker does not support consumer to filter message by ${String(h.expType)}`,
    );
  const bornTime = h.bornTime > 0 ? h.bornTime : Date.now();
  const deadline = bornTime + h.pollTime;
  const retryTopic = popRetryTopicV1(h.topic, h.consumerGroup);
  const topics = [h.topic, retryTopic];
  let waited = false;
  for (;;) {
    if (Date.now() - deadline > TOO_LATE_MS && h.pollTime > 0)
      return fail(request, ResponseCode.POLLING_TIMEOUT, 'timeout too much');
    // Taken before the read: a message arriving (or a skipped queue released) while it runs
    // ends the wait below at once instead of being missed (pop-waiters.ts).
    const mark = pop.waiters.mark(topics);
    const { reads, skippedBusy } = await popOnce(ctx, pop, h, checked, filter, retryTopic);
    if (reads.length > 0) return popResponse(ctx, request, h, reads);
    const left = deadline - Date.now();
    // Found nothing only because concurrent POPs held the queues: not a wait of its own. The
    // release of a skipped queue wakes this one, which reads again rather than answering empty
    // (an empty answer costs the consumer a round trip while the queue still has messages).
    if (h.pollTime <= 0 || left <= 0 || ctx.stopping || (waited && !skippedBusy))
      return fail(request, ResponseCode.POLLING_TIMEOUT, 'NO_MESSAGE_IN_QUEUE');
    if (!skippedBusy) waited = true;
    if (pop.waiters.full(h.topic)) return fail(request, ResponseCode.POLLING_FULL, 'polling full');
    await pop.waiters.wait(topics, left, conn, mark);
    if (ctx.stopping || conn.closed) return undefined;
  }
}

async function popOnce(
  ctx: BrokerContext,
  pop: PopService,
  h: PopMessageRequestHeader,
  readQueueNums: number,
  filter: MessageFilter,
  retryTopic: string,
): Promise<{ reads: PopRead[]; skippedBusy: boolean }> {
  const req = {
    group: h.consumerGroup,
    topic: h.topic,
    // Counts down as the queues give messages: what the next queue may give.
    maxNums: h.maxMsgNums,
    invisibleTime: h.invisibleTime,
    popTime: Date.now(),
    order: h.order === true,
    initMode: h.initMode,
    filter,
  };
  const brokerName = ctx.options.brokerName;
  const reads: PopRead[] = [];
  /** A queue was skipped because another POP was reading it. */
  let skippedBusy = false;
  const onBusy = (): void => void (skippedBusy = true);
  // Orderly POP never reads the retry topic; otherwise it goes first in 20 % of pops (none in
  // priority mode), else last. The queues' order is Java's, by priority on a PRIORITY topic.
  const config = ctx.topics.get(h.topic);
  if (config === undefined) return { reads, skippedBusy }; // deleted since checkTopic
  const plan = popPlan(
    config,
    ctx.subscriptionGroups.get(h.consumerGroup),
    req.order,
    readQueueNums,
    undefined,
    ctx.options.priorityOrderAsc,
  );
  const hasRetry = !req.order && ctx.topics.get(retryTopic) !== undefined;
  const retryFirst = hasRetry && plan.retryFirst;
  const queues: Array<[topic: string, queueId: number]> = [];
  if (retryFirst) queues.push([retryTopic, 0]);
  if (h.queueId >= 0) queues.push([h.topic, h.queueId]);
  else for (const queueId of plan.queueIds) queues.push([h.topic, queueId]);
  if (hasRetry && !retryFirst) queues.push([retryTopic, 0]);
  for (const [topic, queueId] of queues) {
    if (req.maxNums <= 0) break;
    const reading = pop.popQueue(req, topic, queueId, brokerName, onBusy);
    const got = reading === undefined ? undefined : await reading;
    if (got) {
      reads.push(got);
      req.maxNums -= got.records.length;
    }
  }
  return { reads, skippedBusy };
}

function popResponse(
  ctx: BrokerContext,
  request: RemotingCommand,
  h: PopMessageRequestHeader,
  reads: PopRead[],
): RemotingCommand {
  const order = h.order === true;
  const entries = reads.map((r) => ({ retryFlag: retryFlagOf(r.topic), queue: String(r.queueId) }));
  const counts = order
    ? reads.flatMap((r, i) =>
        r.offsets.map((o, j) => ({
          retryFlag: entries[i]!.retryFlag,
          queue: orderOffsetField(r.queueId, o),
          value: r.counts[j] ?? 0,
        })),
      )
    : [];
  const header = PopMessageResponse.encode({
    popTime: reads[0]?.popTime ?? Date.now(),
    invisibleTime: h.invisibleTime,
    reviveQid: order ? POP_ORDER_REVIVE_QUEUE : NORMAL_REVIVE_QID,
    restNum: reads.reduce((n, r) => n + r.rest, 0),
    startOffsetInfo: buildStartOffsetInfo(reads.map((r, i) => ({ ...entries[i]!, value: r.startOffset }))),
    msgOffsetInfo: buildMsgOffsetInfo(reads.map((r, i) => ({ ...entries[i]!, value: r.offsets }))),
    ...(order ? { orderCountInfo: buildOrderCountInfo(counts) } : {}),
  });
  const total = reads.reduce((n, r) => n + r.records.length, 0);
  ctx.stats.getTotal += total;
  ctx.stats.noteGroupGet(h.topic, h.consumerGroup, total);
  // One queue read whole (the common case) is the store's buffer as it is; else one copy.
  const whole = reads.length === 1 ? reads[0]?.body : undefined;
  const body = whole ?? Buffer.concat(reads.flatMap((r) => r.records));
  const response = createResponse(request, ResponseCode.SUCCESS, 'FOUND', header, body);
  for (const r of reads) {
    if (r.pooled === undefined) continue;
    if (r.pooled === body) releaseAfterWrite(response, body);
    else releaseWriteBuffer(r.pooled);
  }
  return response;
}

function handleOf(request: RemotingCommand, extraInfo: string): ExtraInfo | RemotingCommand {
  try {
    return parseExtraInfo(extraInfo);
  } catch (err) {
    return fail(request, ResponseCode.INVALID_PARAMETER, (err as Error).message);
  }
}

function checkAckTarget(
  ctx: BrokerContext,
  request: RemotingCommand,
  topic: string,
  queueId: number,
  offset: number,
): RemotingCommand | undefined {
  const config = ctx.topics.get(topic);
  if (!config)
    return fail(request, ResponseCode.TOPIC_NOT_EXIST, `topic[${topic}] not exist, apply first please!`);
  if (queueId < 0 || queueId >= config.readQueueNums)
    return fail(request, ResponseCode.MESSAGE_ILLEGAL, `queueId[${queueId}] is illegal, topic:[${topic}]`);
  const min = ctx.store.getMinOffset(topic, queueId);
  const max = ctx.store.getMaxOffset(topic, queueId);
  if (offset < min || offset >= max)
    return fail(
      request,
      ResponseCode.NO_MESSAGE,
      `offset is illegal, key:${topic}@${queueId}, commit:${offset}, store:${min},${max}`,
    );
  return undefined;
}

const NO_CHECKPOINT =
  'no un-acked message for this receipt handle (already acked, invisible time over and revived, or popped by another group)';

function processAck(ctx: BrokerContext, pop: PopService, request: RemotingCommand): RemotingCommand {
  const h = requestHeader(AckMessage, request);
  const bad = checkAckTarget(ctx, request, h.topic, h.queueId, h.offset);
  if (bad) return bad;
  const handle = handleOf(request, h.extraInfo);
  if ('code' in handle) return handle;
  const ok = isOrderly(handle)
    ? pop.ackOrderly(h.consumerGroup, h.topic, h.queueId, handle.popTime, h.offset)
    : pop.ack(h.consumerGroup, h.topic, h.queueId, handle.ckQueueOffset, handle.popTime, h.offset);
  return ok
    ? createResponse(request, ResponseCode.SUCCESS)
    : fail(request, ResponseCode.NO_MESSAGE, NO_CHECKPOINT);
}

function processChangeInvisible(
  ctx: BrokerContext,
  pop: PopService,
  request: RemotingCommand,
): RemotingCommand {
  const h = requestHeader(ChangeInvisibleTime, request);
  const bad = checkAckTarget(ctx, request, h.topic, h.queueId, h.offset);
  if (bad) return bad;
  const handle = handleOf(request, h.extraInfo);
  if ('code' in handle) return handle;
  if (isOrderly(handle)) {
    const lock = pop.changeOrderly(
      h.consumerGroup,
      h.topic,
      h.queueId,
      handle.popTime,
      h.offset,
      h.invisibleTime,
    );
    if (!lock) return fail(request, ResponseCode.NO_MESSAGE, NO_CHECKPOINT);
    const header = ChangeInvisibleTimeResponse.encode({
      popTime: lock.popTime,
      invisibleTime: lock.invisibleTime,
      reviveQid: POP_ORDER_REVIVE_QUEUE,
    });
    return createResponse(request, ResponseCode.SUCCESS, undefined, header);
  }
  // Java `appendCheckPointThenAckOrigin`: a new checkpoint for just this offset, then the ack.
  const ck = pop.state.findCheckpoint(
    h.consumerGroup,
    h.topic,
    h.queueId,
    handle.ckQueueOffset,
    handle.popTime,
  );
  if (!ck || !ck.offsets.includes(h.offset) || ck.acked.includes(h.offset))
    return fail(request, ResponseCode.NO_MESSAGE, NO_CHECKPOINT);
  const now = Date.now();
  pop.state.addCheckpoint({
    ...ck,
    startOffset: h.offset,
    popTime: now,
    invisibleTime: h.invisibleTime,
    offsets: [h.offset],
    acked: [],
  });
  pop.state.ack(ck, h.offset);
  const header = ChangeInvisibleTimeResponse.encode({
    popTime: now,
    invisibleTime: h.invisibleTime,
    reviveQid: NORMAL_REVIVE_QID,
  });
  return createResponse(request, ResponseCode.SUCCESS, undefined, header);
}

async function processNotification(
  ctx: BrokerContext,
  pop: PopService,
  request: RemotingCommand,
  conn: Connection,
): Promise<RemotingCommand | undefined> {
  const h = requestHeader(Notification, request);
  const checked = checkTopic(ctx, request, h.topic, h.queueId);
  if (typeof checked !== 'number') return checked;
  const retryTopic = popRetryTopicV1(h.topic, h.consumerGroup);
  const order = h.order === true;
  const has = (): boolean => {
    const queues = h.queueId >= 0 ? [h.queueId] : Array.from({ length: checked }, (_, i) => i);
    if (queues.some((q) => pop.hasMessage(h.consumerGroup, h.topic, q, order))) return true;
    return (
      !order &&
      ctx.topics.get(retryTopic) !== undefined &&
      pop.hasMessage(h.consumerGroup, retryTopic, 0, false)
    );
  };
  const topics = [h.topic, retryTopic];
  const mark = pop.waiters.mark(topics);
  let hasMsg = has();
  const left = (h.bornTime > 0 ? h.bornTime : Date.now()) + h.pollTime - Date.now();
  if (!hasMsg && left > 0) {
    if (pop.waiters.full(h.topic))
      return createResponse(
        request,
        ResponseCode.SUCCESS,
        undefined,
        NotificationResponse.encode({ hasMsg: false, pollingFull: true }),
      );
    await pop.waiters.wait(topics, left, conn, mark);
    if (ctx.stopping || conn.closed) return undefined;
    hasMsg = has();
  }
  return createResponse(request, ResponseCode.SUCCESS, undefined, NotificationResponse.encode({ hasMsg }));
}
