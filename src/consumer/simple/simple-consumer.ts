/**
 * SimpleConsumer: RocketMQ 5 POP consumption over remoting (docs/consumers.md §3).
 * No rebalance and no offsets on the client: `receive` pops from every queue of one broker of a
 * subscribed topic (queueId −1; the topic and broker with the fewest POPs out first: pop-targets.ts),
 * with long polling (pop-request.ts); each
 * message carries a receipt handle for `ack` and `changeInvisibleDuration` (ack.ts). A message not acked
 * within its invisible time comes back (reconsumeTimes + 1); the broker moves it to the DLQ after
 * its maximum of retries (dead-letters.ts). `fifo: true` pops orderly; unset, the group's `consumeMessageOrderly` decides. `for await (const m of consumer)` receives,
 * yields and acks (iterate.ts); every call that waits takes `{ signal }` (remoting/abort.ts), and
 * an aborted receive's POP is parked so its messages are not lost (parked-pops.ts). States:
 * client/lifecycle.ts; events (docs/events.md): 'routeUpdated', 'connect', 'disconnect',
 * 'deadLetterFailed'.
 */
import { EventEmitter } from 'node:events';
import type { ClientInstance } from '../../client/client-instance.js';
import { clientIdOf, clientInstanceConfig } from '../../client/client-options.js';
import { acquireClientInstance, releaseClientInstance } from '../../client/instance-registry.js';
import { forwardInstanceEvents, type ClientInstanceEvents } from '../../client/instance-events.js';
import { Lifecycle, type LifecycleState, type StartStep } from '../../client/lifecycle.js';
import { keyList } from '../../options.js';
import { wrapNamespace } from '../../client/namespace.js';
import { IllegalStateError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { consumerClientOf } from '../core/client-port.js';
import { SendBack } from '../core/send-back.js';
import type { PoppedMessage } from './pop-response.js';
import { popFrom, type PopPort } from './pop-request.js';
import { PopTargets } from './pop-targets.js';
import { withoutDeadLetters, type DeadLetterPort, type DeadLetterFailedEvent } from './dead-letters.js';
import { ackMessages, checkNotAcked, settle, settledOf, Settled } from './batched-ack.js';
import { AbortError } from '../../errors/abort.js';
import { raceAbort, signalOf, throwIfAborted, type CallOptions } from '../../remoting/abort.js';
import { ParkedPops } from './parked-pops.js';
import { probePop } from './probe.js';
import { HeldMessages } from './held.js';
import { popLag, type PopQueueLag } from './lag.js';
import { joinPopGroup, leavePopGroup, type PopMember } from './running-info.js';
import { buildSubscriptionData } from '../core/subscription.js';
import { changeInvisibleTime, type AckPort } from './ack.js';
import { PopAcker } from '../core/pop-acker.js';
import { PopSlots } from './pop-slots.js';
import { ConsumeTelemetry } from '../core/consume-telemetry.js';
import { clientTelemetry } from '../../observability/otel/api.js';
import { ConsumerOperation } from '../../observability/otel/attributes.js';
import { checkMessagesOptions, iterateMessages, type SimpleConsumerMessagesOptions } from './iterate.js';
import {
  checkInvisibleDuration,
  checkReceiveArgs,
  resolveSimpleConsumerOptions,
  type ResolvedSimpleConsumerOptions,
  type SimpleConsumerOptions,
} from './options.js';

export type { DeadLetterFailedEvent } from './dead-letters.js';
/** Kept here too: the public index and callers import it with the consumer. */
export { checkReceiveArgs } from './options.js';

/** docs/events.md: routeUpdated, connect, disconnect come from the client instance. */
export interface SimpleConsumerEvents extends ClientInstanceEvents {
  deadLetterFailed: [DeadLetterFailedEvent];
}

/** Every event a SimpleConsumer emits; docs/events.md lists the same. */
export const SIMPLE_CONSUMER_EVENTS = keyList<SimpleConsumerEvents>({
  routeUpdated: true,
  connect: true,
  disconnect: true,
  deadLetterFailed: true,
});

export class SimpleConsumer extends EventEmitter<SimpleConsumerEvents> {
  readonly options: Readonly<ResolvedSimpleConsumerOptions>;
  readonly clientId: string;
  private readonly logger: Logger;
  private readonly wireGroup: string;
  private instance: ClientInstance | undefined;
  private sendBack: SendBack | undefined;
  private readonly lifecycle = new Lifecycle('simple consumer', {
    start: (step) => this.open(step),
    stop: () => this.release(),
  });
  private stopForwarding: (() => void) | undefined;
  /** POPs of aborted receives and the messages they brought (parked-pops.ts). */
  private readonly parked: ParkedPops;
  /** Received and not settled: this consumer's own in-flight count (held.ts). */
  private readonly held = new HeldMessages();
  /** Where the POPs go, fewest in flight first, and whether each broker pops orderly (pop-targets.ts). */
  private readonly targets: PopTargets;
  /** When start() finished (ms); 0 before. */
  private startTimestamp = 0;
  /** This consumer in its group's heartbeat and running-info entry (running-info.ts). */
  private readonly member: PopMember;
  /** What ack and changeInvisibleDuration need of this consumer (ack.ts). */
  private readonly ackPort: AckPort;
  /** Batches the acks (core/pop-acker.ts). */
  private readonly acker: PopAcker;
  /** What a POP needs of this consumer (pop-request.ts). */
  private readonly popPort: PopPort;
  /** What the DLQ rule needs of this consumer (dead-letters.ts). */
  private readonly deadLetters: DeadLetterPort;
  /** The bound on POPs in flight (`maxInFlightPops`). */
  private readonly popSlots: PopSlots;
  /** OpenTelemetry of this start (core/consume-telemetry.ts); undefined when off. */
  private telemetry: ConsumeTelemetry | undefined;

  constructor(options: SimpleConsumerOptions) {
    super();
    this.options = Object.freeze(resolveSimpleConsumerOptions(options));
    this.logger = this.options.logger;
    this.parked = new ParkedPops(this.logger);
    this.clientId = clientIdOf(this.options);
    this.wireGroup = wrapNamespace(this.options.namespace, this.options.consumerGroup);
    this.member = {
      options: this.options,
      held: this.held,
      startTimestamp: () => this.startTimestamp,
      subscriptionData: () =>
        Object.entries(this.options.subscriptions).map(([topic, expression]) =>
          buildSubscriptionData(wrapNamespace(this.options.namespace, topic), expression),
        ),
    };
    this.ackPort = {
      consumerGroup: this.options.consumerGroup,
      wireGroup: this.wireGroup,
      namespace: this.options.namespace,
      timeoutMs: this.options.mqClientApiTimeout,
      running: () => this.running(),
      address: (brokerName) => this.address(brokerName),
    };
    this.acker = new PopAcker(this.ackPort);
    this.targets = new PopTargets({
      options: this.options,
      wireGroup: this.wireGroup,
      logger: this.logger,
      running: () => this.running(),
    });
    this.popPort = {
      consumerGroup: this.options.consumerGroup,
      wireGroup: this.wireGroup,
      namespace: this.options.namespace,
      pollTimeMs: this.options.awaitDuration,
      logger: this.logger,
      closed: () => this.lifecycle.closed,
    };
    this.deadLetters = {
      maxReconsumeTimes: this.options.maxReconsumeTimes,
      logger: this.logger,
      toDeadLetterQueue: (m) => this.sendBack!.sendBack(m, -1),
      ack: (m) => this.ack(m),
      failed: (event) => this.emit('deadLetterFailed', event),
    };
    this.popSlots = new PopSlots(this.options.maxInFlightPops);
  }

  /**
   * The telemetry when something records (an SDK's tracer or meter provider): with the API alone
   * a span per receive and ack would record nothing, and showed in a drain's profile (traceReceive, operationLabels: a few % of its client CPU).
   */
  private recording(): ConsumeTelemetry | undefined {
    const telemetry = this.telemetry;
    return telemetry !== undefined && telemetry.enabled() ? telemetry : undefined;
  }

  /** Requests the acks took so far, by kind (BATCH_ACK_MESSAGE or ACK_MESSAGE): for benchmarks and tests. */
  get ackRequests(): Readonly<{ ack: number; batchAck: number }> {
    return { ...this.acker.sent };
  }

  get consumerGroup(): string {
    return this.options.consumerGroup;
  }

  /** CREATED → STARTING → RUNNING → STOPPING → STOPPED (client/lifecycle.ts). */
  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /**
   * Looks up the routes of every subscribed topic and asks each of their brokers whether it
   * speaks POP (a NOTIFICATION with no wait: a 4.x broker answers REQUEST_CODE_NOT_SUPPORTED),
   * failing fast with PopNotSupportedError. A failed start leaves nothing open and may be
   * retried; a second call while starting returns the same promise (client/lifecycle.ts).
   */
  start(): Promise<void> {
    return this.lifecycle.start();
  }

  private async open(step: StartStep): Promise<void> {
    const o = this.options;
    const instance = acquireClientInstance(clientInstanceConfig(o, this.clientId));
    this.instance = instance;
    this.stopForwarding = forwardInstanceEvents(instance, this, o.namespace);
    this.sendBack = new SendBack(
      consumerClientOf(instance, o.mqClientApiTimeout),
      {
        group: this.wireGroup,
        namespace: o.namespace,
        maxReconsumeTimes: o.maxReconsumeTimes,
        unitMode: false,
        timeoutMs: o.mqClientApiTimeout,
      },
      this.logger,
    );
    for (const t of this.wireTopics()) instance.routes.pin(t);
    const targets = await step(this.targets.all());
    const probed = new Set<string>();
    for (const t of targets) {
      if (probed.has(t.brokerName)) continue;
      probed.add(t.brokerName);
      await step(probePop(this.running(), this.address(t.brokerName), t, this.options, this.wireGroup));
      await step(this.targets.orderOf(t.brokerName));
    }
    this.startTimestamp = Date.now();
    const otel = clientTelemetry(o.openTelemetry);
    if (otel !== undefined)
      this.telemetry = new ConsumeTelemetry(otel, {
        consumerGroup: o.consumerGroup,
        clientId: this.clientId,
        namespace: o.namespace,
      });
    joinPopGroup(instance, this.wireGroup, this.member);
    this.logger.info('simple consumer started', { group: o.consumerGroup, clientId: this.clientId });
  }

  private wireTopics(): string[] {
    return Object.keys(this.options.subscriptions).map((t) => wrapNamespace(this.options.namespace, t));
  }

  private running(): ClientInstance {
    const instance = this.instance;
    // The start's own requests come here while STARTING.
    if (!this.lifecycle.active || instance === undefined)
      throw new IllegalStateError(`consumer is not running (${this.lifecycle.state})`);
    return instance;
  }

  private address(brokerName: string): string {
    const address = this.running().routes.masterAddress(brokerName);
    if (address === undefined)
      throw new IllegalStateError(`no master address known for broker ${brokerName}`);
    return address;
  }

  /**
   * Pops up to `maxMessages` (1–32) messages from the next subscribed topic/broker, waiting up to
   * `awaitDuration` for one to arrive; they stay invisible to every consumer of the group for
   * `invisibleDurationMs`. Resolves to [] when none came.
   *
   * `options.signal` aborts the wait (AbortError). A POP already sent is parked, not dropped:
   * the next `receive` waits on it instead of sending another, or returns the messages it
   * brought meanwhile first (parked-pops.ts), so an abort loses no message to its invisible time.
   * Such messages carry the invisible time their POP asked for.
   */
  receive(
    maxMessages: number,
    invisibleDurationMs = this.options.invisibleDuration,
    options?: CallOptions,
  ): Promise<PoppedMessage[]> {
    const telemetry = this.recording();
    if (telemetry === undefined) return this.receiveMessages(maxMessages, invisibleDurationMs, options);
    const topics = Object.keys(this.options.subscriptions);
    return telemetry.traceReceive(topics.length === 1 ? topics[0] : undefined, true, () =>
      this.receiveMessages(maxMessages, invisibleDurationMs, options),
    );
  }

  private async receiveMessages(
    maxMessages: number,
    invisibleDurationMs: number,
    options: CallOptions | undefined,
  ): Promise<PoppedMessage[]> {
    checkReceiveArgs(maxMessages, invisibleDurationMs);
    const signal = signalOf(options);
    throwIfAborted(signal, 'receive');
    this.running();
    const kept = this.parked.take(maxMessages);
    if (kept.length > 0) return kept;
    const pop = this.parked.adopt() ?? (await this.boundedPop(maxMessages, invisibleDurationMs, signal)).pop;
    let messages: PoppedMessage[];
    try {
      messages = await raceAbort(pop, signal, 'receive');
    } catch (err) {
      if (err instanceof AbortError) this.parked.park(pop);
      throw err;
    }
    return this.parked.trim(messages, maxMessages);
  }

  /** `pop` in one of the `maxInFlightPops` slots, waiting for a slot first. */
  private async boundedPop(
    maxMessages: number,
    invisibleDurationMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ pop: Promise<PoppedMessage[]> }> {
    await this.popSlots.acquire(signal);
    const pop = this.pop(maxMessages, invisibleDurationMs, signal);
    this.popSlots.holdUntilSettled(pop);
    return { pop };
  }

  /** One POP (the wait of `receive`); sends nothing when `signal` aborted during the route lookup. */
  private async pop(
    maxMessages: number,
    invisibleDurationMs: number,
    signal: AbortSignal | undefined,
  ): Promise<PoppedMessage[]> {
    const instance = this.running();
    const target = await this.targets.take();
    if (target === undefined) return [];
    let popped: PoppedMessage[];
    try {
      if (signal?.aborted === true) return [];
      const order = await this.targets.orderOf(target.brokerName);
      const address = this.address(target.brokerName);
      popped = await popFrom(this.popPort, instance, address, {
        target,
        order,
        maxMessages,
        invisibleDurationMs,
      });
    } finally {
      this.targets.settled(target);
    }
    if (popped.length === 0) return popped;
    const messages = await withoutDeadLetters(this.deadLetters, popped);
    this.held.add(messages, invisibleDurationMs);
    return messages;
  }

  /**
   * Acknowledges `message`, or every message of an array: they are not delivered again. Acks
   * asked for together (one array, or calls in the same turn of the event loop) go as one
   * BATCH_ACK_MESSAGE per broker, merged per checkpoint (docs/consumers.md §3.8). A message this
   * consumer already acked, one of another group and one whose invisible time is over are refused
   * (InvalidReceiptHandleError) without a request. An array rejects with AckFailedError naming
   * each message not acked and why; the others were acked. `options.signal` aborts the wait for
   * the broker's answer (AbortError): the ack may or may not have been applied.
   */
  ack(message: PoppedMessage | readonly PoppedMessage[], options?: CallOptions): Promise<void> {
    const telemetry = this.recording();
    if (telemetry === undefined) return this.ackMessages(message, options);
    return telemetry.traceSettle(ConsumerOperation.ACK, settledList(message), () =>
      this.ackMessages(message, options),
    );
  }

  private async ackMessages(
    message: PoppedMessage | readonly PoppedMessage[],
    options: CallOptions | undefined,
  ): Promise<void> {
    const signal = signalOf(options);
    throwIfAborted(signal, 'ack');
    const acked = Array.isArray(message) ? (message as readonly PoppedMessage[]) : [message as PoppedMessage];
    try {
      await raceAbort(ackMessages(this.ackPort, this.acker, message), signal, 'ack');
    } finally {
      for (const m of acked) if (settledOf(m) === Settled.ACKED) this.held.settle(m);
    }
  }

  /**
   * Makes `message` invisible for `invisibleDurationMs` from now (longer processing, or sooner
   * redelivery). Its `receiptHandle` is replaced; the old one is no longer valid.
   * `options.signal` aborts the wait (AbortError); the handle is then unchanged, though the
   * broker may have applied the change.
   */
  changeInvisibleDuration(
    message: PoppedMessage,
    invisibleDurationMs: number,
    options?: CallOptions,
  ): Promise<PoppedMessage> {
    const telemetry = this.recording();
    if (telemetry === undefined) return this.changeInvisible(message, invisibleDurationMs, options);
    return telemetry.traceSettle(ConsumerOperation.CHANGE_INVISIBLE_DURATION, settledList(message), () =>
      this.changeInvisible(message, invisibleDurationMs, options),
    );
  }

  private async changeInvisible(
    message: PoppedMessage,
    invisibleDurationMs: number,
    options: CallOptions | undefined,
  ): Promise<PoppedMessage> {
    checkInvisibleDuration(invisibleDurationMs);
    const signal = signalOf(options);
    throwIfAborted(signal, 'changeInvisibleDuration');
    if (message !== null && typeof message === 'object') checkNotAcked(message);
    await changeInvisibleTime(this.ackPort, message, invisibleDurationMs, signal);
    settle(message, Settled.CHANGED);
    this.held.extend(message, invisibleDurationMs);
    return message;
  }

  /**
   * Per queue of every subscribed topic (and its POP retry topic) on every broker serving it:
   * the group's backlog (not yet handed out), in-flight count (handed out, not acked) and their
   * sum (lag.ts, docs/consumers.md §3.6). `options.signal` aborts it (AbortError).
   */
  async lag(options?: CallOptions): Promise<PopQueueLag[]> {
    const signal = signalOf(options);
    throwIfAborted(signal, 'lag');
    const instance = this.running();
    const targets = await this.targets.all();
    return popLag(
      {
        client: consumerClientOf(instance, this.options.mqClientApiTimeout),
        wireGroup: this.wireGroup,
        namespace: this.options.namespace,
        timeoutMs: this.options.mqClientApiTimeout,
        held: this.held,
      },
      targets,
      signal,
    );
  }

  /**
   * The received messages one at a time (iterate.ts): each is acked when the loop asks for the
   * next, unless the body acked it or changed its invisible duration; the one a loop breaks or
   * throws on is not acked. Ends when the consumer shuts down, or with AbortError when
   * `options.signal` aborts.
   */
  messages(options?: SimpleConsumerMessagesOptions): AsyncGenerator<PoppedMessage, void, undefined> {
    const checked = checkMessagesOptions(options);
    checkReceiveArgs(checked.maxMessages, checked.invisibleDurationMs ?? this.options.invisibleDuration);
    return iterateMessages(
      {
        running: () => this.state === 'RUNNING',
        logger: this.logger,
        receive: (max, invisible, o) => this.receive(max, invisible, o),
        ack: (m) => this.ack(m),
        settledByCaller: (m) => settledOf(m) !== Settled.OPEN,
        giveBack: (messages) => this.parked.keep(messages),
      },
      checked,
    );
  }

  /** `for await (const message of consumer)`: `messages()` with its defaults. */
  [Symbol.asyncIterator](): AsyncGenerator<PoppedMessage, void, undefined> {
    return this.messages();
  }

  /** The stop work: also after a failed or cancelled start. */
  private async release(): Promise<void> {
    const instance = this.instance;
    this.instance = undefined;
    this.sendBack = undefined;
    this.parked.clear();
    this.targets.clear();
    this.held.clear();
    this.telemetry?.close();
    this.telemetry = undefined;
    if (instance !== undefined) {
      await leavePopGroup(instance, this.wireGroup, this.member);
      for (const t of this.wireTopics()) instance.routes.unpin(t);
      await releaseClientInstance(instance);
    }
    // After the release: the closing connections' 'disconnect' events still reach the application.
    this.stopForwarding?.();
    this.stopForwarding = undefined;
    if (instance === undefined) return;
    this.logger.info('simple consumer shut down', { group: this.options.consumerGroup });
  }

  /**
   * Stops; messages received and not acked come back after their invisible time. During start()
   * it cancels the start (StartCancelledError); later calls return the first call's promise.
   */
  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }
}

/** The messages an ack or change names, for its span (a bad argument is refused later, by the call). */
function settledList(message: unknown): PoppedMessage[] {
  const list: unknown[] = Array.isArray(message) ? message : [message];
  return list.filter((m): m is PoppedMessage => m !== null && typeof m === 'object');
}
