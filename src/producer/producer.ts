/**
 * The public producer: `new Producer(options)`, `start()`, `send()`, `sendOneway()`,
 * `sendBatch()`, `recallMessage()` (recall.ts), `brokerHealth()`, `shutdown()`. Events (docs/events.md): 'brokerIsolated',
 * 'brokerRecovered', 'routeUpdated', 'connect', 'disconnect', 'hedgedDuplicate'. Each send is
 * traced on the `rocketmq:send` diagnostics channel (send-channel.ts); what the send entry points
 * check before anything waits is send-entry.ts. The start and shutdown sequence is
 * producer-lifecycle.ts; its states are client/lifecycle.ts's.
 */
import { EventEmitter } from 'node:events';
import { IllegalStateError, InvalidArgumentError } from '../errors.js';
import { sendChannel, tracingHasSubscribers } from '../observability/channels.js';
import type { Logger } from '../observability/logger.js';
import { UniqIdGenerator } from '../protocol/message/message-id.js';
import { clientIdOf } from '../client/client-options.js';
import type { ClientInstance } from '../client/client-instance.js';
import type { ClientInstanceEvents } from '../client/instance-events.js';
import { Lifecycle, type LifecycleState } from '../client/lifecycle.js';
import { wrapNamespace } from '../client/namespace.js';
import { keyList } from '../options.js';
import { createFaultStrategy } from './fault/index.js';
import { SendHedger, type BrokerHedgeStats, type HedgedDuplicateEvent } from './hedge.js';
import { TraceDispatcher, type TraceStats } from './trace/dispatcher.js';
import { SendTracer } from './trace/send-trace.js';
import { traceProducerOptions, traceTopicOf } from './trace/settings.js';
import type {
  BrokerHealth,
  BrokerIsolatedEvent,
  BrokerRecoveredEvent,
  LatencyFaultStrategy,
} from './fault/latency-fault-tolerance.js';
import type { Message, PreparedMessage, PrepareSettings } from './message.js';
import { resolveProducerOptions, type ProducerOptions, type ResolvedProducerOptions } from './options.js';
import { runSend, type SendLoopSettings, type SendObserver, type SendTransport } from './send-loop.js';
import { TimerSupport } from './timer.js';
import { SendPermits } from './backpressure.js';
import { batchLaneOf, ProduceAccumulator, type BatchLane } from './auto-batch.js';
import type { SendResult } from './send-result.js';
import type { TopicPublishInfo } from '../client/topic-publish-info.js';
import type { MessageQueue } from '../client/route.js';
import type { HeartbeatContributor } from '../client/heartbeat.js';
import type { Deadline } from '../client/deadline.js';
import { resolveCommandDefaults, SerializeType } from '../protocol/command.js';
import { closeProducer, InFlightSends, openProducer, type ProducerParts } from './producer-lifecycle.js';
import type { QueueSelection, SendOptions } from './queue-select.js';
import { sendRequest } from './request-reply.js';
import { recallMessage } from './recall.js';
import type { CallOptions } from '../remoting/abort.js';
import { checkBatch, checkSend, type CheckedSend, type SendEntrySettings } from './send-entry.js';
import { tracedSend, type SendTraceContext } from './send-channel.js';
import { clientTelemetry } from '../observability/otel/api.js';
import { ProducerTelemetry, type SendSpan } from './send-telemetry.js';

export type { SendTraceContext } from './send-channel.js';

const unchanged = (p: PreparedMessage): PreparedMessage => p;

/** One UNIQ_KEY generator per process, as Java's static `MessageClientIDSetter`. */
let sharedIds: UniqIdGenerator | undefined;

/** docs/events.md: routeUpdated, connect, disconnect come from the client instance. */
export interface ProducerEvents extends ClientInstanceEvents {
  brokerIsolated: [BrokerIsolatedEvent];
  brokerRecovered: [BrokerRecoveredEvent];
  /** A hedged send was stored twice (same msgId on two brokers): consumers may see it twice. */
  hedgedDuplicate: [HedgedDuplicateEvent];
}

/** Every event a Producer (and TransactionProducer) emits; docs/events.md lists the same. */
export const PRODUCER_EVENTS = keyList<ProducerEvents>({
  brokerIsolated: true,
  brokerRecovered: true,
  routeUpdated: true,
  connect: true,
  disconnect: true,
  hedgedDuplicate: true,
});

export class Producer extends EventEmitter<ProducerEvents> {
  /** Resolved options (defaults applied). */
  readonly options: Readonly<ResolvedProducerOptions>;
  private readonly lifecycle = new Lifecycle('producer', {
    start: (step) =>
      openProducer(this.parts, step).then(() => {
        this.telemetry?.start();
        this.afterOpen();
      }),
    stop: () => {
      this.beforeClose();
      this.telemetry?.stop();
      return closeProducer(this.parts);
    },
  });
  /** What start opened (the instance), shared with producer-lifecycle.ts. */
  private readonly parts: ProducerParts;
  private get instance(): ClientInstance | undefined {
    return this.parts.session.instance;
  }
  private readonly strategy: LatencyFaultStrategy;
  private readonly logger: Logger;
  /** This producer's part of the instance's heartbeat. */
  private readonly membership: HeartbeatContributor;
  /** Sends not settled yet: shutdown waits for them. */
  private readonly sends = new InFlightSends();
  private readonly onSettled = this.sends.settled;
  private readonly loopSettings: SendLoopSettings;
  private readonly prepareSettings: PrepareSettings;
  /** What the send entry points check and prepare with (send-entry.ts). */
  private readonly entry: SendEntrySettings;
  private readonly transport: SendTransport;
  private readonly timerSupport: TimerSupport;
  private readonly permits: SendPermits;
  private readonly accumulator: ProduceAccumulator | undefined;
  private readonly ids: UniqIdGenerator;
  /** Message trace (`enableMsgTrace`): the dispatcher and its Pub hook. */
  private readonly trace: { dispatcher: TraceDispatcher; tracer: SendTracer } | undefined;
  /** OpenTelemetry spans and metrics (send-telemetry.ts); undefined when off or not installed. */
  private readonly telemetry: ProducerTelemetry | undefined;

  constructor(options: ProducerOptions) {
    super();
    this.options = Object.freeze(resolveProducerOptions(options));
    const o = this.options;
    this.logger = o.logger;
    this.clientId = clientIdOf(o);
    this.ids = sharedIds ??= new UniqIdGenerator();
    const otel = clientTelemetry(o.openTelemetry);
    this.telemetry =
      otel === undefined
        ? undefined
        : new ProducerTelemetry(otel, {
            clientId: this.clientId,
            producerGroup: o.producerGroup,
            namespace: o.namespace,
          });
    this.strategy = createFaultStrategy(o, {
      now: Date.now,
      random: Math.random,
      probe: (brokerName, timeoutMs) =>
        this.instance?.probeBroker(brokerName, timeoutMs) ?? Promise.resolve(false),
      brokerKnown: (brokerName) => this.instance?.routes.masterAddress(brokerName) !== undefined,
      onIsolated: (e) => this.emit('brokerIsolated', e),
      onRecovered: (e) => this.emit('brokerRecovered', e),
      logger: o.logger,
    });
    this.prepareSettings = {
      maxMessageSize: o.maxMessageSize,
      compressMsgBodyOverHowmuch: o.compressMsgBodyOverHowmuch,
      compressLevel: o.compressLevel,
      compressType: o.compressType,
      namespace: o.namespace,
      checkedTopics: new Map(),
      lastTopic: undefined,
      lastWireTopic: undefined,
    };
    this.entry = { namespace: o.namespace, prepare: this.prepareSettings, ids: this.ids };
    this.loopSettings = {
      producerGroup: wrapNamespace(o.namespace, o.producerGroup),
      createTopicKey: o.createTopicKey,
      defaultTopicQueueNums: o.defaultTopicQueueNums,
      commandDefaults: resolveCommandDefaults({
        language: o.language,
        serializeType: o.serializeType === 'ROCKETMQ' ? SerializeType.ROCKETMQ : SerializeType.JSON,
      }),
      sendMsgTimeout: o.sendMsgTimeout,
      retryTimesWhenSendFailed: o.retryTimesWhenSendFailed,
      retryAnotherBrokerWhenNotStoreOK: o.retryAnotherBrokerWhenNotStoreOK,
      retryResponseCodes: o.retryResponseCodes,
      sendAttemptTimeout: o.sendAttemptTimeout,
      logger: o.logger,
      hedger: o.hedgeSends
        ? new SendHedger(
            { multiplier: o.hedgeDelayMultiplier, floorMs: o.hedgeDelayFloorMs },
            (brokerName, overdueMs) => this.strategy.onOverdue?.(brokerName, overdueMs),
            (e) => this.emit('hedgedDuplicate', e),
          )
        : undefined,
    };
    const traceTopic = traceTopicOf(o);
    if (traceTopic !== undefined) {
      const dispatcher = new TraceDispatcher(
        new Producer(traceProducerOptions('PRODUCE', o.producerGroup, o.namesrvAddr, o.logger)),
        { traceTopic, logger: o.logger },
      );
      const tracer = new SendTracer(dispatcher, o.producerGroup, (name) =>
        this.instance?.routes.masterAddress(name),
      );
      this.trace = { dispatcher, tracer };
    }
    const group = this.loopSettings.producerGroup;
    this.membership = { producerGroups: () => [group] };
    this.parts = {
      options: o,
      clientId: this.clientId,
      logger: this.logger,
      membership: this.membership,
      strategy: this.strategy,
      trace: this.trace?.dispatcher,
      events: this,
      session: { instance: undefined, stopForwarding: undefined, strategyStarted: false },
      sends: this.sends,
      flushBatches: () => this.accumulator?.flushAll(),
    };
    this.transport = {
      publishInfo: (topic, deadline) => this.publishInfo(topic, deadline),
      brokerAddress: (name) => this.requireInstance().routes.masterAddress(name),
      request: (address, cmd, timeoutMs, signal) =>
        this.requireInstance().masterRequest(address, cmd, timeoutMs, signal),
      oneway: (address, cmd, timeoutMs, signal) =>
        this.requireInstance().pool.oneway(address, cmd, timeoutMs, signal),
      checkTimer: (brokerName, address, deliverAt, timeoutMs) =>
        this.timerSupport.check(brokerName, address, deliverAt, timeoutMs),
    };
    this.timerSupport = new TimerSupport(this.transport.request, this.loopSettings.commandDefaults);
    this.permits = new SendPermits(o.backPressureForAsyncSendNum, o.backPressureForAsyncSendSize);
    this.accumulator = o.autoBatch
      ? new ProduceAccumulator(
          {
            batchMaxDelayMs: o.batchMaxDelayMs,
            batchMaxBytes: o.batchMaxBytes,
            totalBatchMaxBytes: o.totalBatchMaxBytes,
            maxMessageSize: o.maxMessageSize,
          },
          (p, timeoutMs, signal) =>
            runSend(
              p,
              false,
              this.transport,
              this.strategy,
              { ...this.loopSettings, sendMsgTimeout: timeoutMs },
              undefined,
              signal,
            ) as Promise<SendResult>,
          (p) => {
            this.permits.release(p.body.length);
            this.onSettled();
          },
        )
      : undefined;
  }

  /** `clientIP@instanceName[@unitName]`. */
  readonly clientId: string;

  /** The fault strategy in use (`none` when sendLatencyFaultEnable is false). */
  get faultStrategy(): string {
    return this.strategy.name;
  }

  /** Adds a broker response code that retries on another broker (Java `addRetryResponseCode`). */
  addRetryResponseCode(code: number): void {
    if (!Number.isInteger(code)) throw new InvalidArgumentError('code', 'must be an integer response code');
    this.options.retryResponseCodes.add(code);
  }

  /** CREATED → STARTING → RUNNING → STOPPING → STOPPED (client/lifecycle.ts). */
  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /**
   * Takes the client instance and registers the group; a second call while starting returns the
   * same promise, one when running resolves at once (client/lifecycle.ts). A failed start leaves
   * nothing open and may be retried.
   */
  start(): Promise<void> {
    return this.lifecycle.start();
  }

  /** Runs at the end of a start, before RUNNING (TransactionProducer's check listener). */
  protected afterOpen(): void {}

  /** Runs first in a shutdown (also after a failed or cancelled start). */
  protected beforeClose(): void {}

  /**
   * Sends one message; retries per the options; resolves with the SendResult. With
   * `options.queue`, `shardingKey` or `selector` it makes one attempt on that queue only
   * (queue-select.ts). `options.signal` aborts it (AbortError): not retried, its backpressure
   * room and autoBatch slot given back at once.
   */
  send(message: Message, options?: SendOptions): Promise<SendResult> {
    return this.sendWith(message, unchanged, options);
  }

  /**
   * Fire and forget: one attempt, resolves when the request is written. `options.signal` gives
   * up the wait for a connection or for room (AbortError).
   */
  async sendOneway(message: Message, options?: SendOptions): Promise<void> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    let span: SendSpan | undefined;
    let checked: CheckedSend;
    try {
      // Inside: it reads the caller's message before it is checked.
      span = this.telemetry?.beginSend(message, options?.shardingKey, false);
      checked = checkSend(message, options, this.entry, undefined, span?.fields);
    } catch (err) {
      span?.failed(err);
      throw err;
    }
    await this.track('oneway', checked, true, span);
  }

  /**
   * Request-reply (RIP-16): sends `message` with CORRELATION_ID / REPLY_TO_CLIENT / TTL and
   * resolves with the reply a responder sends back (request-reply.ts). `options.signal` aborts
   * the send or the wait for the reply (AbortError); the pending reply entry is removed.
   */
  request(message: Message, timeoutMs: number, options?: CallOptions): ReturnType<typeof sendRequest> {
    return sendRequest(this, message, timeoutMs, options);
  }

  /**
   * `send` with the prepared message adjusted before it goes out (half messages, requests):
   * for the mechanisms built on this producer, not for applications.
   * @internal
   */
  sendWith(
    message: Message,
    adjust: (p: PreparedMessage) => PreparedMessage,
    options?: SendOptions,
    transaction = false,
  ): Promise<SendResult> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    let span: SendSpan | undefined;
    let checked: CheckedSend;
    try {
      span = this.telemetry?.beginSend(message, options?.shardingKey, transaction);
      checked = checkSend(
        message,
        options,
        this.entry,
        adjust === unchanged ? undefined : adjust,
        span?.fields,
      );
    } catch (err) {
      span?.failed(err);
      return Promise.reject(err);
    }
    return this.track('send', checked, false, span) as Promise<SendResult>;
  }

  /**
   * The running client instance (connections, routes, inbound table) for the mechanisms built
   * on this producer.
   * @internal
   */
  get client(): ClientInstance {
    return this.requireInstance();
  }

  /**
   * Sends messages of one topic as one SEND_BATCH_MESSAGE (same retry rules as `send`, and the
   * same `options.signal`).
   */
  sendBatch(messages: readonly Message[], options?: CallOptions): Promise<SendResult> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    let span: SendSpan | undefined;
    let checked: CheckedSend;
    try {
      span = this.telemetry?.beginBatch(messages);
      checked = checkBatch(messages, options, this.entry, span?.batchFields);
    } catch (err) {
      span?.failed(err);
      return Promise.reject(err);
    }
    return this.track('batch', checked, false, span) as Promise<SendResult>;
  }

  /**
   * [5.x 5.3.2+] Cancels a timer message before its time (Java `recallMessage`): `recallHandle`
   * is its SendResult's. Resolves with its msgId. InvalidArgumentError for a malformed handle or
   * one of another topic (nothing sent); RecallDisabledError when the broker has
   * `recallMessageEnable=false`; RecallRejectedError when its time has come or the handle is
   * refused; `options.signal` aborts it (AbortError).
   */
  recallMessage(topic: string, recallHandle: string, options?: CallOptions): Promise<string> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    const o = this.options;
    const ctx = {
      instance: this.requireInstance(),
      namespace: o.namespace,
      producerGroup: this.loopSettings.producerGroup,
      timeoutMs: o.sendMsgTimeout,
      commandDefaults: this.loopSettings.commandDefaults,
    };
    return recallMessage(ctx, topic, recallHandle, options);
  }

  /**
   * Per-broker health as the fault strategy sees it, with the hedging counters (`hedged`,
   * `hedgedDuplicates`) when `hedgeSends` is on.
   */
  brokerHealth(): (BrokerHealth & Partial<BrokerHedgeStats>)[] {
    const hedger = this.loopSettings.hedger;
    return hedger === undefined ? this.strategy.health() : hedger.withStats(this.strategy.health());
  }

  /** Message trace counters (`enableMsgTrace`); undefined when tracing is off. */
  traceStats(): TraceStats | undefined {
    return this.trace?.dispatcher.stats();
  }

  /**
   * Stops accepting sends, waits for in-flight sends (at most sendMsgTimeout + 500 ms),
   * unregisters from the brokers and releases the client instance (closing its sockets when
   * no other producer uses it). During start() it cancels the start (which rejects with
   * StartCancelledError); every later call returns the first call's promise.
   */
  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }

  private requireInstance(): ClientInstance {
    const i = this.instance;
    if (i === undefined) throw new IllegalStateError('producer is not running');
    return i;
  }

  /**
   * The publish view of a wire topic: it lives on the instance's route entry (one cache), so a
   * route change carries the round-robin position over. The lookup may be shared with another
   * producer of this instance; this send's deadline still bounds the wait.
   */
  private publishInfo(topic: string, deadline: Deadline): TopicPublishInfo | Promise<TopicPublishInfo> {
    const routes = this.requireInstance().routes;
    const cached = routes.cached(topic);
    if (cached !== undefined && cached.publishInfo.ok()) return cached.publishInfo;
    return routes.get(topic, deadline).then((entry) => entry.publishInfo);
  }

  /**
   * Backpressure first (waiting eats into the send's budget), then the batch (`lane` is not
   * 'alone') or the send loop. A batched send's permit and in-flight count are given back by the
   * accumulator (its `released` hook), so it costs no promise here.
   */
  private dispatch(
    p: PreparedMessage,
    oneway: boolean,
    selection: QueueSelection | undefined,
    lane: BatchLane,
    signal: AbortSignal | undefined,
    observer: SendObserver | undefined,
  ): Promise<SendResult | undefined> {
    // `length` is a Uint8Array's byteLength; V8 11 inlines it, byteLength is a getter call.
    const bytes = p.body.length;
    const waiting = this.permits.acquire(bytes, this.options.sendMsgTimeout, signal);
    const accumulator = lane === 'alone' ? undefined : this.accumulator;
    if (waiting === undefined) {
      if (accumulator !== undefined) return accumulator.add(p, this.options.sendMsgTimeout, lane, signal);
      return this.releasing(this.sendNow(p, oneway, this.loopSettings, selection, signal, observer), bytes);
    }
    const started = Date.now();
    return waiting.then(
      () => {
        const left = Math.max(1, this.options.sendMsgTimeout - (Date.now() - started));
        if (accumulator !== undefined) return accumulator.add(p, left, lane, signal);
        const settings = { ...this.loopSettings, sendMsgTimeout: left };
        return this.releasing(this.sendNow(p, oneway, settings, selection, signal, observer), bytes);
      },
      (err: unknown) => {
        // No permit was taken; a batched send is still counted in flight until here.
        if (accumulator !== undefined) this.onSettled();
        throw err;
      },
    );
  }

  /** `sent`, giving the permit back when it settles (one `then`: `finally` costs two more promises). */
  private releasing<T>(sent: Promise<T>, bytes: number): Promise<T> {
    return sent.then(
      (r) => {
        this.permits.release(bytes);
        return r;
      },
      (err: unknown) => {
        this.permits.release(bytes);
        throw err;
      },
    );
  }

  private sendNow(
    p: PreparedMessage,
    oneway: boolean,
    settings: SendLoopSettings,
    selection: QueueSelection | undefined,
    signal: AbortSignal | undefined,
    observer: SendObserver | undefined,
  ): Promise<SendResult | undefined> {
    if (selection === undefined)
      return runSend(p, oneway, this.transport, this.strategy, settings, undefined, signal, observer);
    const pick = (tp: TopicPublishInfo): MessageQueue => selection.pick(tp);
    return runSend(p, oneway, this.transport, this.strategy, settings, pick, signal, observer).catch(
      (err: unknown) => {
        throw selection.wrap(err);
      },
    );
  }

  /** The rejection of a send made while the producer is not running (checked before the message). */
  private refusal(): Promise<never> | undefined {
    if (this.lifecycle.running) return undefined;
    return Promise.reject(
      new IllegalStateError(`producer is ${this.lifecycle.closed ? 'shut down' : 'not started'}`),
    );
  }

  private track(
    kind: SendTraceContext['kind'],
    { prepared, selection, signal }: CheckedSend,
    oneway: boolean,
    span?: SendSpan,
  ): Promise<SendResult | undefined> {
    // A selected queue is never batched with other messages: the batch goes where the batcher picks.
    const lane: BatchLane =
      kind === 'send' && selection === undefined && this.accumulator !== undefined
        ? (prepared.batchLane ?? batchLaneOf(prepared))
        : 'alone';
    this.sends.begun();
    const promise = tracingHasSubscribers(sendChannel)
      ? tracedSend(
          {
            topic: prepared.userTopic,
            producerGroup: this.options.producerGroup,
            kind,
            count: prepared.count,
          },
          () => this.dispatch(prepared, oneway, selection, lane, signal, span),
        )
      : this.dispatch(prepared, oneway, selection, lane, signal, span);
    if (span !== undefined) span.watch(promise, prepared.msgId);
    const trace = this.trace;
    if (trace !== undefined && !oneway && trace.tracer.traces(prepared.topic)) {
      const startedAt = Date.now();
      promise.then(
        (r) => trace.tracer.onSent(prepared, r, startedAt),
        () => {},
      );
    }
    if (lane === 'alone') promise.then(this.onSettled, this.onSettled);
    return promise;
  }
}
