/**
 * The push consumer's consume machinery, wired once per start: the handler pool, send-back,
 * the concurrent or orderly consume service, the rebalancer and the pull loops' context
 * (pull-loop.ts) over one offset store. push-consumer.ts owns the state these read (handler,
 * subscriptions, pauses, lifecycle) and passes it in as a `PushServiceHost`.
 */
import { PopAcker } from '../core/pop-acker.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import type { ConsumerClient, ConsumerScope } from '../core/client-port.js';
import { ConsumeStats, timedPulls } from '../core/consume-stats.js';
import { queueThresholds } from '../core/flow-control.js';
import type { BackgroundTasks } from '../core/background-tasks.js';
import { HandlerPool, type ConsumeOutcome, type ConsumeTraceContext } from '../core/handler-pool.js';
import { ConsumeTelemetry, type CachedTopicFigures } from '../core/consume-telemetry.js';
import { clientTelemetry } from '../../observability/otel/api.js';
import { withoutNamespace } from '../../client/namespace.js';
import type { ConsumerMessage } from '../core/message-view.js';
import type { ConsumeTracer } from '../core/msg-trace.js';
import { PullBrokerSelection } from '../core/pull-broker-selection.js';
import { runPullLoop, type PullContext, type QueueEntry } from '../core/pull-loop.js';
import { userQueue } from '../core/queue-names.js';
import { Rebalancer, type RebalanceEvent } from '../core/rebalance.js';
import { SendBack } from '../core/send-back.js';
import type { OffsetStore } from '../offset-store/offset-store.js';
import { ConcurrentConsumeService, type ConsumeContext } from './consume-concurrently.js';
import { OrderlyConsumeService } from './consume-orderly.js';
import { rebalancesOnBroker, type ResolvedPushConsumerOptions } from './options.js';
import { PopAssignments } from './pop/assignment.js';
import type { AckPort } from '../simple/ack.js';
import type { ConsumeHandler, HandlerErrorEvent } from './types.js';

/** What the services read from the consumer. */
export interface PushServiceHost {
  readonly options: Readonly<ResolvedPushConsumerOptions>;
  readonly clientId: string;
  readonly wireGroup: string;
  readonly logger: Logger;
  readonly clustering: boolean;
  readonly handler: ConsumeHandler;
  readonly stats: ConsumeStats;
  readonly life: BackgroundTasks;
  readonly msgTrace: ConsumeTracer | undefined;
  /** STARTING or RUNNING (client/lifecycle.ts): pulls and handler calls go on. */
  active(): boolean;
  isPaused(mq: MessageQueue): boolean;
  /** Wire names of the subscribed topics (retry topic included). */
  topics(): string[];
  subscription: PullContext['subscription'];
  /** When the topic was first subscribed (ms): where LAST_OFFSET starts (core/start-position.ts). */
  subscribedAt(topic: string): number | undefined;
  queuesChanged(event: RebalanceEvent): Promise<void>;
  /** A handler call failed: the 'handlerError' event. */
  handlerError(event: HandlerErrorEvent): void;
  /** Acks and invisible-time changes of POP-mode messages (`clientRebalance: false`). */
  readonly ackPort: AckPort;
  /** Adds or removes an automatic subscription (a POP retry topic); true when it changed. */
  setRetryTopic(topic: string, subscribed: boolean): boolean;
}

export interface PushServices {
  pool: HandlerPool;
  /** OpenTelemetry of this start (consume-telemetry.ts); undefined when off. */
  telemetry: ConsumeTelemetry | undefined;
  rebalancer: Rebalancer;
  orderly: OrderlyConsumeService | undefined;
  concurrent: ConcurrentConsumeService | undefined;
  pullFrom: PullBrokerSelection | undefined;
  /** `clientRebalance: false`: the POP-mode queues the broker assigned (pop/assignment.ts). */
  pop: PopAssignments | undefined;
}

export function wirePushServices(
  host: PushServiceHost,
  client: ConsumerClient,
  offsetStore: OffsetStore,
): PushServices {
  const o = host.options;
  const life = host.life;
  const orderly = o.consumeOrderly;
  const maxReconsume = o.maxReconsumeTimes === -1 ? (orderly ? 2 ** 31 - 1 : 16) : o.maxReconsumeTimes;
  const otel = clientTelemetry(o.openTelemetry);
  const telemetry =
    otel === undefined
      ? undefined
      : new ConsumeTelemetry(otel, {
          consumerGroup: o.consumerGroup,
          clientId: host.clientId,
          namespace: o.namespace,
          consumptionModel: host.clustering ? 'clustering' : 'broadcasting',
          // The queue tables, built below; the gauges read them only at a collection, later.
          cache: () => cachedFigures(rebalancer, pop, o.namespace),
        });
  const pool = new HandlerPool(o.consumeThreadMax, Math.round(o.consumeTimeout * 60_000));
  if (telemetry !== undefined) pool.instrument(telemetry);
  const sendBack = new SendBack(
    client,
    {
      group: host.wireGroup,
      namespace: o.namespace,
      maxReconsumeTimes: maxReconsume,
      unitMode: o.unitMode,
      timeoutMs: o.mqClientApiTimeout,
    },
    host.logger,
  );
  const handler = host.handler;
  const consumeCtx: ConsumeContext = {
    pool,
    sendBack,
    logger: host.logger,
    clustering: host.clustering,
    // start(handler) takes one message per call; only eachBatch takes consumeMessageBatchMaxSize.
    batchMaxSize: typeof handler === 'function' ? 1 : o.consumeMessageBatchMaxSize,
    isRunning: () => host.active(),
    invoke: (messages) =>
      typeof handler === 'function' ? handler(messages[0]!) : handler.eachBatch(messages),
    record: (entry, count, ok, rtMs) => host.stats.record(entry.mq.topic, count, ok, rtMs),
    trace: (entry, messages) => traceContext(o.consumerGroup, entry, messages),
    msgTrace: host.msgTrace,
    updateOffset: (mq, offset, increaseOnly) => offsetStore.updateOffset(mq, offset, increaseOnly),
    handlerFailed: (entry, messages, outcome) => handlerFailed(host, entry.mq, messages, outcome),
    later: (ms, fn) => life.later(ms, fn),
    track: (task) => life.track(task),
    taskBegun: () => life.taskBegun(),
    taskEnded: () => life.taskEnded(),
  };
  const scope: ConsumerScope = {
    client,
    options: o,
    group: host.wireGroup,
    logger: host.logger,
    clustering: host.clustering,
    orderly,
  };
  let orderlyService: OrderlyConsumeService | undefined;
  const pop: PopAssignments | undefined = rebalancesOnBroker(o)
    ? new PopAssignments({
        options: o,
        wireGroup: host.wireGroup,
        logger: host.logger,
        client,
        ackPort: host.ackPort,
        acker: new PopAcker(host.ackPort),
        pool,
        sendBack,
        stats: host.stats,
        life,
        msgTrace: host.msgTrace,
        batchMaxSize: consumeCtx.batchMaxSize,
        maxReconsumeTimes: maxReconsume,
        active: () => host.active(),
        isPaused: (mq) => host.isPaused(mq),
        subscription: (topic) => host.subscription(topic),
        invoke: consumeCtx.invoke,
        handlerFailed: (mq, messages, outcome) => handlerFailed(host, mq, messages, outcome),
        setRetryTopic: (topic, subscribed) => host.setRetryTopic(topic, subscribed),
        dropPullTopic: (topic): Promise<void> => rebalancer.dropTopic(topic),
        queuesChanged: (event) => host.queuesChanged(event),
      })
    : undefined;
  const rebalancer: Rebalancer = new Rebalancer({
    ...scope,
    offsetStore,
    topics: () => host.topics(),
    startQueue: (entry) => void runPullLoop(pullCtx, entry),
    changed: (event) => host.queuesChanged(event),
    isConsuming: (key) => orderlyService?.isConsuming(key) ?? false,
    later: (ms, fn) => life.later(ms, fn),
    subscribedAt: (topic) => host.subscribedAt(topic),
    ...(pop === undefined ? {} : { brokerAssignment: (topic: string) => pop.assign(topic) }),
  });
  let concurrent: ConcurrentConsumeService | undefined;
  if (orderly) {
    orderlyService = new OrderlyConsumeService({
      ...consumeCtx,
      suspendMillis: o.suspendCurrentQueueTimeMillis,
      maxReconsumeTimes: maxReconsume,
      ensureLocked: (entry) => rebalancer.ensureLocked(entry),
      sleep: (ms) => life.sleep(ms),
    });
  } else concurrent = new ConcurrentConsumeService(consumeCtx);
  const members = client.groupMembers?.bind(client);
  const pullFrom = members === undefined ? undefined : new PullBrokerSelection(members);
  const queueLimits = Object.freeze(queueThresholds(o, 1));
  const pullCtx: PullContext = {
    ...scope,
    client: timedPulls(client, host.stats),
    isRunning: () => host.active(),
    isPaused: (mq) => host.isPaused(mq),
    subscription: (topic) => host.subscription(topic),
    thresholds: (topic) => {
      // Asked before every pull: without topic thresholds the answer never changes.
      if (o.pullThresholdForTopic === -1 && o.pullThresholdSizeForTopic === -1) return queueLimits;
      let held = 0;
      for (const e of rebalancer.table.values()) if (e.mq.topic === topic) held++;
      return queueThresholds(o, held);
    },
    committedOffset: (mq) => offsetStore.memoryOffset(mq),
    updateOffset: (mq, offset, increaseOnly) => offsetStore.updateOffset(mq, offset, increaseOnly),
    dispatch: (entry, messages) => {
      host.stats.recordPulled(entry.mq.topic, messages.length);
      if (orderlyService) orderlyService.submit(entry);
      else concurrent!.submit(entry, messages);
    },
    prepareOrderly: async (entry) => {
      if (!(await rebalancer.prepareOrderly(entry))) return false;
      if (entry.pq.msgCount > 0) orderlyService?.submit(entry);
      return true;
    },
    offsetMoved: (entry, nextOffset) => rebalancer.offsetMoved(entry, nextOffset),
    subscriptionMissing: () => void client.sendHeartbeatToAllBrokers(),
    sleep: (ms) => life.sleep(ms),
    ...(pullFrom === undefined ? {} : { pullFrom }),
  };
  return { pool, telemetry, rebalancer, orderly: orderlyService, concurrent, pullFrom, pop };
}

/**
 * The local cache per queue for the cached-messages gauges: the process queues' counts and bytes;
 * POP-mode queues count their popped messages awaiting a handler (their bytes are not tracked).
 */
function* cachedFigures(
  rebalancer: Rebalancer,
  pop: PopAssignments | undefined,
  namespace: string | undefined,
): Iterable<CachedTopicFigures> {
  for (const e of rebalancer.table.values())
    yield { topic: withoutNamespace(e.mq.topic, namespace), count: e.pq.msgCount, bytes: e.pq.msgSize };
  if (pop !== undefined)
    for (const q of pop.table.values())
      yield { topic: withoutNamespace(q.mq.topic, namespace), count: q.waitAck, bytes: 0 };
}

function traceContext(
  consumerGroup: string,
  entry: QueueEntry,
  messages: ConsumerMessage[],
): ConsumeTraceContext {
  return {
    consumerGroup,
    topic: messages[0]?.topic ?? entry.mq.topic,
    brokerName: entry.mq.brokerName,
    queueId: entry.mq.queueId,
    offsets: messages.map((m) => m.queueOffset),
    msgIds: messages.map((m) => m.msgId),
  };
}

function handlerFailed(
  host: PushServiceHost,
  mq: MessageQueue,
  messages: ConsumerMessage[],
  outcome: ConsumeOutcome & { ok: false },
): void {
  host.logger.warn(
    outcome.timedOut
      ? 'handler timed out; message will be retried'
      : 'handler failed; message will be retried',
    {
      mq,
      msgIds: messages.map((m) => m.msgId),
      error: outcome.error,
    },
  );
  host.handlerError({
    error: outcome.error,
    timedOut: outcome.timedOut,
    messages,
    queue: userQueue(mq, host.options.namespace),
  });
}
