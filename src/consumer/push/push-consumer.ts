/**
 * The push consumer (Java `DefaultMQPushConsumer`): `new PushConsumer(options)`,
 * `subscribe(topic, expression)`, `start(handler | { eachBatch })`, `shutdown()`, `lag()`,
 * `pause()` / `resume()`. Events: 'rebalance', 'handlerError', 'offsetsCommitted'. Every handler
 * call is a span on the `rocketmq:consume` diagnostics channel.
 *
 * The parts: rebalance.ts (which queues), pull-loop.ts (one loop per queue), process-queue.ts
 * (what is in flight), consume-concurrently.ts / consume-orderly.ts (handler calls),
 * core/send-back.ts (retry), ../offset-store/ (commits), broker-requests.ts (what brokers ask).
 */
import { EventEmitter } from 'node:events';
import { Producer } from '../../producer/producer.js';
import { TraceDispatcher, type TraceStats } from '../../producer/trace/dispatcher.js';
import { traceProducerOptions, traceTopicOf } from '../../producer/trace/settings.js';
import { ConsumeTracer } from '../core/msg-trace.js';
import type { ConsumeHandler, PushConsumerEvents, QueueLag } from './types.js';
import { IllegalStateError, InvalidArgumentError } from '../../errors.js';
import type { ClientInstance } from '../../client/client-instance.js';
import type { HeartbeatContributor } from '../../client/heartbeat.js';
import { withoutNamespace, wrapNamespace } from '../../client/namespace.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import type { ConsumeStatusData } from '../../protocol/body/consumer-running-info.js';
import { ConsumeType, type ConsumerData, type SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { checkTopic, RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import {
  checkSubscriptionsSupported,
  queueMaxOffset,
  subscriptionConflicts,
} from '../core/broker-queries.js';
import type { ConsumerClient, ConsumerScope } from '../core/client-port.js';
import {
  closeConsumerInstance,
  consumerClientId,
  openConsumerInstance,
  openOffsetStore,
} from '../core/consumer-instance.js';
import { ConcurrentConsumeService, type ConsumeContext } from './consume-concurrently.js';
import { OrderlyConsumeService } from './consume-orderly.js';
import { ConsumeStats, timedPulls } from '../core/consume-stats.js';
import { queueThresholds } from '../core/flow-control.js';
import { BackgroundTasks } from '../core/background-tasks.js';
import { HandlerPool, type ConsumeOutcome, type ConsumeTraceContext } from '../core/handler-pool.js';
import type { ConsumerMessage } from '../core/message-view.js';
import type { OffsetStore } from '../offset-store/offset-store.js';
import { RemoteBrokerOffsetStore } from '../offset-store/remote-broker.js';
import {
  resolvePushConsumerOptions,
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
} from './options.js';
import { runPullLoop, type PullContext, type QueueEntry } from '../core/pull-loop.js';
import { userQueue } from '../core/queue-names.js';
import { Rebalancer, type RebalanceEvent } from '../core/rebalance.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import { watchMasterChanges } from '../core/master-change.js';
import { PullBrokerSelection } from '../core/pull-broker-selection.js';
import { SendBack } from '../core/send-back.js';
import { sendReply } from '../core/reply.js';
import {
  buildSubscriptionData,
  forgetGroupSubscriptions,
  noteGroupSubscription,
  sameFilter,
  type SubscriptionExpression,
} from '../core/subscription.js';

/** A reply is an ordinary send for the responder: Java's default sendMsgTimeout. */
const REPLY_TIMEOUT_MS = 3000;

export type {
  BatchHandler,
  ConsumeHandler,
  HandlerErrorEvent,
  MessageHandler,
  OffsetsCommittedEvent,
  PushConsumerEvents,
  QueueLag,
} from './types.js';

type State = 'CREATED' | 'STARTING' | 'RUNNING' | 'SHUTTING_DOWN' | 'SHUT_DOWN';

interface Subscription {
  userTopic: string;
  /** Sent in heartbeats; its subVersion moves first. */
  data: SubscriptionData;
  tags: ReadonlySet<string>;
  /** subVersion sent in pulls: moves once a heartbeat carried it. */
  pullVersion: number;
}

export class PushConsumer extends EventEmitter<PushConsumerEvents> {
  readonly options: Readonly<ResolvedPushConsumerOptions>;
  /** `clientIP@instanceName[@unitName]`. */
  readonly clientId: string;
  /** Group on the wire (namespace applied). */
  readonly wireGroup: string;
  private state: State = 'CREATED';
  private readonly logger: Logger;
  private readonly subs = new Map<string, Subscription>();
  private instance: ClientInstance | undefined;
  private client: ConsumerClient | undefined;
  private offsetStore: OffsetStore | undefined;
  private rebalancer: Rebalancer | undefined;
  private pool: HandlerPool | undefined;
  private concurrent: ConcurrentConsumeService | undefined;
  private orderly: OrderlyConsumeService | undefined;
  private handler: ConsumeHandler | undefined;
  private readonly life = new BackgroundTasks();
  private stopWatchingMasters: (() => void) | undefined;
  private pullFrom: PullBrokerSelection | undefined;
  /** Message trace (`enableMsgTrace`): dispatcher and SubBefore/SubAfter hook. */
  private readonly traceDispatcher: TraceDispatcher | undefined;
  private readonly msgTrace: ConsumeTracer | undefined;
  private pausedAll = false;
  private readonly pausedTopics = new Set<string>();
  /** When start() finished (ms); 0 before. */
  startTimestamp = 0;
  /** Per wire topic: handler outcomes since start (GET_CONSUMER_RUNNING_INFO statusTable). */
  private readonly stats = new ConsumeStats();
  private readonly contributor: HeartbeatContributor = { consumerData: () => [this.consumerData()] };

  constructor(options: PushConsumerOptions) {
    super();
    this.options = Object.freeze(resolvePushConsumerOptions(options));
    const o = this.options;
    this.logger = o.logger;
    this.clientId = consumerClientId(o);
    this.wireGroup = wrapNamespace(o.namespace, o.consumerGroup);
    const traceTopic = traceTopicOf(o);
    if (traceTopic !== undefined) {
      this.traceDispatcher = new TraceDispatcher(
        new Producer(traceProducerOptions('CONSUME', o.consumerGroup, o.namesrvAddr, o.logger)),
        { traceTopic, logger: o.logger },
      );
      this.msgTrace = new ConsumeTracer(this.traceDispatcher, o.consumerGroup);
    }
  }

  /** Message trace counters (`enableMsgTrace`); undefined when tracing is off. */
  traceStats(): TraceStats | undefined {
    return this.traceDispatcher?.stats();
  }

  get clustering(): boolean {
    return this.options.messageModel === 'CLUSTERING';
  }

  /**
   * Subscribes `topic` with `'*'`, a tag expression (`'TagA || TagB'`) or `{ sql }`. The broker
   * keeps one subscription per group and topic (the last heartbeat's): a subscription after
   * start, or one that differs from another member's (in this process, or kept by the broker at
   * start and after it), is logged as a warning.
   */
  subscribe(topic: string, expression: SubscriptionExpression = '*'): void {
    const problem = checkTopic(topic, 'topic');
    if (problem !== undefined) throw new InvalidArgumentError('topic', problem);
    if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      throw new InvalidArgumentError('topic', 'retry topics are subscribed automatically');
    if (this.state === 'SHUTTING_DOWN' || this.state === 'SHUT_DOWN')
      throw new IllegalStateError('consumer is shut down');
    const wire = wrapNamespace(this.options.namespace, topic);
    const data = buildSubscriptionData(wire, expression);
    const previous = this.subs.get(wire);
    if (previous !== undefined && !sameFilter(previous.data, data))
      this.logger.warn('subscription of the topic replaced', {
        topic,
        from: previous.data.subString,
        to: data.subString,
      });
    if (previous !== undefined) forgetGroupSubscriptions(this.wireGroup, [previous.data]);
    const other = noteGroupSubscription(this.wireGroup, data);
    if (other !== undefined)
      this.logger.warn(
        'another consumer of this group subscribes the topic with a different expression: the broker keeps only the last heartbeat’s, so messages may be lost',
        { group: this.options.consumerGroup, topic, mine: data.subString, other: other.subString },
      );
    this.subs.set(wire, {
      userTopic: topic,
      data,
      tags: new Set(data.tagsSet),
      pullVersion: data.subVersion,
    });
    const client = this.client;
    if (this.state === 'RUNNING' && client !== undefined) {
      this.logger.warn(
        'subscribed after start: the broker keeps one subscription per group, the last heartbeat wins; every member should subscribe the same way',
        { topic, expression: data.subString },
      );
      this.instance?.routes.pin(wire);
      // A topic re-subscribed by this consumer finds its own old filter on the broker: not a conflict.
      void (previous === undefined ? this.warnOnGroupConflicts(client, [data]) : Promise.resolve())
        .then(() => client.sendHeartbeatToAllBrokers())
        .then(() => this.rebalanceNow());
    }
  }

  /** Before our heartbeat replaces them: the broker's different filters of `mine` (docs/consumers.md §1.10). */
  private async warnOnGroupConflicts(
    client: ConsumerClient,
    mine: readonly SubscriptionData[],
  ): Promise<void> {
    const o = this.options;
    for (const { data, kept } of await subscriptionConflicts(
      client,
      this.wireGroup,
      mine,
      o.mqClientApiTimeout,
    ))
      this.logger.warn(
        'the broker keeps another member’s subscription of the topic with a different expression; the last heartbeat wins, so members lose messages: subscribe every member the same way',
        {
          group: o.consumerGroup,
          topic: withoutNamespace(data.topic, o.namespace),
          mine: data.subString,
          broker: kept.subString,
        },
      );
  }

  private consumerData(): ConsumerData {
    return {
      groupName: this.wireGroup,
      consumeType: ConsumeType.CONSUME_PASSIVELY,
      messageModel: this.options.messageModel,
      consumeFromWhere: this.options.consumeFromWhere,
      subscriptionDataSet: [...this.subs.values()].map((s) => s.data),
      unitMode: this.options.unitMode,
    };
  }

  /** Starts consuming with `handler` (one message per call) or `{ eachBatch }`. */
  async start(handler: ConsumeHandler): Promise<void> {
    const isFn = typeof handler === 'function';
    if (!isFn && (typeof handler !== 'object' || handler === null || typeof handler.eachBatch !== 'function'))
      throw new InvalidArgumentError('handler', 'must be a function or { eachBatch: function }');
    if (this.state !== 'CREATED') throw new IllegalStateError(`consumer cannot start in state ${this.state}`);
    if ([...this.subs.values()].length === 0)
      throw new IllegalStateError('subscribe to a topic before start()');
    this.state = 'STARTING';
    this.handler = handler;
    const o = this.options;
    if (this.clustering) {
      const retryTopic = RETRY_GROUP_TOPIC_PREFIX + this.wireGroup;
      const data = buildSubscriptionData(retryTopic, '*');
      this.subs.set(retryTopic, {
        userTopic: retryTopic,
        data,
        tags: new Set(),
        pullVersion: data.subVersion,
      });
    }
    let opened;
    try {
      opened = await openConsumerInstance(o, this.clientId, this.wireGroup, this);
    } catch (err) {
      this.state = 'CREATED';
      throw err;
    }
    const { instance, client } = opened;
    this.instance = instance;
    this.client = client;
    if (this.traceDispatcher !== undefined) {
      // As Java: a trace producer that cannot start costs the traces, not the consumer.
      await this.traceDispatcher.start().catch((err: unknown) =>
        this.logger.warn('message trace producer did not start; consumption is not traced', {
          error: err instanceof Error ? err.message : String(err),
        }),
      );
    }
    this.state = 'RUNNING';
    try {
      await this.startParts(instance, client);
    } catch (err) {
      await this.shutdown();
      throw err;
    }
    this.life.keepProcessAlive();
    this.logger.info('push consumer started', {
      group: o.consumerGroup,
      clientId: this.clientId,
      model: o.messageModel,
    });
  }

  /** Offsets, services, routes, filter check, heartbeat, timers, first rebalance. */
  private async startParts(instance: ClientInstance, client: ConsumerClient): Promise<void> {
    const o = this.options;
    for (const topic of this.subs.keys()) instance.routes.pin(topic);
    const offsetStore = await openOffsetStore(o, client, this.clientId, this.wireGroup);
    this.offsetStore = offsetStore;
    this.setUpServices(client, offsetStore);
    const routes = await Promise.all(
      [...this.subs.keys()].map((t) =>
        client.subscribeQueues(t).catch((err: unknown) => {
          // The retry topic gets its route once a broker saw our heartbeat: not worth a warning.
          if (!t.startsWith(RETRY_GROUP_TOPIC_PREFIX))
            this.logger.warn('no route for a subscribed topic yet', { topic: t, error: err });
          return [];
        }),
      ),
    );
    await checkSubscriptionsSupported(
      client,
      this.wireGroup,
      [...this.subs.values()].map((s) => s.data),
      routes.flat(),
      o.mqClientApiTimeout,
    );
    await this.warnOnGroupConflicts(
      client,
      [...this.subs.values()].map((s) => s.data).filter((d) => !d.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)),
    );
    instance.heartbeat.register(this.contributor);
    await client.sendHeartbeatToAllBrokers();
    this.stopWatchingMasters = watchMasterChanges(
      instance.routes,
      (topic) => this.subs.has(topic),
      (topic) => this.masterChanged(topic),
    );
    this.life.every(o.rebalanceInterval, () => void this.rebalanceNow());
    this.life.every(o.persistConsumerOffsetInterval, () => void this.persistOffsets());
    if (o.consumeOrderly && this.clustering)
      this.life.every(o.lockInterval, () => void this.rebalancer?.lockAll());
    this.startTimestamp = Date.now();
    await this.rebalanceNow();
  }

  private setUpServices(client: ConsumerClient, offsetStore: OffsetStore): void {
    const o = this.options;
    const orderly = o.consumeOrderly;
    const maxReconsume = o.maxReconsumeTimes === -1 ? (orderly ? 2 ** 31 - 1 : 16) : o.maxReconsumeTimes;
    const pool = new HandlerPool(o.consumeThreadMax, Math.round(o.consumeTimeout * 60_000));
    this.pool = pool;
    const sendBack = new SendBack(
      client,
      {
        group: this.wireGroup,
        namespace: o.namespace,
        maxReconsumeTimes: maxReconsume,
        unitMode: o.unitMode,
        timeoutMs: o.mqClientApiTimeout,
      },
      this.logger,
    );
    const consumeCtx: ConsumeContext = {
      pool,
      sendBack,
      logger: this.logger,
      clustering: this.clustering,
      // start(handler) takes one message per call; only eachBatch takes consumeMessageBatchMaxSize.
      batchMaxSize: typeof this.handler === 'function' ? 1 : o.consumeMessageBatchMaxSize,
      isRunning: () => this.state === 'RUNNING',
      invoke: (messages) => {
        const h = this.handler!;
        return typeof h === 'function' ? h(messages[0]!) : h.eachBatch(messages);
      },
      record: (entry, count, ok, rtMs) => this.stats.record(entry.mq.topic, count, ok, rtMs),
      trace: (entry, messages) => this.traceContext(entry, messages),
      msgTrace: this.msgTrace,
      updateOffset: (mq, offset, increaseOnly) => offsetStore.updateOffset(mq, offset, increaseOnly),
      handlerFailed: (entry, messages, outcome) => this.handlerFailed(entry, messages, outcome),
      later: (ms, fn) => this.life.later(ms, fn),
      track: (task) => this.life.track(task),
      taskBegun: () => this.life.taskBegun(),
      taskEnded: () => this.life.taskEnded(),
    };
    const scope: ConsumerScope = {
      client,
      options: o,
      group: this.wireGroup,
      logger: this.logger,
      clustering: this.clustering,
      orderly,
    };
    const rebalancer = new Rebalancer({
      ...scope,
      offsetStore,
      topics: () => [...this.subs.keys()],
      startQueue: (entry) => void runPullLoop(pullCtx, entry),
      changed: (event) => this.queuesChanged(event),
      isConsuming: (key) => this.orderly?.isConsuming(key) ?? false,
      later: (ms, fn) => this.life.later(ms, fn),
    });
    this.rebalancer = rebalancer;
    if (orderly) {
      this.orderly = new OrderlyConsumeService({
        ...consumeCtx,
        suspendMillis: o.suspendCurrentQueueTimeMillis,
        maxReconsumeTimes: maxReconsume,
        ensureLocked: (entry) => rebalancer.ensureLocked(entry),
        sleep: (ms) => this.life.sleep(ms),
      });
    } else this.concurrent = new ConcurrentConsumeService(consumeCtx);
    const members = client.groupMembers?.bind(client);
    this.pullFrom = members === undefined ? undefined : new PullBrokerSelection(members);
    const queueLimits = Object.freeze(queueThresholds(o, 1));
    const pullCtx: PullContext = {
      ...scope,
      client: timedPulls(client, this.stats),
      isRunning: () => this.state === 'RUNNING',
      isPaused: (mq) => this.pausedAll || this.pausedTopics.has(mq.topic),
      subscription: (topic) => this.subs.get(topic),
      thresholds: (topic) => {
        // Asked before every pull: without topic thresholds the answer never changes.
        if (o.pullThresholdForTopic === -1 && o.pullThresholdSizeForTopic === -1) return queueLimits;
        let held = 0;
        for (const e of rebalancer.table.values()) if (e.mq.topic === topic) held++;
        return queueThresholds(o, held);
      },
      committedOffset: (mq) =>
        offsetStore instanceof RemoteBrokerOffsetStore ? offsetStore.memoryOffset(mq) : -1,
      updateOffset: (mq, offset, increaseOnly) => offsetStore.updateOffset(mq, offset, increaseOnly),
      dispatch: (entry, messages) => {
        this.stats.recordPulled(entry.mq.topic, messages.length);
        if (this.orderly) this.orderly.submit(entry);
        else this.concurrent!.submit(entry, messages);
      },
      prepareOrderly: async (entry) => {
        if (!(await rebalancer.prepareOrderly(entry))) return false;
        if (entry.pq.msgCount > 0) this.orderly?.submit(entry);
        return true;
      },
      offsetMoved: (entry, nextOffset) => rebalancer.offsetMoved(entry, nextOffset),
      subscriptionMissing: () => void client.sendHeartbeatToAllBrokers(),
      sleep: (ms) => this.life.sleep(ms),
      ...(this.pullFrom === undefined ? {} : { pullFrom: this.pullFrom }),
    };
  }

  private traceContext(entry: QueueEntry, messages: ConsumerMessage[]): ConsumeTraceContext {
    return {
      consumerGroup: this.options.consumerGroup,
      topic: messages[0]?.topic ?? entry.mq.topic,
      brokerName: entry.mq.brokerName,
      queueId: entry.mq.queueId,
      offsets: messages.map((m) => m.queueOffset),
      msgIds: messages.map((m) => m.msgId),
    };
  }

  private handlerFailed(
    entry: QueueEntry,
    messages: ConsumerMessage[],
    outcome: ConsumeOutcome & { ok: false },
  ): void {
    this.logger.warn(
      outcome.timedOut
        ? 'handler timed out; message will be retried'
        : 'handler failed; message will be retried',
      {
        mq: entry.mq,
        msgIds: messages.map((m) => m.msgId),
        error: outcome.error,
      },
    );
    if (this.listenerCount('handlerError') > 0)
      this.emit('handlerError', {
        error: outcome.error,
        timedOut: outcome.timedOut,
        messages,
        queue: this.userQueue(entry.mq),
      });
  }

  /** @internal Java `ConsumeStatus` of a wire topic (running info). */
  consumeStatus(topic: string): ConsumeStatusData {
    return this.stats.status(topic);
  }

  /** @internal RESET_CONSUMER_CLIENT_OFFSET: the topic restarts at `offsets` (see Rebalancer). */
  async resetOffset(topic: string, offsets: Array<{ mq: MessageQueue; offset: number }>): Promise<void> {
    if (this.state !== 'RUNNING' || this.rebalancer === undefined) return;
    this.logger.info('offsets reset by the broker', { topic, queues: offsets.length });
    await this.rebalancer.resetOffsets(topic, offsets);
  }

  private async queuesChanged(event: RebalanceEvent): Promise<void> {
    const sub = this.subs.get(event.topic);
    // Java: a new subVersion after every change so the broker adopts this member's subscription
    // ("inconsistency subscription may lead to consumer miss messages").
    const version = Date.now();
    if (sub !== undefined) sub.data.subVersion = version;
    await this.client?.sendHeartbeatToAllBrokers();
    if (sub !== undefined) sub.pullVersion = Math.max(sub.pullVersion, version);
    for (const mq of event.removed) this.pullFrom?.forget(mqKey(mq));
    this.logger.info('rebalance changed the queues held', {
      topic: event.topic,
      added: event.added.length,
      removed: event.removed.length,
      held: this.rebalancer?.table.size,
    });
    this.emit('rebalance', {
      topic: withoutNamespace(event.topic, this.options.namespace),
      added: event.added.map((mq) => this.userQueue(mq)),
      removed: event.removed.map((mq) => this.userQueue(mq)),
    });
  }

  private userQueue(mq: MessageQueue): MessageQueue {
    return userQueue(mq, this.options.namespace);
  }

  /** A group's master changed (master-change.ts): rebalance, and re-take orderly locks there, at once. */
  private masterChanged(topic: string): void {
    this.logger.info('a broker group of a subscribed topic has a new master; rebalancing now', { topic });
    if (this.options.consumeOrderly && this.clustering) void this.rebalancer?.lockAll();
    void this.rebalanceNow();
  }

  /** Runs a rebalance round now (also on NOTIFY_CONSUMER_IDS_CHANGED). */
  rebalanceNow(): Promise<void> {
    if (this.state !== 'RUNNING' || this.pausedAll) return Promise.resolve();
    return this.rebalancer?.trigger() ?? Promise.resolve();
  }

  /** Commits the in-memory offsets of `held` (every queue held when absent); emits 'offsetsCommitted'. */
  private async persistOffsets(held = this.rebalancer?.heldQueues() ?? []): Promise<void> {
    const store = this.offsetStore;
    if (store === undefined) return;
    const offsets: Array<{ queue: MessageQueue; offset: number }> = [];
    for (const mq of held) {
      const offset = await store.readOffset(mq, 'MEMORY');
      if (offset >= 0) offsets.push({ queue: this.userQueue(mq), offset });
    }
    try {
      await store.persistAll(held);
    } catch (err) {
      this.logger.warn('persisting consumer offsets failed', { error: err });
      return;
    }
    if (offsets.length > 0) this.emit('offsetsCommitted', { offsets });
  }

  /** Per held queue: broker max offset, committed offset, messages in flight. */
  async lag(): Promise<QueueLag[]> {
    const client = this.client;
    const rebalancer = this.rebalancer;
    const store = this.offsetStore;
    if (client === undefined || rebalancer === undefined || store === undefined) return [];
    return Promise.all(
      [...rebalancer.table.values()].map(async (e) => {
        const brokerOffset = await queueMaxOffset(client, e.mq, this.options.mqClientApiTimeout).catch(
          () => e.pq.brokerMaxOffset,
        );
        const consumerOffset = await store.readOffset(e.mq, 'MEMORY');
        return {
          ...this.userQueue(e.mq),
          brokerOffset,
          consumerOffset,
          inFlight: e.pq.msgCount,
          lag: Math.max(0, brokerOffset - Math.max(0, consumerOffset)),
        };
      }),
    );
  }

  /** Stops pulling `topics` (all when omitted); handlers in flight finish. */
  pause(topics?: readonly string[]): void {
    if (topics === undefined) this.pausedAll = true;
    else for (const t of topics) this.pausedTopics.add(wrapNamespace(this.options.namespace, t));
  }

  /** Resumes every paused topic and rebalances at once (Java). */
  resume(): void {
    this.pausedAll = false;
    this.pausedTopics.clear();
    void this.rebalanceNow();
  }

  /**
   * Stops pulling, waits for running handlers (awaitTerminationMillisWhenShutdown), commits the
   * offsets of what finished synchronously, unlocks orderly queues and unregisters.
   */
  async shutdown(): Promise<void> {
    if (this.state === 'CREATED') {
      this.state = 'SHUT_DOWN';
      return;
    }
    if (this.state !== 'RUNNING') return;
    this.state = 'SHUTTING_DOWN';
    this.stopWatchingMasters?.();
    this.life.stop();
    const drained = await this.life.whenTasksDone(this.options.awaitTerminationMillisWhenShutdown);
    if (!drained)
      this.logger.warn(
        'handlers still running after awaitTerminationMillisWhenShutdown; their messages will be delivered again',
        { inFlight: this.pool?.inFlight },
      );
    this.pool?.close();
    const entries = [...(this.rebalancer?.table.values() ?? [])];
    for (const e of entries) e.pq.dropped = true;
    const held = entries.map((e) => e.mq);
    await this.persistOffsets(held);
    if (this.options.consumeOrderly && this.clustering) await this.rebalancer?.unlockAll(held);
    this.rebalancer?.table.clear();
    await this.traceDispatcher?.shutdown();
    const instance = this.instance;
    if (instance !== undefined)
      await closeConsumerInstance(instance, this.contributor, this.wireGroup, this, this.subs.keys());
    forgetGroupSubscriptions(
      this.wireGroup,
      [...this.subs.values()].map((s) => s.data),
    );
    this.state = 'SHUT_DOWN';
    this.logger.info('push consumer shut down', {
      group: this.options.consumerGroup,
      clientId: this.clientId,
    });
  }

  /**
   * Replies to a request message (request-reply, reply.ts), typically inside the handler;
   * resolves when the broker has pushed the reply to the requester.
   */
  async reply(
    request: ConsumerMessage,
    body: Buffer | Uint8Array | string,
    properties?: Readonly<Record<string, string>>,
  ): Promise<void> {
    const client = this.client;
    if (client === undefined || !this.running) throw new IllegalStateError('consumer is not running');
    await sendReply(
      client,
      { group: this.wireGroup, timeoutMs: REPLY_TIMEOUT_MS },
      request,
      body,
      properties,
    );
  }

  /** Whether the consumer runs (started and not shutting down). */
  get running(): boolean {
    return this.state === 'RUNNING';
  }

  /** @internal For broker→client requests and diagnostics. */
  get internals(): {
    table: ReadonlyMap<string, QueueEntry>;
    offsetStore: OffsetStore | undefined;
    subscriptions: SubscriptionData[];
    handler: ConsumeHandler | undefined;
    pool: HandlerPool | undefined;
  } {
    return {
      table: this.rebalancer?.table ?? new Map(),
      offsetStore: this.offsetStore,
      subscriptions: [...this.subs.values()].map((s) => s.data),
      handler: this.handler,
      pool: this.pool,
    };
  }
}
