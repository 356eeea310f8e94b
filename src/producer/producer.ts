/**
 * The public producer: `new Producer(options)`, `start()`, `send()`, `sendOneway()`,
 * `sendBatch()`, `brokerHealth()`, `shutdown()`. Events: 'brokerIsolated', 'brokerRecovered',
 * 'routeUpdated'. Each send is traced on the `rocketmq:send` diagnostics channel.
 */
import { EventEmitter } from 'node:events';
import { IllegalStateError, InvalidArgumentError } from '../errors.js';
import { sendChannel, tracingHasSubscribers } from '../observability/channels.js';
import type { Logger } from '../observability/logger.js';
import { UniqIdGenerator } from '../protocol/message/message-id.js';
import { buildClientId, localClientIp } from '../client/client-id.js';
import type { ClientInstance, RouteUpdatedEvent } from '../client/client-instance.js';
import { acquireClientInstance, releaseClientInstance } from '../client/instance-registry.js';
import { withoutNamespace, wrapNamespace } from '../client/namespace.js';
import { createFaultStrategy } from './fault/index.js';
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
import { ProduceAccumulator } from './auto-batch.js';
import type { SendResult } from './send-result.js';
import type { TopicPublishInfo } from '../client/topic-publish-info.js';
import type { HeartbeatContributor } from '../client/heartbeat.js';
import type { Deadline } from '../client/deadline.js';
import { resolveCommandDefaults, SerializeType } from '../protocol/command.js';
import { loadCompressor } from '../protocol/message/compression.js';

type State = 'CREATED' | 'STARTING' | 'RUNNING' | 'SHUTTING_DOWN' | 'SHUT_DOWN';

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
  private readonly inFlight = new Set<Promise<unknown>>();
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

  constructor(options: ProducerOptions) {
    super();
    this.options = Object.freeze(resolveProducerOptions(options));
    const o = this.options;
    this.logger = o.logger;
    this.clientId = buildClientId(o.clientIP ?? localClientIp(), o.instanceName, o.unitName);
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
    };
    const group = this.loopSettings.producerGroup;
    this.membership = { producerGroups: () => [group] };
    this.transport = {
      publishInfo: (topic, deadline) => this.publishInfo(topic, deadline),
      brokerAddress: (name) => this.requireInstance().routes.masterAddress(name),
      request: (address, cmd, timeoutMs) => this.requireInstance().pool.request(address, cmd, timeoutMs),
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
          (p) => runSend(p, false, this.transport, this.strategy, this.loopSettings) as Promise<SendResult>,
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
    const instance = acquireClientInstance({
      clientId: this.clientId,
      namesrvAddr: o.namesrvAddr,
      namespace: o.namespace,
      language: o.language,
      mqClientApiTimeout: o.mqClientApiTimeout,
      pollNameServerInterval: o.pollNameServerInterval,
      heartbeatBrokerInterval: o.heartbeatBrokerInterval,
      createTopicKey: o.createTopicKey,
      defaultTopicQueueNums: o.defaultTopicQueueNums,
      logger: o.logger,
    });
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
    this.state = 'RUNNING';
    this.logger.info('producer started', {
      group: o.producerGroup,
      clientId: this.clientId,
      strategy: this.strategy.name,
    });
  }

  /** Sends one message; retries per the options; resolves with the SendResult. */
  send(message: Message): Promise<SendResult> {
    return this.track(
      'send',
      () => prepareMessage(message, this.prepareSettings, this.ids),
      false,
    ) as Promise<SendResult>;
  }

  /** Fire and forget: one attempt, resolves when the request is written. */
  async sendOneway(message: Message): Promise<void> {
    await this.track('oneway', () => prepareMessage(message, this.prepareSettings, this.ids), true);
  }

  /** Sends messages of one topic as one SEND_BATCH_MESSAGE (same retry rules as `send`). */
  sendBatch(messages: readonly Message[]): Promise<SendResult> {
    return this.track(
      'batch',
      () => prepareBatch(messages, this.prepareSettings, this.ids),
      false,
    ) as Promise<SendResult>;
  }

  /** Per-broker health as the fault strategy sees it. */
  brokerHealth(): BrokerHealth[] {
    return this.strategy.health();
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
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, this.options.sendMsgTimeout + 500);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    this.strategy.stop();
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

  /** Backpressure first (waiting eats into the send's budget), then the batch or the send loop. */
  private dispatch(
    p: PreparedMessage,
    oneway: boolean,
    kind: SendTraceContext['kind'],
  ): Promise<SendResult | undefined> {
    const bytes = p.body.byteLength;
    const release = (): void => this.permits.release(bytes);
    const waiting = this.permits.acquire(bytes, this.options.sendMsgTimeout);
    if (waiting === undefined) return this.sendNow(p, oneway, kind, this.loopSettings).finally(release);
    const started = Date.now();
    return waiting.then(() => {
      const left = Math.max(1, this.options.sendMsgTimeout - (Date.now() - started));
      return this.sendNow(p, oneway, kind, { ...this.loopSettings, sendMsgTimeout: left }).finally(release);
    });
  }

  private sendNow(
    p: PreparedMessage,
    oneway: boolean,
    kind: SendTraceContext['kind'],
    settings: SendLoopSettings,
  ): Promise<SendResult | undefined> {
    if (kind === 'send' && this.accumulator?.canBatch(p)) return this.accumulator.add(p);
    return runSend(p, oneway, this.transport, this.strategy, settings);
  }

  private track(
    kind: SendTraceContext['kind'],
    prepare: () => PreparedMessage,
    oneway: boolean,
  ): Promise<SendResult | undefined> {
    if (this.state !== 'RUNNING') {
      return Promise.reject(
        new IllegalStateError(`producer is ${this.state === 'CREATED' ? 'not started' : 'shut down'}`),
      );
    }
    let prepared: PreparedMessage;
    try {
      prepared = prepare();
    } catch (err) {
      return Promise.reject(err);
    }
    const run = (): Promise<SendResult | undefined> => this.dispatch(prepared, oneway, kind);
    let promise: Promise<SendResult | undefined>;
    if (tracingHasSubscribers(sendChannel)) {
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
      promise = run();
    }
    this.inFlight.add(promise);
    const done = (): void => {
      this.inFlight.delete(promise);
    };
    promise.then(done, done);
    return promise;
  }
}
