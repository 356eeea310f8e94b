/**
 * One pull loop per held queue (Java `PullMessageService` + `DefaultMQPushConsumerImpl#pullMessage`,
 * docs/consumers.md §1.3): flow control by cached count, size and span (50 ms), long polling (the broker
 * holds the pull for brokerSuspendMaxTimeMillis), the client-side tag re-check, and Java's handling
 * of every pull status. The loop ends when its ProcessQueue is dropped.
 */
import { errorFromResponse } from '../../client/response-error.js';
import type { MessageQueue } from '../../client/route.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import type { SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { buildPullSysFlag, PullMessage, PullMessageResponse } from '../../protocol/headers/pull.js';
import type { ConsumerScope } from './client-port.js';
import { flowControlReason, type QueueThresholds } from './flow-control.js';
import { decodePullBody, filterByTags, type ConsumerMessage } from './message-view.js';
import type { ProcessQueue } from './process-queue.js';
import type { PullBrokerSelection, PullTarget } from './pull-broker-selection.js';
import { reachedQueueEnd, sinceSubscription } from './start-position.js';

/** Delays of Java's pull loop (ms). */
export const PULL_DELAY = Object.freeze({
  flowControl: 50,
  brokerFlowControl: 20,
  paused: 1000,
  notLocked: 3000,
  offsetMovedRemoval: 10_000,
});

/** A queue this consumer holds. */
export interface QueueEntry {
  readonly key: string;
  readonly mq: MessageQueue;
  readonly pq: ProcessQueue<ConsumerMessage>;
  nextOffset: number;
  /** A LAST_OFFSET start without a stored offset: drop what was stored before (start-position.ts). */
  notBefore?: number | undefined;
}

export interface PullContext extends ConsumerScope {
  /**
   * Lite pull (Java `DefaultLitePullConsumerImpl`, docs/consumers.md §2): every pull carries its
   * subscription and the lite bit (sysFlag 22) and no commit offset; offsets are committed apart.
   */
  readonly lite?: boolean;
  isRunning(): boolean;
  isPaused(mq: MessageQueue): boolean;
  /** Lite pull: messages waiting for poll() in all queues exceed pullThresholdForAll. */
  overAllThreshold?(): boolean;
  /**
   * The topic's subscription; `pullVersion` is the subVersion brokers already know (a pull with a
   * newer one than the broker registered gets SUBSCRIPTION_NOT_LATEST).
   */
  subscription(
    topic: string,
  ): { data: SubscriptionData; tags: ReadonlySet<string>; pullVersion: number } | undefined;
  /** Per-queue thresholds (topic thresholds split over the held queues). */
  thresholds(topic: string): QueueThresholds;
  /** In-memory committed offset, −1 when none. */
  committedOffset(mq: MessageQueue): number;
  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void;
  /** Hands freshly pulled messages to the consume service. */
  dispatch(entry: QueueEntry, messages: ConsumerMessage[]): void;
  /** Orderly: make sure the queue is locked and its offset re-read after the first lock. */
  prepareOrderly(entry: QueueEntry): Promise<boolean>;
  /** OFFSET_ILLEGAL: store the broker's offset and drop the queue; the next rebalance re-adds it. */
  offsetMoved(entry: QueueEntry, nextOffset: number): void;
  /** The broker does not know our subscription yet: heartbeat. */
  subscriptionMissing(): void;
  /** Sleeps, cut short by shutdown. */
  sleep(ms: number): Promise<void>;
  /** Master or slave per pull (`suggestWhichBrokerId`); absent: always the master. */
  readonly pullFrom?: PullBrokerSelection;
}

interface FlowLog {
  count: number;
}

/** True (with a log line every 1000th time) when the cache is over a threshold. */
function overThreshold(ctx: PullContext, entry: QueueEntry, log: FlowLog): boolean {
  const { pq, mq } = entry;
  const reason =
    ctx.overAllThreshold?.() === true
      ? 'messages waiting in all queues'
      : flowControlReason(
          pq,
          ctx.thresholds(mq.topic),
          ctx.orderly ? undefined : ctx.options.consumeConcurrentlyMaxSpan,
        );
  if (reason === undefined) return false;
  if (log.count++ % 1000 === 0)
    ctx.logger.warn(`flow control: ${reason} over the threshold; pulling later`, {
      mq,
      count: pq.msgCount,
      sizeMiB: Math.floor(pq.msgSize / (1024 * 1024)),
      span: pq.maxSpan(),
      times: log.count,
    });
  return true;
}

function masterTarget(brokerName: string, address: string | undefined): PullTarget | undefined {
  return address === undefined ? undefined : { brokerName, address, brokerId: 0, slave: false };
}

export async function runPullLoop(ctx: PullContext, entry: QueueEntry): Promise<void> {
  const { pq, mq } = entry;
  const o = ctx.options;
  const log: FlowLog = { count: 0 };
  while (!pq.dropped && ctx.isRunning()) {
    pq.lastPullTimestamp = Date.now();
    if (ctx.isPaused(mq)) {
      await ctx.sleep(PULL_DELAY.paused);
      continue;
    }
    if (overThreshold(ctx, entry, log)) {
      await ctx.sleep(PULL_DELAY.flowControl);
      continue;
    }
    if (ctx.orderly && !(await ctx.prepareOrderly(entry))) {
      await ctx.sleep(PULL_DELAY.notLocked);
      continue;
    }
    const sub = ctx.subscription(mq.topic);
    const target =
      ctx.pullFrom !== undefined
        ? ctx.pullFrom.target(entry.key, mq.brokerName)
        : masterTarget(mq.brokerName, ctx.client.masterAddress(mq.brokerName));
    if (sub === undefined || target === undefined) {
      await ctx.sleep(o.pullTimeDelayMillsWhenException);
      continue;
    }
    const address = target.address;
    // A slave ignores commits (Java clearCommitOffsetFlag): offsets only go to the master.
    const commitOffset = ctx.clustering && ctx.lite !== true && !target.slave ? ctx.committedOffset(mq) : -1;
    const withSubscription = ctx.lite === true || o.postSubscriptionWhenPull;
    const request = createRequest(
      PullMessage.code,
      PullMessage.encode({
        consumerGroup: ctx.group,
        topic: mq.topic,
        queueId: mq.queueId,
        queueOffset: entry.nextOffset,
        maxMsgNums: o.pullBatchSize,
        // Deviation: a 5.x Java lite consumer sends LITE_PULL_MESSAGE (361), which brokers serve
        // like PULL_MESSAGE on another thread pool; 4.9 knows only 11, so 11 works everywhere.
        sysFlag: buildPullSysFlag(commitOffset > 0, true, withSubscription, false, ctx.lite === true),
        commitOffset: Math.max(0, commitOffset),
        suspendTimeoutMillis: o.brokerSuspendMaxTimeMillis,
        subscription: withSubscription ? sub.data.subString : undefined,
        subVersion: sub.pullVersion,
        expressionType: sub.data.expressionType,
        bname: mq.brokerName,
      }),
      undefined,
      ctx.client.commandDefaults,
    );
    let response;
    try {
      response = await ctx.client.request(address, request, o.consumerTimeoutMillisWhenSuspend);
    } catch (err) {
      if (pq.dropped || !ctx.isRunning()) return;
      ctx.logger.warn('pull failed', { mq, address, error: err });
      // Another member of the group can serve now: no pause (pull-broker-selection.ts).
      if (ctx.pullFrom?.failed(entry.key, mq.brokerName, target) !== true)
        await ctx.sleep(o.pullTimeDelayMillsWhenException);
      continue;
    }
    ctx.pullFrom?.answered(target);
    if (pq.dropped) return;
    const code = response.code;
    if (code === ResponseCode.FLOW_CONTROL) {
      await ctx.sleep(PULL_DELAY.brokerFlowControl);
      continue;
    }
    if (
      code !== ResponseCode.SUCCESS &&
      code !== ResponseCode.PULL_NOT_FOUND &&
      code !== ResponseCode.PULL_RETRY_IMMEDIATELY &&
      code !== ResponseCode.PULL_OFFSET_MOVED
    ) {
      if (code === ResponseCode.SUBSCRIPTION_NOT_EXIST || code === ResponseCode.SUBSCRIPTION_NOT_LATEST)
        ctx.subscriptionMissing();
      // A slave that refuses sends the queue back to the master.
      if (target.slave) ctx.pullFrom?.suggest(entry.key, 0);
      ctx.logger.warn('pull refused', {
        mq,
        error: errorFromResponse(response, { address, permission: 'SUB' }),
      });
      await ctx.sleep(o.pullTimeDelayMillsWhenException);
      continue;
    }
    const h = PullMessageResponse.decode(response.extFields);
    // Sent elsewhere but nowhere else to go (a lagging slave while the master is down): wait.
    const stuck = ctx.pullFrom?.suggest(entry.key, h.suggestWhichBrokerId, target) === true;
    pq.brokerMaxOffset = h.maxOffset;
    if (code === ResponseCode.PULL_OFFSET_MOVED) {
      ctx.logger.warn('pull offset illegal; the queue restarts at the broker’s offset', {
        mq,
        offset: entry.nextOffset,
        nextBeginOffset: h.nextBeginOffset,
      });
      entry.nextOffset = h.nextBeginOffset;
      ctx.offsetMoved(entry, h.nextBeginOffset);
      return;
    }
    const prevOffset = entry.nextOffset;
    entry.nextOffset = h.nextBeginOffset;
    if (code === ResponseCode.PULL_NOT_FOUND) reachedQueueEnd(entry);
    if (code !== ResponseCode.SUCCESS) {
      // correctTagsOffset: nothing cached and nothing new, so the queue is done up to here.
      if (pq.msgCount === 0) ctx.updateOffset(mq, h.nextBeginOffset, true);
      if (stuck) await ctx.sleep(o.pullTimeDelayMillsWhenException);
      continue;
    }
    let messages: ConsumerMessage[];
    try {
      messages = decodePullBody(response.body ?? new Uint8Array(0), {
        queue: mq,
        consumerGroup: ctx.group,
        namespace: o.namespace,
        offsetDelta: h.offsetDelta,
        minOffset: h.minOffset,
        maxOffset: h.maxOffset,
      });
    } catch (err) {
      // Pull the same records again later rather than skip them.
      entry.nextOffset = prevOffset;
      ctx.logger.error('pulled messages could not be decoded', { mq, offset: prevOffset, error: err });
      await ctx.sleep(o.pullTimeDelayMillsWhenException);
      continue;
    }
    const kept = filterByTags(sinceSubscription(entry, messages), sub.tags);
    if (kept.length > 0 && pq.putMessages(kept) > 0) ctx.dispatch(entry, kept);
    if (o.pullInterval > 0) await ctx.sleep(o.pullInterval);
  }
}
