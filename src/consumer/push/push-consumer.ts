/**
 * The push consumer (Java `DefaultMQPushConsumer`): `new PushConsumer(options)`,
 * `subscribe(topic, expression)`, `start(handler | { eachBatch })`, `shutdown()`, `lag()`,
 * `pause()` / `resume()`. Events (docs/events.md): 'rebalance', 'handlerError',
 * 'offsetsCommitted', 'commitFailed', 'routeUpdated', 'connect', 'disconnect'. Every handler
 * call is a span on the `rocketmq:consume` diagnostics channel. States: client/lifecycle.ts.
 *
 * The parts: push-services.ts (the consume machinery wired per start), subscriptions.ts,
 * rebalance.ts (which queues), pull-loop.ts (one loop per queue), process-queue.ts (what is in
 * flight), consume-concurrently.ts / consume-orderly.ts (handler calls), core/send-back.ts
 * (retry), ../offset-store/ (commits), broker-requests.ts (what brokers ask).
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
import { forwardInstanceEvents } from '../../client/instance-events.js';
import { Lifecycle, type LifecycleState, type StartStep } from '../../client/lifecycle.js';
import { wrapNamespace } from '../../client/namespace.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import type { ConsumeStatusData } from '../../protocol/body/consumer-running-info.js';
import { ConsumeType, type SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { checkSubscriptionsSupported, queueMaxOffset } from '../core/broker-queries.js';
import type { ConsumerClient } from '../core/client-port.js';
import {
  closeConsumerInstance,
  consumerClientId,
  openConsumerInstance,
  openOffsetStore,
  consumerData,
} from '../core/consumer-instance.js';
import { ConsumeStats } from '../core/consume-stats.js';
import { BackgroundTasks } from '../core/background-tasks.js';
import type { HandlerPool } from '../core/handler-pool.js';
import type { ConsumerMessage } from '../core/message-view.js';
import { PausedQueues, type PauseTarget } from '../core/pause.js';
import { OffsetCommitError } from '../../errors.js';
import type { OffsetStore } from '../offset-store/offset-store.js';
import {
  resolvePushConsumerOptions,
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
} from './options.js';
import type { QueueEntry } from '../core/pull-loop.js';
import { userQueue, userRebalanceEvent } from '../core/queue-names.js';
import type { RebalanceEvent } from '../core/rebalance.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import { watchMasterChanges } from '../core/master-change.js';
import { sendReply } from '../core/reply.js';
import type { SubscriptionExpression } from '../core/subscription.js';
import { wirePushServices, type PushServiceHost, type PushServices } from './push-services.js';
import { PushSubscriptions } from './subscriptions.js';
import type { PopQueue } from './pop/pop-consume.js';

/** A reply is an ordinary send for the responder: Java's default sendMsgTimeout. */
const REPLY_TIMEOUT_MS = 3000;

export type {
  BatchHandler,
  CommitFailedEvent,
  ConsumeHandler,
  HandlerErrorEvent,
  MessageHandler,
  OffsetsCommittedEvent,
  PushConsumerEvents,
  QueueLag,
} from './types.js';
import { signalOf, throwIfAborted, type CallOptions } from '../../remoting/abort.js';
import { AbortError } from '../../errors/abort.js';

export class PushConsumer extends EventEmitter<PushConsumerEvents> {
  readonly options: Readonly<ResolvedPushConsumerOptions>;
  /** `clientIP@instanceName[@unitName]`. */
  readonly clientId: string;
  /** Group on the wire (namespace applied). */
  readonly wireGroup: string;
  private readonly lifecycle = new Lifecycle('push consumer', {
    start: (step) => this.open(step),
    stop: () => this.close(),
  });
  private readonly logger: Logger;
  private readonly subs: PushSubscriptions;
  private instance: ClientInstance | undefined;
  private client: ConsumerClient | undefined;
  private offsetStore: OffsetStore | undefined;
  /** The consume machinery of the current start (push-services.ts). */
  private services: PushServices | undefined;
  private handler: ConsumeHandler | undefined;
  /** A new one per start: a stopped BackgroundTasks refuses new timers. */
  private life = new BackgroundTasks();
  private stopWatchingMasters: (() => void) | undefined;
  private stopForwarding: (() => void) | undefined;
  /** Message trace (`enableMsgTrace`): dispatcher and SubBefore/SubAfter hook. */
  private readonly traceDispatcher: TraceDispatcher | undefined;
  private readonly msgTrace: ConsumeTracer | undefined;
  private readonly pauses: PausedQueues;
  /** When start() finished (ms); 0 before. */
  startTimestamp = 0;
  /** Per wire topic: handler outcomes since start (GET_CONSUMER_RUNNING_INFO statusTable). */
  private readonly stats = new ConsumeStats();
  private get rebalancer() {
    return this.services?.rebalancer;
  }
  private readonly contributor: HeartbeatContributor = {
    consumerData: () => [
      consumerData(this.options, this.wireGroup, ConsumeType.CONSUME_PASSIVELY, this.subs.datas()),
    ],
  };

  constructor(options: PushConsumerOptions) {
    super();
    this.options = Object.freeze(resolvePushConsumerOptions(options));
    const o = this.options;
    this.logger = o.logger;
    this.clientId = consumerClientId(o);
    this.wireGroup = wrapNamespace(o.namespace, o.consumerGroup);
    this.subs = new PushSubscriptions(o, this.wireGroup, this.logger);
    this.pauses = new PausedQueues(o.namespace);
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
    if (this.lifecycle.closed) throw new IllegalStateError('consumer is shut down');
    const { data, replaced } = this.subs.add(topic, expression);
    const client = this.client;
    if (this.lifecycle.running && client !== undefined) {
      this.logger.warn(
        'subscribed after start: the broker keeps one subscription per group, the last heartbeat wins; every member should subscribe the same way',
        { topic, expression: data.subString },
      );
      this.instance?.routes.pin(data.topic);
      // A topic re-subscribed by this consumer finds its own old filter on the broker: not a conflict.
      void (replaced ? Promise.resolve() : this.subs.warnOnGroupConflicts(client, [data]))
        .then(() => client.sendHeartbeatToAllBrokers())
        .then(() => this.rebalanceNow());
    }
  }

  /** CREATED → STARTING → RUNNING → STOPPING → STOPPED (client/lifecycle.ts). */
  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /**
   * Starts consuming with `handler` (one message per call) or `{ eachBatch }`. While starting it
   * returns the pending start (the first handler stays), once running it resolves at once; a
   * failed start leaves nothing open and may be retried (client/lifecycle.ts).
   */
  start(handler: ConsumeHandler): Promise<void> {
    const isFn = typeof handler === 'function';
    if (!isFn && (typeof handler !== 'object' || handler === null || typeof handler.eachBatch !== 'function'))
      return Promise.reject(
        new InvalidArgumentError('handler', 'must be a function or { eachBatch: function }'),
      );
    if (this.lifecycle.state === 'CREATED') {
      if (this.subs.size === 0)
        return Promise.reject(new IllegalStateError('subscribe to a topic before start()'));
      this.handler = handler;
    }
    return this.lifecycle.start();
  }

  /** The start work; each `step` is where a shutdown() meanwhile stops it. */
  private async open(step: StartStep): Promise<void> {
    const o = this.options;
    if (this.clustering) this.subs.addRetryTopic();
    this.life = new BackgroundTasks();
    const { instance, client } = await openConsumerInstance(o, this.clientId, this.wireGroup, this);
    this.instance = instance;
    this.client = client;
    this.stopForwarding = forwardInstanceEvents(instance, this, o.namespace);
    await step();
    if (this.traceDispatcher !== undefined) {
      // As Java: a trace producer that cannot start costs the traces, not the consumer.
      await step(
        this.traceDispatcher.start().catch((err: unknown) =>
          this.logger.warn('message trace producer did not start; consumption is not traced', {
            error: err instanceof Error ? err.message : String(err),
          }),
        ),
      );
    }
    await this.startParts(instance, client, step);
    this.life.keepProcessAlive();
    this.logger.info('push consumer started', {
      group: o.consumerGroup,
      clientId: this.clientId,
      model: o.messageModel,
    });
  }

  /** Offsets, services, routes, filter check, heartbeat, timers, first rebalance. */
  private async startParts(instance: ClientInstance, client: ConsumerClient, step: StartStep): Promise<void> {
    const o = this.options;
    for (const topic of this.subs.topics()) instance.routes.pin(topic);
    const offsetStore = await openOffsetStore(o, client, this.clientId, this.wireGroup);
    this.offsetStore = offsetStore;
    await step();
    this.services = wirePushServices(this.serviceHost(), client, offsetStore);
    const routes = await step(
      Promise.all(
        this.subs.topics().map((t) =>
          client.subscribeQueues(t).catch((err: unknown) => {
            // The retry topic gets its route once a broker saw our heartbeat: not worth a warning.
            if (!t.startsWith(RETRY_GROUP_TOPIC_PREFIX))
              this.logger.warn('no route for a subscribed topic yet', { topic: t, error: err });
            return [];
          }),
        ),
      ),
    );
    const datas = this.subs.datas();
    await step(
      checkSubscriptionsSupported(client, this.wireGroup, datas, routes.flat(), o.mqClientApiTimeout),
    );
    await step(
      this.subs.warnOnGroupConflicts(
        client,
        datas.filter((d) => !d.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)),
      ),
    );
    instance.heartbeat.register(this.contributor);
    await step(client.sendHeartbeatToAllBrokers());
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
    await step(this.rebalanceNow());
  }

  private serviceHost(): PushServiceHost {
    return {
      options: this.options,
      clientId: this.clientId,
      wireGroup: this.wireGroup,
      logger: this.logger,
      clustering: this.clustering,
      handler: this.handler!,
      stats: this.stats,
      life: this.life,
      msgTrace: this.msgTrace,
      active: () => this.lifecycle.active,
      isPaused: (mq) => this.pauses.isPaused(mq),
      topics: () => this.subs.topics(),
      subscription: (topic) => this.subs.get(topic),
      subscribedAt: (topic) => this.subs.get(topic)?.since,
      queuesChanged: (event) => this.queuesChanged(event),
      handlerError: (event) => {
        if (this.listenerCount('handlerError') > 0) this.emit('handlerError', event);
      },
      ackPort: {
        consumerGroup: this.options.consumerGroup,
        wireGroup: this.wireGroup,
        namespace: this.options.namespace,
        timeoutMs: this.options.mqClientApiTimeout,
        running: () => {
          if (this.instance === undefined) throw new IllegalStateError('consumer is not running');
          return this.instance;
        },
        address: (brokerName) => {
          const address = this.client?.masterAddress(brokerName);
          if (address === undefined)
            throw new IllegalStateError(`no master address known for broker ${brokerName}`);
          return address;
        },
      },
      setRetryTopic: (topic, subscribed) => this.subs.setRetryTopic(topic, subscribed),
    };
  }

  /** @internal Java `ConsumeStatus` of a wire topic (running info). */
  consumeStatus(topic: string): ConsumeStatusData {
    return this.stats.status(topic);
  }

  /** @internal RESET_CONSUMER_CLIENT_OFFSET: the topic restarts at `offsets` (see Rebalancer). */
  async resetOffset(topic: string, offsets: Array<{ mq: MessageQueue; offset: number }>): Promise<void> {
    if (!this.lifecycle.running || this.rebalancer === undefined) return;
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
    for (const mq of event.removed) this.services?.pullFrom?.forget(mqKey(mq));
    this.logger.info('rebalance changed the queues held', {
      topic: event.topic,
      added: event.added.length,
      removed: event.removed.length,
      held: this.rebalancer?.table.size,
    });
    this.emit('rebalance', userRebalanceEvent(event, this.options.namespace));
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
    if (!this.lifecycle.active || this.pauses.everything) return Promise.resolve();
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
      const failed = err instanceof OffsetCommitError ? err.queues : held;
      this.emit('commitFailed', { error: err, queues: failed.map((mq) => this.userQueue(mq)) });
      return;
    }
    if (offsets.length > 0) this.emit('offsetsCommitted', { offsets });
  }

  /**
   * Per held queue: broker max offset, committed offset, messages in flight. `options.signal`
   * aborts it (AbortError), its GET_MAX_OFFSET requests leaving their connections at once.
   */
  async lag(options?: CallOptions): Promise<QueueLag[]> {
    const signal = signalOf(options);
    throwIfAborted(signal, 'lag');
    const client = this.client;
    const rebalancer = this.rebalancer;
    const store = this.offsetStore;
    if (client === undefined || rebalancer === undefined || store === undefined) return [];
    return Promise.all(
      [...rebalancer.table.values()].map(async (e) => {
        const brokerOffset = await queueMaxOffset(
          client,
          e.mq,
          this.options.mqClientApiTimeout,
          signal,
        ).catch((err: unknown) => {
          // The broker's answer is optional (the last pull's view will do); the caller's abort is not.
          if (err instanceof AbortError) throw err;
          return e.pq.brokerMaxOffset;
        });
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

  /**
   * Stops pulling `targets`: topics and/or MessageQueues (everything when omitted, Java
   * `suspend()`); handlers in flight finish. core/pause.ts has the rules.
   */
  pause(targets?: readonly PauseTarget[]): void {
    this.pauses.pause(targets);
  }

  /** Resumes `targets` (every pause when omitted) and rebalances at once (Java). */
  resume(targets?: readonly PauseTarget[]): void {
    this.pauses.resume(targets);
    void this.rebalanceNow();
  }

  /**
   * Stops pulling, waits for running handlers (awaitTerminationMillisWhenShutdown), commits the
   * offsets of what finished synchronously, unlocks orderly queues and unregisters. During
   * start() it cancels the start (StartCancelledError); later calls return the first's promise.
   */
  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }

  /** The stop work: also after a failed or cancelled start, so each part checks it was opened. */
  private async close(): Promise<void> {
    this.stopWatchingMasters?.();
    this.stopWatchingMasters = undefined;
    this.life.stop();
    const drained = await this.life.whenTasksDone(this.options.awaitTerminationMillisWhenShutdown);
    if (!drained)
      this.logger.warn(
        'handlers still running after awaitTerminationMillisWhenShutdown; their messages will be delivered again',
        { inFlight: this.services?.pool.inFlight },
      );
    this.services?.pool.close();
    this.services?.telemetry?.close();
    this.services?.pop?.dropAll();
    const entries = [...(this.rebalancer?.table.values() ?? [])];
    for (const e of entries) e.pq.dropped = true;
    const held = entries.map((e) => e.mq);
    await this.persistOffsets(held);
    if (this.options.consumeOrderly && this.clustering) await this.rebalancer?.unlockAll(held);
    this.rebalancer?.table.clear();
    await this.traceDispatcher?.shutdown();
    const instance = this.instance;
    this.instance = undefined;
    this.client = undefined;
    this.offsetStore = undefined;
    this.services = undefined;
    if (instance !== undefined)
      await closeConsumerInstance(instance, this.contributor, this.wireGroup, this, this.subs.topics());
    // After the release: the closing connections' 'disconnect' events still reach the application.
    this.stopForwarding?.();
    this.stopForwarding = undefined;
    if (instance === undefined) return;
    this.subs.forgetAll();
    this.logger.info('push consumer shut down', {
      group: this.options.consumerGroup,
      clientId: this.clientId,
    });
  }

  /**
   * Replies to a request message (request-reply, reply.ts), typically inside the handler;
   * resolves when the broker has pushed the reply to the requester. `options.signal` aborts the
   * wait (AbortError); the reply may still reach the requester.
   */
  async reply(
    request: ConsumerMessage,
    body: Buffer | Uint8Array | string,
    properties?: Readonly<Record<string, string>>,
    options?: CallOptions,
  ): Promise<void> {
    const signal = signalOf(options);
    throwIfAborted(signal, 'reply');
    const client = this.client;
    if (client === undefined || !this.running) throw new IllegalStateError('consumer is not running');
    await sendReply(
      client,
      { group: this.wireGroup, timeoutMs: REPLY_TIMEOUT_MS, signal },
      request,
      body,
      properties,
    );
  }

  /** Whether the consumer runs (started and not shutting down). */
  get running(): boolean {
    return this.lifecycle.running;
  }

  /** @internal For broker→client requests and diagnostics. */
  get internals(): {
    table: ReadonlyMap<string, QueueEntry>;
    offsetStore: OffsetStore | undefined;
    subscriptions: SubscriptionData[];
    handler: ConsumeHandler | undefined;
    pool: HandlerPool | undefined;
    /** `clientRebalance: false`: the POP-mode queues held (pop/assignment.ts). */
    popTable?: ReadonlyMap<string, PopQueue>;
  } {
    return {
      table: this.rebalancer?.table ?? new Map(),
      offsetStore: this.offsetStore,
      subscriptions: this.subs.datas(),
      handler: this.handler,
      pool: this.services?.pool,
      popTable: this.services?.pop?.table ?? new Map(),
    };
  }
}
