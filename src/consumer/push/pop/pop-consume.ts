/**
 * POP-mode queues of a `clientRebalance: false` push consumer (Java `DefaultMQPushConsumerImpl#popMessage`
 * and `ConsumeMessagePopConcurrentlyService`, docs/consumers.md §1.12). One loop per assigned
 * queue (queueId −1: every queue of that broker) long-polls POP_MESSAGE for popBatchNums messages
 * while fewer than popThresholdForQueue popped messages wait for their ack, and hands them to the
 * handler pool. A message whose handler succeeds is acked; one that fails is made invisible for
 * the next step of Java's POP delay table (10 s, 30 s, 1 min, …) so the broker's revive delivers
 * it again with reconsumeTimes + 1; no send-back. Once it failed maxReconsumeTimes times it is
 * moved to `%DLQ%<group>` (CONSUMER_SEND_MSG_BACK, delay level −1) and acked, the rule the 5.x
 * gRPC proxy applies (Java's remoting client would ack it unconsumed after 4 h instead).
 */
import type { MessageQueue } from '../../../client/route.js';
import { withoutNamespace } from '../../../client/namespace.js';
import { errorFromResponse } from '../../../client/response-error.js';
import type { Logger } from '../../../observability/logger.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../../protocol/command.js';
import { ConsumeInitMode, PopMessage, PopMessageResponse } from '../../../protocol/headers/pop.js';
import type { SubBeforeTrace } from '../../../protocol/trace/trace-data.js';
import type { BackgroundTasks } from '../../core/background-tasks.js';
import type { ConsumerClient } from '../../core/client-port.js';
import type { ConsumeStats } from '../../core/consume-stats.js';
import {
  HandlerCall,
  type ConsumeOutcome,
  type ConsumeTraceContext,
  type HandlerPool,
} from '../../core/handler-pool.js';
import {
  decodePullBody,
  filterByTags,
  markConsumeStart,
  markPopCheckpoint,
  type ConsumerMessage,
} from '../../core/message-view.js';
import type { ConsumeTracer } from '../../core/msg-trace.js';
import { PULL_DELAY } from '../../core/pull-loop.js';
import type { SendBack } from '../../core/send-back.js';
import { ackTargetOf, changeInvisibleTime, type AckPort } from '../../simple/ack.js';
import type { AckOutcomes, PopAckTarget, PopAcker } from '../../core/pop-acker.js';
import { parsedReceiptHandles, type PoppedMessage } from '../../simple/pop-response.js';
import { builtInfo, markReceived } from '../../simple/batched-ack.js';
import type { ResolvedPushConsumerOptions } from '../options.js';
import type { SubscriptionData } from '../../../protocol/headers/heartbeat.js';

/** What a POP needs of the topic's subscription. */
export interface PopSubscription {
  readonly data: SubscriptionData;
  readonly tags: ReadonlySet<string>;
}

/** Java `BROKER_SUSPEND_MAX_TIME_MILLIS`: how long the broker holds a POP with nothing to give. */
export const POP_POLL_TIME_MS = 15_000;
/** Java `PullAPIWrapper#popAsync`: the request waits the poll time plus this. */
const POP_RPC_EXTRA_MS = 10_000;
/** Java `DefaultMQPushConsumerImpl.popDelayLevel`: seconds of invisibility per failed delivery. */
export const POP_DELAY_LEVEL_SECONDS: readonly number[] = Object.freeze([
  10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200,
]);

/** How long a message that failed after `reconsumeTimes` earlier deliveries stays invisible (ms). */
export function popRetryDelayMs(reconsumeTimes: number): number {
  const table = POP_DELAY_LEVEL_SECONDS;
  return (
    (reconsumeTimes >= table.length ? table[table.length - 1]! : table[Math.max(0, reconsumeTimes)]!) * 1000
  );
}

/** A POP-mode queue this consumer was assigned (Java `PopProcessQueue`). */
export interface PopQueue {
  readonly key: string;
  /** queueId −1: every queue of the broker. */
  readonly mq: MessageQueue;
  dropped: boolean;
  /** Popped messages whose handler has not finished (Java `waitAckCounter`). */
  waitAck: number;
  lastPopTimestamp: number;
  /** Loops held by flow control: woken once waitAck is back under the threshold. */
  readonly waiting: Array<() => void>;
}

/** What the POP loops read from the consumer. */
export interface PopConsumeHost {
  readonly options: Readonly<ResolvedPushConsumerOptions>;
  readonly wireGroup: string;
  readonly logger: Logger;
  readonly client: ConsumerClient;
  readonly ackPort: AckPort;
  /** Batches the acks (core/pop-acker.ts). */
  readonly acker: PopAcker;
  readonly pool: HandlerPool;
  readonly sendBack: SendBack;
  readonly stats: ConsumeStats;
  readonly life: BackgroundTasks;
  readonly msgTrace: ConsumeTracer | undefined;
  readonly batchMaxSize: number;
  readonly maxReconsumeTimes: number;
  active(): boolean;
  isPaused(mq: MessageQueue): boolean;
  subscription(wireTopic: string): PopSubscription | undefined;
  invoke(messages: ConsumerMessage[]): unknown;
  handlerFailed(mq: MessageQueue, messages: ConsumerMessage[], outcome: ConsumeOutcome & { ok: false }): void;
}

/**
 * The one place POP-mode messages are acked: through the consumer's PopAcker, so acks of one
 * turn go as one BATCH_ACK_MESSAGE per broker (ACK_MESSAGE where that is not served).
 */
export function ackPopped(
  host: Pick<PopConsumeHost, 'ackPort' | 'acker'>,
  message: PoppedMessage,
): Promise<void> {
  try {
    return host.acker.ack(ackTargetOf(host.ackPort, message, builtInfo(message)));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Runs the POP loop of `q` until it is dropped or the consumer stops. */
export async function runPopLoop(host: PopConsumeHost, q: PopQueue): Promise<void> {
  const o = host.options;
  const sleep = (ms: number): Promise<void> => host.life.sleep(ms);
  while (!q.dropped && host.active()) {
    q.lastPopTimestamp = Date.now();
    if (host.isPaused(q.mq)) {
      await sleep(PULL_DELAY.paused);
      continue;
    }
    if (q.waitAck > o.popThresholdForQueue) {
      // Java sleeps 50 ms and looks again; here the finished acks wake the loop as soon as there
      // is room (50 ms stays the longest wait), so a fast handler is not held up by the poll.
      await new Promise<void>((resolve) => {
        q.waiting.push(resolve);
        void sleep(PULL_DELAY.flowControl).then(resolve);
      });
      continue;
    }
    const sub = host.subscription(q.mq.topic);
    if (sub === undefined) {
      await sleep(o.pullTimeDelayMillsWhenException);
      continue;
    }
    let delay: number;
    try {
      delay = await popOnce(host, q, sub);
    } catch (err) {
      if (q.dropped || !host.active()) return;
      host.logger.warn('POP failed', { mq: q.mq, error: err });
      delay = o.pullTimeDelayMillsWhenException;
    }
    if (delay > 0) await sleep(delay);
  }
}

/** One POP; resolves to the pause before the next. */
async function popOnce(host: PopConsumeHost, q: PopQueue, sub: PopSubscription): Promise<number> {
  const o = host.options;
  const { client, wireGroup } = host;
  const address = client.masterAddress(q.mq.brokerName);
  if (address === undefined) return o.pullTimeDelayMillsWhenException;
  const request = createRequest(
    PopMessage.code,
    PopMessage.encode({
      consumerGroup: wireGroup,
      topic: q.mq.topic,
      queueId: q.mq.queueId,
      maxMsgNums: o.popBatchNums,
      invisibleTime: o.popInvisibleTime,
      pollTime: POP_POLL_TIME_MS,
      bornTime: Date.now(),
      initMode:
        o.consumeFromWhere === 'CONSUME_FROM_FIRST_OFFSET' ? ConsumeInitMode.MIN : ConsumeInitMode.MAX,
      expType: sub.data.expressionType,
      exp: sub.data.subString,
      order: false,
      bname: q.mq.brokerName,
    }),
    undefined,
    client.commandDefaults,
  );
  const started = Date.now();
  const response = await client.request(address, request, POP_POLL_TIME_MS + POP_RPC_EXTRA_MS);
  switch (response.code) {
    case ResponseCode.SUCCESS:
      host.stats.recordPull(q.mq.topic, Date.now() - started);
      // Dropped while the POP was held (the group switched to PULL): the queue's pull loop, or
      // the pull of the POP retry topic once the broker revives them, delivers these.
      if (!q.dropped) dispatch(host, q, sub, response);
      return o.pullInterval;
    case ResponseCode.POLLING_TIMEOUT:
    case ResponseCode.PULL_NOT_FOUND:
      return 0;
    case ResponseCode.FLOW_CONTROL:
      return PULL_DELAY.brokerFlowControl;
    case ResponseCode.POLLING_FULL:
      return o.pullTimeDelayMillsWhenException;
    default:
      throw errorFromResponse(response, { address, permission: 'SUB', requestCode: request.code });
  }
}

/** The popped messages, with receipt handles, go to the handler pool in calls of batchMaxSize. */
function dispatch(host: PopConsumeHost, q: PopQueue, sub: PopSubscription, response: RemotingCommand): void {
  const o = host.options;
  const header = PopMessageResponse.decode(response.extFields);
  const decoded = decodePullBody(response.body ?? new Uint8Array(0), {
    queue: q.mq,
    consumerGroup: host.wireGroup,
    namespace: o.namespace,
  });
  const handles = parsedReceiptHandles(decoded, header, q.mq.brokerName, false);
  // As the SimpleConsumer: the request's topic on every message, retry messages included, from one
  // descriptor per response, and the handle (parsed, so its ack need not parse it) set the same
  // way in the same order on every message, so they share one shape. POP_CK (Java
  // `processPopResponse`) waits until the system properties are read.
  const topic = { value: withoutNamespace(q.mq.topic, o.namespace), enumerable: true };
  const popped = decoded.map((m, i) => {
    const handle = handles[i]!;
    markPopCheckpoint(m, handle.handle);
    Object.defineProperty(m, 'topic', topic);
    return markReceived(m, handle, o.consumerGroup);
  });
  // Java re-filters by tag (the broker matched hash codes); a message filtered out here is acked
  // so it does not come back after every invisible time.
  const kept = filterByTags(popped, sub.tags) as PoppedMessage[];
  if (kept.length !== popped.length) for (const m of popped) if (!kept.includes(m)) void ackQuietly(host, m);
  if (kept.length === 0) return;
  host.stats.recordPulled(q.mq.topic, kept.length);
  const expiresAt = header.popTime + header.invisibleTime;
  q.waitAck += kept.length;
  const n = host.batchMaxSize;
  const calls: PopCall[] = [];
  for (let i = 0; i < kept.length; i += n) {
    host.life.taskBegun();
    calls.push(new PopCall(host, q, n === 1 ? [kept[i]!] : kept.slice(i, i + n), expiresAt));
  }
  // As Java, the next POP goes out before these are consumed: a synchronous handler would
  // otherwise run, and queue its acks on the connection, ahead of the next POP request.
  setImmediate(() => {
    for (const call of calls) host.pool.submit(call);
  });
}

async function ackQuietly(host: PopConsumeHost, m: PoppedMessage): Promise<void> {
  try {
    await ackPopped(host, m);
  } catch (err) {
    host.logger.warn(ACK_FAILED, { msgId: m.msgId, error: err });
  }
}

async function retryLater(host: PopConsumeHost, m: PoppedMessage, delayMs: number): Promise<void> {
  try {
    await changeInvisibleTime(host.ackPort, m, delayMs, undefined);
  } catch (err) {
    // The message still comes back, after the invisible time of its POP.
    host.logger.warn('changing the invisible time of a failed message failed', {
      msgId: m.msgId,
      error: err,
    });
  }
}

/** Logged for a message whose ack failed: the broker delivers it again. */
const ACK_FAILED = 'ack of a POP-mode message failed; it will be delivered again';

/**
 * One handler call for POP-mode messages of one POP. It also takes the outcomes of its acks
 * (AckOutcomes): no promise or closure per message on the way from the handler to the broker.
 */
class PopCall extends HandlerCall implements AckOutcomes {
  private traced: SubBeforeTrace | undefined;
  /** The messages being acked, by the acker's index (`messages` unless some were refused at once). */
  private acking: readonly PoppedMessage[] = [];
  /** Acks not yet answered; the call's task ends with the last. */
  private acksLeft = 0;

  constructor(
    private readonly host: PopConsumeHost,
    private readonly q: PopQueue,
    private readonly messages: PoppedMessage[],
    /** popTime + invisibleTime of the POP: past it the messages belong to the next POP. */
    private readonly expiresAt: number,
  ) {
    super();
  }

  call(): unknown {
    // Java skips a call whose POP already timed out: the broker delivers its messages again. A
    // queue dropped meanwhile does not matter: the messages stay this client's until then.
    if (!this.host.active() || Date.now() >= this.expiresAt) {
      this.skipped = true;
      return undefined;
    }
    markConsumeStart(this.messages, this.started);
    this.traced = this.host.msgTrace?.before(this.messages);
    return this.host.invoke(this.messages);
  }

  override batch(): readonly ConsumerMessage[] {
    return this.messages;
  }

  trace(): ConsumeTraceContext {
    const first = this.messages[0];
    return {
      consumerGroup: this.host.options.consumerGroup,
      topic: first?.topic ?? this.q.mq.topic,
      brokerName: this.q.mq.brokerName,
      queueId: first?.queue.queueId ?? this.q.mq.queueId,
      offsets: this.messages.map((m) => m.queueOffset),
      msgIds: this.messages.map((m) => m.msgId),
    };
  }

  done(outcome: ConsumeOutcome): void {
    const { host, q, messages } = this;
    if (this.traced !== undefined) host.msgTrace?.after(this.traced, outcome);
    // As Java's PopProcessQueue: the messages stop counting against popThresholdForQueue once
    // their handler is done; the acks go on in the background (shutdown still waits for them).
    this.consumed();
    if (this.skipped) return host.life.taskEnded();
    host.stats.record(q.mq.topic, messages.length, outcome.ok, Date.now() - this.started);
    if (!outcome.ok) host.handlerFailed(q.mq, messages, outcome);
    // A handler that outlived its POP's invisible time: the broker delivers the messages again anyway.
    if (Date.now() >= this.expiresAt) return host.life.taskEnded();
    if (outcome.ok) return this.ackAll();
    void this.retryOrDeadLetter().finally(() => host.life.taskEnded());
  }

  /** Acks every message through one acker call; the call's task ends once all were answered. */
  private ackAll(): void {
    const { host, messages } = this;
    const targets: PopAckTarget[] = [];
    let acking: PoppedMessage[] | undefined;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      try {
        targets.push(ackTargetOf(host.ackPort, m, builtInfo(m)));
        acking?.push(m);
      } catch (err) {
        acking ??= messages.slice(0, i);
        host.logger.warn(ACK_FAILED, { msgId: m.msgId, error: err });
      }
    }
    if (targets.length === 0) return host.life.taskEnded();
    this.acking = acking ?? messages;
    this.acksLeft = targets.length;
    host.acker.submit(targets, this);
  }

  told(index: number, err: unknown): void {
    if (err !== undefined)
      this.host.logger.warn(ACK_FAILED, { msgId: this.acking[index]?.msgId, error: err });
    if (--this.acksLeft === 0) this.host.life.taskEnded();
  }

  /** The failed messages: made invisible for their next retry, or moved to the DLQ past their last. */
  private async retryOrDeadLetter(): Promise<void> {
    const host = this.host;
    await Promise.all(
      this.messages.map(async (m) => {
        if (m.reconsumeTimes < host.maxReconsumeTimes)
          return retryLater(host, m, popRetryDelayMs(m.reconsumeTimes));
        if (await host.sendBack.sendBack(m, -1)) {
          host.logger.info('message moved to the DLQ', { msgId: m.msgId, reconsumeTimes: m.reconsumeTimes });
          return ackQuietly(host, m);
        }
        return retryLater(host, m, popRetryDelayMs(POP_DELAY_LEVEL_SECONDS.length));
      }),
    );
  }

  private consumed(): void {
    const q = this.q;
    q.waitAck -= this.messages.length;
    if (q.waiting.length > 0 && q.waitAck <= this.host.options.popThresholdForQueue)
      for (const wake of q.waiting.splice(0)) wake();
  }
}
