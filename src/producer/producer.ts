/**
 * The public producer: `new Producer(options)`, `start()`, `send()`, `sendOneway()`,
 * `sendBatch()`, `brokerHealth()`, `shutdown()`. Events: 'brokerIsolated', 'brokerRecovered',
 * 'routeUpdated', 'hedgedDuplicate'. Each send is traced on the `rocketmq:send` diagnostics channel.
 */
import { EventEmitter } from 'node:events';
import { IllegalStateError, InvalidArgumentError } from '../errors.js';
import { sendChannel, tracingHasSubscribers } from '../observability/channels.js';
import type { Logger } from '../observability/logger.js';
import { UniqIdGenerator } from '../protocol/message/message-id.js';
import type { ClientInstance, RouteUpdatedEvent } from '../client/client-instance.js';
import { clientIdOf, clientInstanceConfig } from '../client/client-options.js';
import { acquireClientInstance, releaseClientInstance } from '../client/instance-registry.js';
import { withoutNamespace, wrapNamespace } from '../client/namespace.js';
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
import {
  prepareBatch,
  prepareMessage,
  type Message,
  type PreparedMessage,
  type PrepareSettings,
} from './message.js';
import { resolveProducerOptions, type ProducerOptions, type ResolvedProducerOptions } from './options.js';
import { runSend, type SendLoopSettings, type SendTransport } from './send-loop.js';
import { TimerSupport } from './timer.js';
import { SendPermits } from './backpressure.js';
import { batchLaneOf, ProduceAccumulator, type BatchLane } from './auto-batch.js';
import type { SendResult } from './send-result.js';
import type { TopicPublishInfo } from '../client/topic-publish-info.js';
import type { HeartbeatContributor } from '../client/heartbeat.js';
import type { Deadline } from '../client/deadline.js';
import { resolveCommandDefaults, SerializeType } from '../protocol/command.js';
import { loadCompressor } from '../protocol/message/compression.js';
import { queueSelection, type QueueSelection, type SendOptions } from './queue-select.js';
import { sendRequest } from './request-reply.js';

type State = 'CREATED' | 'STARTING' | 'RUNNING' | 'SHUTTING_DOWN' | 'SHUT_DOWN';

const unchanged = (p: PreparedMessage): PreparedMessage => p;

/** One UNIQ_KEY generator per process, as Java's static `MessageClientIDSetter`. */
let sharedIds: UniqIdGenerator | undefined;

/** Context object published on `rocketmq:send`. */
export interface SendTraceContext {
  topic: string;
  producerGroup: string;
  kind: 'send' | 'oneway' | 'batch';
  count: number;
  result?: SendResult | undefined;
  error?: unknown;
}

export interface ProducerEvents {
  brokerIsolated: [BrokerIsolatedEvent];
  brokerRecovered: [BrokerRecoveredEvent];
  routeUpdated: [RouteUpdatedEvent];
  /** A hedged send was stored twice (same msgId on two brokers): consumers may see it twice. */
  hedgedDuplicate: [HedgedDuplicateEvent];
}

export class Producer extends EventEmitter<ProducerEvents> {
  /** Resolved options (defaults applied). */
  readonly options: Readonly<ResolvedProducerOptions>;
  private state: State = 'CREATED';
  private instance: ClientInstance | undefined;
  private readonly strategy: LatencyFaultStrategy;
  private readonly logger: Logger;
  /** This producer's part of the instance's heartbeat. */
  private readonly membership: HeartbeatContributor;
  /** Sends not settled yet (shutdown waits for them) and who waits for the count to reach 0. */
  private inFlight = 0;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly onSettled = (): void => {
    if (--this.inFlight === 0 && this.idleWaiters.length > 0)
      for (const wake of this.idleWaiters.splice(0)) wake();
  };
  private readonly loopSettings: SendLoopSettings;
  private readonly prepareSettings: PrepareSettings;
  private readonly transport: SendTransport;
  private readonly timerSupport: TimerSupport;
  private readonly permits: SendPermits;
  private readonly accumulator: ProduceAccumulator | undefined;
  private readonly onRouteUpdated = (e: RouteUpdatedEvent): void => {
    this.emit('routeUpdated', { ...e, topic: withoutNamespace(e.topic, this.options.namespace) });
  };
  private readonly ids: UniqIdGenerator;
  /** Message trace (`enableMsgTrace`): the dispatcher and its Pub hook. */
  private readonly trace: { dispatcher: TraceDispatcher; tracer: SendTracer } | undefined;

  constructor(options: ProducerOptions) {
    super();
    this.options = Object.freeze(resolveProducerOptions(options));
    const o = this.options;
    this.logger = o.logger;
    this.clientId = clientIdOf(o);
    this.ids = sharedIds ??= new UniqIdGenerator();
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
    this.transport = {
      publishInfo: (topic, deadline) => this.publishInfo(topic, deadline),
      brokerAddress: (name) => this.requireInstance().routes.masterAddress(name),
      request: (address, cmd, timeoutMs) => this.requireInstance().masterRequest(address, cmd, timeoutMs),
      oneway: (address, cmd, timeoutMs) => this.requireInstance().pool.oneway(address, cmd, timeoutMs),
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
          (p, timeoutMs) =>
            runSend(p, false, this.transport, this.strategy, {
              ...this.loopSettings,
              sendMsgTimeout: timeoutMs,
            }) as Promise<SendResult>,
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

  async start(): Promise<void> {
    if (this.state !== 'CREATED') throw new IllegalStateError(`producer cannot start in state ${this.state}`);
    this.state = 'STARTING';
    const o = this.options;
    try {
      await loadCompressor(o.compressType);
    } catch (err) {
      this.state = 'CREATED';
      throw err;
    }
    const instance = acquireClientInstance(clientInstanceConfig(o, this.clientId, o));
    if (!instance.heartbeat.register(this.membership)) {
      await releaseClientInstance(instance);
      this.state = 'CREATED';
      throw new IllegalStateError(
        `producer group ${o.producerGroup} is already started in client ${this.clientId}; use another group or instanceName`,
      );
    }
    this.instance = instance;
    if (instance.config.logger !== o.logger) {
      this.logger.info(
        'sharing a client instance created by another producer: its route, heartbeat and connection logs go to that producer’s logger',
        { clientId: this.clientId, group: o.producerGroup },
      );
    }
    instance.routes.on('routeUpdated', this.onRouteUpdated);
    this.strategy.start();
    if (this.trace !== undefined) {
      // As Java: a trace producer that cannot start costs the traces, not the producer.
      await this.trace.dispatcher.start().catch((err: unknown) =>
        this.logger.warn('message trace producer did not start; sends are not traced', {
          error: err instanceof Error ? err.message : String(err),
        }),
      );
    }
    this.state = 'RUNNING';
    this.logger.info('producer started', {
      group: o.producerGroup,
      clientId: this.clientId,
      strategy: this.strategy.name,
    });
  }

  /**
   * Sends one message; retries per the options; resolves with the SendResult. With
   * `options.queue`, `shardingKey` or `selector` it makes one attempt on that queue only
   * (queue-select.ts).
   */
  send(message: Message, options?: SendOptions): Promise<SendResult> {
    return this.sendWith(message, unchanged, options);
  }

  /** Fire and forget: one attempt, resolves when the request is written. */
  async sendOneway(message: Message, options?: SendOptions): Promise<void> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    const selection = queueSelection(options, message, this.options.namespace);
    const prepared = prepareMessage(message, this.prepareSettings, this.ids);
    await this.track('oneway', prepared, true, selection);
  }

  /**
   * Request-reply (RIP-16): sends `message` with CORRELATION_ID / REPLY_TO_CLIENT / TTL and
   * resolves with the reply a responder sends back (request-reply.ts).
   */
  request(message: Message, timeoutMs: number): ReturnType<typeof sendRequest> {
    return sendRequest(this, message, timeoutMs);
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
  ): Promise<SendResult> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    let selection: QueueSelection | undefined;
    let prepared: PreparedMessage;
    try {
      selection = queueSelection(options, message, this.options.namespace);
      prepared = prepareMessage(message, this.prepareSettings, this.ids);
      // An adjusted message has properties prepareMessage did not write: autoBatch reads them.
      if (adjust !== unchanged)
        prepared = { ...adjust(prepared), batchLane: undefined, propertiesHead: undefined };
    } catch (err) {
      return Promise.reject(err);
    }
    return this.track('send', prepared, false, selection) as Promise<SendResult>;
  }

  /**
   * The running client instance (connections, routes, inbound table) for the mechanisms built
   * on this producer.
   * @internal
   */
  get client(): ClientInstance {
    return this.requireInstance();
  }

  /** Sends messages of one topic as one SEND_BATCH_MESSAGE (same retry rules as `send`). */
  sendBatch(messages: readonly Message[]): Promise<SendResult> {
    const refused = this.refusal();
    if (refused !== undefined) return refused;
    let prepared: PreparedMessage;
    try {
      prepared = prepareBatch(messages, this.prepareSettings, this.ids);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.track('batch', prepared, false, undefined) as Promise<SendResult>;
  }

  /**
   * Per-broker health as the fault strategy sees it, with the hedging counters (`hedged`,
   * `hedgedDuplicates`) when `hedgeSends` is on.
   */
  brokerHealth(): (BrokerHealth & Partial<BrokerHedgeStats>)[] {
    const health: (BrokerHealth & Partial<BrokerHedgeStats>)[] = this.strategy.health();
    const hedger = this.loopSettings.hedger;
    if (hedger === undefined) return health;
    const out = health.map((h) => ({ ...h, ...hedger.stats(h.brokerName) }));
    // A strategy without per-broker state (none) still shows the brokers that hedged.
    for (const name of hedger.brokers()) {
      if (!out.some((h) => h.brokerName === name))
        out.push({
          brokerName: name,
          isolated: false,
          latencyMs: 0,
          failures: 0,
          reachable: true,
          ...hedger.stats(name),
        });
    }
    return out;
  }

  /** Message trace counters (`enableMsgTrace`); undefined when tracing is off. */
  traceStats(): TraceStats | undefined {
    return this.trace?.dispatcher.stats();
  }

  /**
   * Stops accepting sends, waits for in-flight sends (at most sendMsgTimeout + 500 ms),
   * unregisters from the brokers and releases the client instance (closing its sockets when
   * no other producer uses it). Idempotent.
   */
  async shutdown(): Promise<void> {
    if (this.state === 'SHUT_DOWN' || this.state === 'SHUTTING_DOWN') return;
    if (this.state === 'CREATED') {
      this.state = 'SHUT_DOWN';
      return;
    }
    this.state = 'SHUTTING_DOWN';
    this.accumulator?.flushAll();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, this.options.sendMsgTimeout + 500);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    this.strategy.stop();
    await this.trace?.dispatcher.shutdown();
    const instance = this.instance;
    if (instance) {
      instance.routes.off('routeUpdated', this.onRouteUpdated);
      await instance.heartbeat.unregister(this.membership);
      await releaseClientInstance(instance);
    }
    this.instance = undefined;
    this.state = 'SHUT_DOWN';
    this.logger.info('producer shut down', { group: this.options.producerGroup });
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
  ): Promise<SendResult | undefined> {
    // `length` is a Uint8Array's byteLength; V8 11 inlines it, byteLength is a getter call.
    const bytes = p.body.length;
    const waiting = this.permits.acquire(bytes, this.options.sendMsgTimeout);
    const accumulator = lane === 'alone' ? undefined : this.accumulator;
    if (waiting === undefined) {
      if (accumulator !== undefined) return accumulator.add(p, this.options.sendMsgTimeout, lane);
      return this.releasing(this.sendNow(p, oneway, this.loopSettings, selection), bytes);
    }
    const started = Date.now();
    return waiting.then(
      () => {
        const left = Math.max(1, this.options.sendMsgTimeout - (Date.now() - started));
        if (accumulator !== undefined) return accumulator.add(p, left, lane);
        const settings = { ...this.loopSettings, sendMsgTimeout: left };
        return this.releasing(this.sendNow(p, oneway, settings, selection), bytes);
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
  ): Promise<SendResult | undefined> {
    if (selection === undefined) return runSend(p, oneway, this.transport, this.strategy, settings);
    return runSend(p, oneway, this.transport, this.strategy, settings, (tp) => selection.pick(tp)).catch(
      (err: unknown) => {
        throw selection.wrap(err);
      },
    );
  }

  /** The rejection of a send made while the producer is not running (checked before the message). */
  private refusal(): Promise<never> | undefined {
    if (this.state === 'RUNNING') return undefined;
    return Promise.reject(
      new IllegalStateError(`producer is ${this.state === 'CREATED' ? 'not started' : 'shut down'}`),
    );
  }

  private track(
    kind: SendTraceContext['kind'],
    prepared: PreparedMessage,
    oneway: boolean,
    selection: QueueSelection | undefined,
  ): Promise<SendResult | undefined> {
    // A selected queue is never batched with other messages: the batch goes where the batcher picks.
    const lane: BatchLane =
      kind === 'send' && selection === undefined && this.accumulator !== undefined
        ? (prepared.batchLane ?? batchLaneOf(prepared))
        : 'alone';
    this.inFlight++;
    let promise: Promise<SendResult | undefined>;
    if (tracingHasSubscribers(sendChannel)) {
      const run = (): Promise<SendResult | undefined> => this.dispatch(prepared, oneway, selection, lane);
      const ctx: SendTraceContext = {
        topic: prepared.userTopic,
        producerGroup: this.options.producerGroup,
        kind,
        count: prepared.count,
      };
      promise = sendChannel.tracePromise(async () => {
        const r = await run();
        ctx.result = r;
        return r;
      }, ctx);
    } else {
      promise = this.dispatch(prepared, oneway, selection, lane);
    }
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
