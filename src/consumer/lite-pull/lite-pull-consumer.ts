/**
 * The lite pull consumer (Java `DefaultLitePullConsumer`, docs/consumers.md §2): the application
 * pulls on its own schedule with `poll()` or `for await`. Queues come from `subscribe()` (the
 * group's rebalance, shared with the push consumer) or from `assign()` (no group coordination).
 *
 * One pull loop per queue (parts.ts) fills the waiting room (cache.ts); `poll()`
 * moves the queue's consumed offset past what it returns (offsets.ts), so a message comes
 * once per process unless `seek()` asks again. Commits: `commit()`, autoCommit, shutdown.
 * Events: events.ts (docs/events.md). States: client/lifecycle.ts.
 *
 * Over ~500 lines on purpose: this is the whole public surface of Java's DefaultLitePullConsumer
 * (subscribe / assign, poll, three seeks, commit / committed, pause / resume, queries) plus its
 * start and stop; every mechanism under it lives in the sibling files.
 */
import { EventEmitter } from 'node:events';
import { IllegalStateError, InvalidArgumentError } from '../../errors.js';
import type { ClientInstance } from '../../client/client-instance.js';
import type { HeartbeatContributor } from '../../client/heartbeat.js';
import { forwardInstanceEvents } from '../../client/instance-events.js';
import { Lifecycle, type LifecycleState, type StartStep } from '../../client/lifecycle.js';
import { wrapNamespace } from '../../client/namespace.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import { checkInt } from '../../options.js';
import type { ConsumeStatusData } from '../../protocol/body/consumer-running-info.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import { ConsumeType, type SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { checkTopic } from '../../protocol/validation.js';
import { checkSubscriptionsSupported, searchOffset } from '../core/broker-queries.js';
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
import { PausedQueues, type PauseTarget } from '../core/pause.js';
import { LitePullCache } from './cache.js';
import type { LitePullConsumerEvents } from './events.js';
import {
  resolveLitePullConsumerOptions,
  type LitePullConsumerOptions,
  type ResolvedLitePullConsumerOptions,
} from './options.js';
import type { ConsumerMessage } from '../core/message-view.js';
import type { OffsetStore } from '../offset-store/offset-store.js';
import { LiteOffsets, seekOffset } from './offsets.js';
import { ProcessQueue } from '../core/process-queue.js';
import { runPullLoop, type PullContext, type QueueEntry } from '../core/pull-loop.js';
import type { Rebalancer } from '../core/rebalance.js';
import { liteParts } from './parts.js';
import { userQueue, wireQueue } from '../core/queue-names.js';
import type { SubscriptionExpression } from '../core/subscription.js';
import { heldQueue, LiteSubscriptions } from './subscriptions.js';
import { signalOf, throwIfAborted, type CallOptions } from '../../remoting/abort.js';
import { ConsumeTelemetry } from '../core/consume-telemetry.js';
import { clientTelemetry } from '../../observability/otel/api.js';
import { withoutNamespace } from '../../client/namespace.js';

export class LitePullConsumer
  extends EventEmitter<LitePullConsumerEvents>
  implements AsyncIterable<ConsumerMessage>
{
  readonly options: Readonly<ResolvedLitePullConsumerOptions>;
  /** `clientIP@instanceName[@unitName]`. */
  readonly clientId: string;
  /** Group on the wire (namespace applied). */
  readonly wireGroup: string;
  /** @internal Running info: pull consumers are CONSUME_ACTIVELY (heartbeat consumeType). */
  readonly consumeType = 'CONSUME_ACTIVELY' as const;
  /** When start() finished (ms); 0 before. */
  startTimestamp = 0;
  private readonly lifecycle = new Lifecycle('lite pull consumer', {
    start: (step) => this.open(step),
    stop: () => this.close(),
  });
  private mode: 'NONE' | 'SUBSCRIBE' | 'ASSIGN' = 'NONE';
  private readonly logger: Logger;
  private readonly subs: LiteSubscriptions;
  /** Assign mode: the assigned queues (wire names) by key. */
  private readonly assigned = new Map<string, MessageQueue>();
  private readonly pauses: PausedQueues;
  /** New per start: a closed cache and stopped tasks refuse new work. */
  private cache = new LitePullCache();
  private life = new BackgroundTasks();
  private stopForwarding: (() => void) | undefined;
  private readonly stats = new ConsumeStats();
  private instance: ClientInstance | undefined;
  private client: ConsumerClient | undefined;
  private offsetStore: OffsetStore | undefined;
  private offsets: LiteOffsets | undefined;
  private rebalancer: Rebalancer | undefined;
  /** OpenTelemetry of this start (core/consume-telemetry.ts); undefined when off. */
  private telemetry: ConsumeTelemetry | undefined;
  private pullCtx: PullContext | undefined;
  private readonly contributor: HeartbeatContributor = {
    consumerData: () => [
      consumerData(this.options, this.wireGroup, ConsumeType.CONSUME_ACTIVELY, this.subs.datas()),
    ],
  };

  constructor(options: LitePullConsumerOptions) {
    super();
    this.options = Object.freeze(resolveLitePullConsumerOptions(options));
    const o = this.options;
    this.logger = o.logger;
    this.clientId = consumerClientId(o);
    this.wireGroup = wrapNamespace(o.namespace, o.consumerGroup);
    this.subs = new LiteSubscriptions(o.namespace);
    this.pauses = new PausedQueues(o.namespace);
  }

  private get clustering(): boolean {
    return this.options.messageModel === 'CLUSTERING';
  }

  private wire(queue: MessageQueue, field = 'queue'): MessageQueue {
    return wireQueue(queue, this.options.namespace, field);
  }

  private userQueue(mq: MessageQueue): MessageQueue {
    return userQueue(mq, this.options.namespace);
  }

  private checkOpen(): void {
    if (this.lifecycle.closed) throw new IllegalStateError('consumer is shut down');
  }

  private checkRunning(what: string): void {
    this.lifecycle.requireRunning(what);
  }

  /** Subscribes `topic` (queues come from the group's rebalance); excludes `assign()`. */
  subscribe(topic: string, expression: SubscriptionExpression = '*'): void {
    const { wireTopic: wire, sub } = this.subs.build(topic, expression);
    this.checkOpen();
    if (this.mode === 'ASSIGN') throw new IllegalStateError('subscribe and assign are mutually exclusive');
    this.mode = 'SUBSCRIBE';
    this.subs.add(wire, sub);
    if (this.lifecycle.running) {
      this.instance?.routes.pin(wire);
      void this.client?.sendHeartbeatToAllBrokers().then(() => this.rebalanceNow());
    }
  }

  /** Reads exactly `queues` (replacing any earlier assignment), without group coordination. */
  assign(queues: readonly MessageQueue[]): void {
    if (!Array.isArray(queues) || queues.length === 0)
      throw new InvalidArgumentError('queues', 'must be a non-empty array of message queues');
    const wanted = new Map(queues.map((q, i) => [mqKey(this.wire(q, `queues[${i}]`)), this.wire(q)]));
    this.checkOpen();
    if (this.mode === 'SUBSCRIBE') throw new IllegalStateError('subscribe and assign are mutually exclusive');
    this.mode = 'ASSIGN';
    this.subs.assigned(wanted.values());
    for (const [key, mq] of [...this.assigned]) {
      if (wanted.has(key)) continue;
      this.assigned.delete(key);
      this.instance?.routes.unpin(mq.topic);
      const entry = this.rebalancer?.table.get(key);
      if (entry !== undefined) void this.rebalancer?.remove(entry);
    }
    for (const [key, mq] of wanted) {
      if (this.assigned.has(key)) continue;
      this.assigned.set(key, mq);
      this.instance?.routes.pin(mq.topic);
      if (this.lifecycle.running) void this.openAssigned(mq);
    }
  }

  /** CREATED → STARTING → RUNNING → STOPPING → STOPPED (client/lifecycle.ts). */
  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /**
   * Joins the group (subscribe mode) or opens the assigned queues. While starting it returns the
   * pending start, once running it resolves at once; a failed start leaves nothing open and may
   * be retried (client/lifecycle.ts).
   */
  start(): Promise<void> {
    return this.lifecycle.start();
  }

  private async open(step: StartStep): Promise<void> {
    const o = this.options;
    this.cache = new LitePullCache();
    this.life = new BackgroundTasks();
    const { instance, client } = await openConsumerInstance(o, this.clientId, this.wireGroup, this);
    this.instance = instance;
    this.client = client;
    this.stopForwarding = forwardInstanceEvents(instance, this, o.namespace);
    await step();
    await this.startParts(instance, client, step);
    this.telemetry = this.openTelemetry();
    this.logger.info('lite pull consumer started', { group: o.consumerGroup, clientId: this.clientId });
  }

  private openTelemetry(): ConsumeTelemetry | undefined {
    const o = this.options;
    const otel = clientTelemetry(o.openTelemetry);
    if (otel === undefined) return undefined;
    return new ConsumeTelemetry(otel, {
      consumerGroup: o.consumerGroup,
      clientId: this.clientId,
      namespace: o.namespace,
      consumptionModel: o.messageModel.toLowerCase(),
      // The process queues: what the pulls fetched and poll() has not handed out yet.
      cache: () =>
        [...(this.rebalancer?.table.values() ?? [])].map((e) => ({
          topic: withoutNamespace(e.mq.topic, o.namespace),
          count: e.pq.msgCount,
          bytes: e.pq.msgSize,
        })),
    });
  }

  private async startParts(instance: ClientInstance, client: ConsumerClient, step: StartStep): Promise<void> {
    const o = this.options;
    const store = await openOffsetStore(o, client, this.clientId, this.wireGroup);
    this.offsetStore = store;
    this.offsets = new LiteOffsets(store, (mq) => this.userQueue(mq), this, this.logger);
    await step();
    const scope = {
      client,
      options: o,
      group: this.wireGroup,
      logger: this.logger,
      clustering: this.clustering,
      orderly: false,
    };
    const { rebalancer, pullCtx } = liteParts(scope, {
      offsetStore: store,
      topics: () => (this.mode === 'SUBSCRIBE' ? this.subs.topics() : []),
      startQueue: (entry) => this.startQueue(entry),
      assignMode: () => this.mode === 'ASSIGN',
      restartQueue: (mq, offset) => this.restartQueue(mq, offset),
      isRunning: () => this.lifecycle.active,
      isPaused: (mq) => this.pauses.isPaused(mq),
      overAllThreshold: () => this.cache.waiting > o.pullThresholdForAll,
      subscription: (topic) => this.subs.forPull(topic, this.mode === 'ASSIGN'),
      subscribedAt: (topic) => this.subs.since(topic),
      dispatch: (entry, messages) => this.cache.put({ entry, messages }),
      later: (ms, fn) => this.life.later(ms, fn),
      sleep: (ms) => this.life.sleep(ms),
      stats: this.stats,
      rebalanced: (event) => this.emit('rebalance', event),
    });
    this.rebalancer = rebalancer;
    this.pullCtx = pullCtx;
    for (const topic of this.subs.topics()) instance.routes.pin(topic);
    for (const mq of this.assigned.values()) instance.routes.pin(mq.topic);
    // Loads the routes, so the first offset reads know the brokers' addresses.
    const topics = new Set([...this.subs.topics(), ...[...this.assigned.values()].map((mq) => mq.topic)]);
    const queues = await step(
      Promise.all(
        [...topics].map((t) =>
          client.subscribeQueues(t).catch((err: unknown) => {
            this.logger.warn('no route for a topic yet', { topic: t, error: err });
            return [];
          }),
        ),
      ),
    );
    const datas = this.subs.datas();
    await step(
      checkSubscriptionsSupported(client, this.wireGroup, datas, queues.flat(), o.mqClientApiTimeout),
    );
    instance.heartbeat.register(this.contributor);
    await step(client.sendHeartbeatToAllBrokers());
    this.life.every(o.rebalanceInterval, () => void this.rebalanceNow());
    if (o.autoCommit) this.life.every(o.autoCommitIntervalMillis, () => void this.autoCommit());
    this.startTimestamp = Date.now();
    if (this.mode === 'SUBSCRIBE') await step(this.rebalanceNow());
    else await step(Promise.all([...this.assigned.values()].map((mq) => this.openAssigned(mq))));
  }

  /**
   * A queue was taken (rebalance, assign, seek). Its consumed offset is not set here: as Java's
   * `AssignedMessageQueue`, only poll, seek and commit(offsets) give a queue something to commit,
   * so a queue never polled keeps the group's stored offset (a committed 0 reads back as "none"
   * on a 4.9 broker, and a LAST_OFFSET member would then skip the queue's messages).
   */
  private startQueue(entry: QueueEntry): void {
    void runPullLoop(this.pullCtx!, entry);
  }

  /** Assign mode: where the queue starts (committed offset, else consumeFromWhere), then pull. */
  private async openAssigned(mq: MessageQueue): Promise<void> {
    const rebalancer = this.rebalancer;
    if (rebalancer === undefined) return;
    const key = mqKey(mq);
    // The route (cached after the first time) gives the offset read its broker address.
    await this.client?.subscribeQueues(mq.topic).catch(() => undefined);
    const start = await rebalancer.startPosition(mq);
    if (!this.lifecycle.active || this.assigned.get(key) !== mq || rebalancer.table.has(key)) return;
    if (start === undefined) {
      this.life.later(this.options.pullTimeDelayMillsWhenException, () => void this.openAssigned(mq));
      return;
    }
    this.restartQueue(mq, start.offset, false, start.notBefore);
  }

  /** Pulls start over at `offset`, unpolled messages discarded; `consumed`: commit() stores it (seek, reset). */
  private restartQueue(mq: MessageQueue, offset: number, consumed = false, notBefore?: number): void {
    const table = this.rebalancer!.table;
    const key = mqKey(mq);
    const old = table.get(key);
    if (old !== undefined) {
      old.pq.dropped = true;
      old.pq.clear();
    }
    this.cache.discard(key);
    const entry: QueueEntry = { key, mq, pq: new ProcessQueue<ConsumerMessage>(), nextOffset: offset };
    entry.notBefore = notBefore;
    table.set(key, entry);
    if (consumed) this.offsets?.set(mq, offset);
    this.startQueue(entry);
  }

  /** Runs a rebalance round now (also on NOTIFY_CONSUMER_IDS_CHANGED); subscribe mode only. */
  rebalanceNow(): Promise<void> {
    if (!this.lifecycle.active || this.mode !== 'SUBSCRIBE') return Promise.resolve();
    return this.rebalancer?.trigger() ?? Promise.resolve();
  }

  /**
   * Up to pullBatchSize messages, waiting up to `timeoutMs` (pollTimeoutMillis) for the first;
   * `[]` when none came in time or the consumer shuts down meanwhile. `options.signal` aborts
   * the wait (AbortError): the waiter leaves at once and takes no message, so none is lost.
   */
  poll(
    timeoutMs: number = this.options.pollTimeoutMillis,
    options?: CallOptions,
  ): Promise<ConsumerMessage[]> {
    const telemetry = this.telemetry;
    if (telemetry === undefined) return this.pollMessages(timeoutMs, options);
    // A poll that returns nothing leaves no span: an idle poll loop would flood the exporter.
    return telemetry.traceReceive(undefined, false, () => this.pollMessages(timeoutMs, options));
  }

  private async pollMessages(
    timeoutMs: number,
    options: CallOptions | undefined,
  ): Promise<ConsumerMessage[]> {
    this.checkRunning('poll()');
    checkInt('timeoutMs', timeoutMs, 0);
    const signal = signalOf(options);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      throwIfAborted(signal, 'poll');
      const batches = this.cache.takeNow(
        this.options.pullBatchSize,
        (b) => !this.pauses.isPaused(b.entry.mq) && this.rebalancer?.table.get(b.entry.key) === b.entry,
      );
      if (batches.length > 0) return this.hand(batches);
      const left = deadline - Date.now();
      if (left <= 0 || !this.lifecycle.running) return [];
      await this.cache.wait(left, signal);
    }
  }

  /** The batches leave their ProcessQueues; each queue's consumed offset moves past them. */
  private hand(
    batches: ReadonlyArray<{ entry: QueueEntry; messages: readonly ConsumerMessage[] }>,
  ): ConsumerMessage[] {
    const out: ConsumerMessage[] = [];
    const started = Date.now();
    for (const { entry, messages } of batches) {
      const next = entry.pq.removeMessages(messages);
      if (next >= 0) this.offsets?.set(entry.mq, next);
      this.stats.record(entry.mq.topic, messages.length, true, Date.now() - started);
      out.push(...messages);
    }
    return out;
  }

  /**
   * The polled messages one at a time, until shutdown; `options.signal` ends the loop with
   * AbortError (as SimpleConsumer's `messages`). Offsets move as `poll` moves them.
   */
  async *messages(options?: CallOptions): AsyncGenerator<ConsumerMessage, void, undefined> {
    const signal = signalOf(options);
    while (this.lifecycle.running) {
      const messages = await this.poll(undefined, { signal });
      for (const m of messages) yield m;
    }
  }

  /** `for await (const message of consumer)`: `messages()`, polling until shutdown. */
  [Symbol.asyncIterator](): AsyncGenerator<ConsumerMessage, void, undefined> {
    return this.messages();
  }

  private held(queue: MessageQueue, field = 'queue'): MessageQueue {
    const table = this.mode === 'ASSIGN' ? this.assigned : this.rebalancer?.table;
    return heldQueue(this.wire(queue, field), table, field);
  }

  private heldQueues(): MessageQueue[] {
    return this.mode === 'ASSIGN' ? [...this.assigned.values()] : (this.rebalancer?.heldQueues() ?? []);
  }

  /** The next poll of `queue` starts at `offset` (between the queue's min and max offset). */
  async seek(queue: MessageQueue, offset: number): Promise<void> {
    this.checkRunning('seek()');
    checkInt('offset', offset, 0);
    await this.seekTo(queue, offset);
  }

  /** Seeks to the oldest message still stored. */
  async seekToBegin(queue: MessageQueue): Promise<void> {
    this.checkRunning('seekToBegin()');
    await this.seekTo(queue, 'begin');
  }

  /** Seeks past the last message: only new messages are polled. */
  async seekToEnd(queue: MessageQueue): Promise<void> {
    this.checkRunning('seekToEnd()');
    await this.seekTo(queue, 'end');
  }

  private async seekTo(queue: MessageQueue, to: number | 'begin' | 'end'): Promise<void> {
    const mq = this.held(queue);
    const offset = await seekOffset(this.client!, mq, to, this.options.mqClientApiTimeout);
    this.held(queue); // an assign() meanwhile may have taken the queue away
    this.restartQueue(mq, offset, true);
  }

  /** The first offset of `queue` stored at or after `timestamp` (epoch ms). */
  async offsetForTimestamp(queue: MessageQueue, timestamp: number): Promise<number> {
    this.checkRunning('offsetForTimestamp()');
    checkInt('timestamp', timestamp, 0);
    return searchOffset(this.client!, this.wire(queue), timestamp, this.options.mqClientApiTimeout);
  }

  /** The readable queues of `topic` (user names), sorted. */
  async fetchMessageQueues(topic: string): Promise<MessageQueue[]> {
    const problem = checkTopic(topic, 'topic');
    if (problem !== undefined) throw new InvalidArgumentError('topic', problem);
    this.checkRunning('fetchMessageQueues()');
    const queues = await this.client!.subscribeQueues(wrapNamespace(this.options.namespace, topic));
    return queues
      .map((mq) => this.userQueue(mq))
      .sort((a, b) =>
        a.brokerName === b.brokerName ? a.queueId - b.queueId : a.brokerName < b.brokerName ? -1 : 1,
      );
  }

  /**
   * Stops pulling `targets` (topics and/or MessageQueues; everything when omitted) and holds
   * back what was pulled of them until `resume`. core/pause.ts has the rules.
   */
  pause(targets?: readonly PauseTarget[]): void {
    this.pauses.pause(targets);
  }

  /** Lifts the pauses of `targets` (every pause when omitted). */
  resume(targets?: readonly PauseTarget[]): void {
    this.pauses.resume(targets);
  }

  /**
   * Stores the consumed offsets of the queues held (Java `commitSync`), or sets the given offsets
   * first (`commit([{ queue, offset }])`, queues held only). Throws OffsetCommitError naming the
   * queues a broker did not confirm.
   */
  async commit(offsets?: ReadonlyArray<{ queue: MessageQueue; offset: number }>): Promise<void> {
    this.checkRunning('commit()');
    if (offsets !== undefined) {
      if (!Array.isArray(offsets)) throw new InvalidArgumentError('offsets', 'must be an array');
      const checked = offsets.map(({ queue, offset }, i) => ({
        mq: this.held(queue, `offsets[${i}].queue`),
        offset: checkInt(`offsets[${i}].offset`, offset, 0),
      }));
      for (const { mq, offset } of checked) this.offsets?.set(mq, offset);
    }
    await this.persist();
  }

  private async persist(held = this.heldQueues()): Promise<void> {
    await this.offsets?.commit(held);
  }

  private async autoCommit(): Promise<void> {
    await this.offsets?.commitInBackground(
      'auto-commit of consumer offsets (retried next interval)',
      this.rebalancer?.heldQueues() ?? [],
    );
  }

  /** The offset stored for `queue` (−1 when none); what was polled since is not included. */
  async committed(queue: MessageQueue): Promise<number> {
    this.checkRunning('committed()');
    const mq = this.wire(queue);
    // The offset is on the queue's broker, whose address comes with the topic's route.
    await this.client!.subscribeQueues(mq.topic).catch(() => undefined);
    return this.offsets!.committed(mq);
  }

  /** The queues held: assigned ones, or those the rebalance gave this member (user names). */
  assignment(): MessageQueue[] {
    return this.heldQueues().map((mq) => this.userQueue(mq));
  }

  /** @internal Running info (GET_CONSUMER_RUNNING_INFO). */
  consumeStatus(topic: string): ConsumeStatusData {
    return this.stats.status(topic);
  }

  /** @internal RESET_CONSUMER_CLIENT_OFFSET: the topic's held queues restart at `offsets`. */
  async resetOffset(topic: string, offsets: Array<{ mq: MessageQueue; offset: number }>): Promise<void> {
    if (!this.lifecycle.running) return;
    this.logger.info('offsets reset by the broker', { topic, queues: offsets.length });
    const table = this.rebalancer!.table;
    for (const { mq, offset } of offsets) if (table.has(mqKey(mq))) this.restartQueue(mq, offset, true);
    await this.offsets?.commitInBackground('storing reset offsets', this.rebalancer?.heldQueues() ?? []);
  }

  /** @internal For broker→client requests. */
  get internals(): {
    table: ReadonlyMap<string, QueueEntry>;
    offsetStore: OffsetStore | undefined;
    subscriptions: SubscriptionData[];
    handler: undefined;
    pool: undefined;
  } {
    return {
      table: this.rebalancer?.table ?? new Map(),
      offsetStore: this.offsetStore,
      subscriptions: this.subs.datas(),
      handler: undefined,
      pool: undefined,
    };
  }

  /** Whether the consumer runs (started and not shutting down). */
  get running(): boolean {
    return this.lifecycle.running;
  }

  /**
   * Stops pulling, ends pending polls and `for await` loops, commits, unregisters. During start()
   * it cancels the start (StartCancelledError); later calls return the first call's promise.
   */
  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }

  /** The stop work: also after a failed or cancelled start, so each part checks it was opened. */
  private async close(): Promise<void> {
    this.life.stop();
    this.cache.close();
    this.telemetry?.close();
    this.telemetry = undefined;
    const entries = [...(this.rebalancer?.table.values() ?? [])];
    for (const e of entries) e.pq.dropped = true;
    await this.offsets?.commitInBackground(
      'committing offsets at shutdown',
      entries.map((e) => e.mq),
    );
    this.rebalancer?.table.clear();
    const instance = this.instance;
    this.instance = undefined;
    this.client = undefined;
    this.rebalancer = undefined;
    const pinned = [...this.subs.topics(), ...[...this.assigned.values()].map((mq) => mq.topic)];
    if (instance !== undefined)
      await closeConsumerInstance(instance, this.contributor, this.wireGroup, this, pinned);
    // After the release: the closing connections' 'disconnect' events still reach the application.
    this.stopForwarding?.();
    this.stopForwarding = undefined;
    if (instance === undefined) return;
    this.logger.info('lite pull consumer shut down', { group: this.options.consumerGroup });
  }
}
