/**
 * SimpleConsumer: RocketMQ 5 POP consumption over remoting (docs/consumers.md §3).
 * No rebalance and no offsets on the client: `receive` pops from every queue of one broker of a
 * subscribed topic (queueId −1, round robin over topics and brokers), with long polling; each
 * message carries a receipt handle for `ack` and `changeInvisibleDuration` (ack.ts). A message not acked
 * within its invisible time comes back (reconsumeTimes + 1); the broker moves it to the DLQ after
 * its maximum of retries. `fifo: true` pops orderly; unset, the group's `consumeMessageOrderly` decides. `for await (const m of consumer)` receives,
 * yields and acks (iterate.ts); every call that waits takes `{ signal }` (remoting/abort.ts), and
 * an aborted receive's POP is parked so its messages are not lost (parked-pops.ts). States:
 * client/lifecycle.ts; events (docs/events.md): 'routeUpdated', 'connect', 'disconnect',
 * 'deadLetterFailed'.
 */
import { EventEmitter } from 'node:events';
import { Deadline } from '../../client/deadline.js';
import type { ClientInstance } from '../../client/client-instance.js';
import { clientIdOf, clientInstanceConfig } from '../../client/client-options.js';
import { acquireClientInstance, releaseClientInstance } from '../../client/instance-registry.js';
import { forwardInstanceEvents, type ClientInstanceEvents } from '../../client/instance-events.js';
import { Lifecycle, type LifecycleState, type StartStep } from '../../client/lifecycle.js';
import { keyList } from '../../options.js';
import { wrapNamespace } from '../../client/namespace.js';
import { IllegalStateError, InvalidArgumentError, PopNotSupportedError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { ResponseCode } from '../../protocol/codes.js';
import { errorFromResponse } from '../../client/response-error.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import {
  ConsumeInitMode,
  POP_MAX_MSG_NUMS,
  PopMessage,
  PopMessageResponse,
} from '../../protocol/headers/pop.js';
import { consumerClientOf } from '../core/client-port.js';
import { decodePullBody, markPopped } from '../core/message-view.js';
import { groupConsumesOrderly } from '../core/broker-queries.js';
import { SendBack } from '../core/send-back.js';
import { parsedReceiptHandles, type PoppedMessage } from './pop-response.js';
import { ackMessages, checkNotAcked, markReceived, settle, settledOf, Settled } from './batched-ack.js';
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
  checkDuration,
  MAX_INVISIBLE_DURATION_MS,
  resolveSimpleConsumerOptions,
  type ResolvedSimpleConsumerOptions,
  type SimpleConsumerOptions,
} from './options.js';

/** Java `PullAPIWrapper#popAsync`: the RPC waits the poll time plus this. */
const POP_RPC_EXTRA_MS = 10_000;

/**
 * A message redelivered more than maxReconsumeTimes could not be moved to the DLQ (`error`
 * undefined: the broker refused the send-back, see the log) or not acked after it; it stays
 * un-acked and comes back after its invisible time.
 */
export interface DeadLetterFailedEvent {
  message: PoppedMessage;
  error: unknown;
}

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

/** One place `receive` can pop from: a subscribed topic on one broker. */
interface Target {
  userTopic: string;
  wireTopic: string;
  expression: string;
  brokerName: string;
}

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
  private next = 0;
  /** POPs of aborted receives and the messages they brought (parked-pops.ts). */
  private readonly parked: ParkedPops;
  /** Received and not settled: this consumer's own in-flight count (held.ts). */
  private readonly held = new HeldMessages();
  /** Per broker: does the group pop orderly there (`fifo` unset: the group's config decides). */
  private readonly orderly = new Map<string, boolean>();
  /** When start() finished (ms); 0 before. */
  private startTimestamp = 0;
  /** This consumer in its group's heartbeat and running-info entry (running-info.ts). */
  private readonly member: PopMember;
  /** What ack and changeInvisibleDuration need of this consumer (ack.ts). */
  private readonly ackPort: AckPort;
  /** Batches the acks (core/pop-acker.ts). */
  private readonly acker: PopAcker;
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
    this.popSlots = new PopSlots(this.options.maxInFlightPops);
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
    const targets = await step(this.targets());
    const probed = new Set<string>();
    for (const t of targets) {
      if (probed.has(t.brokerName)) continue;
      probed.add(t.brokerName);
      await step(probePop(this.running(), this.address(t.brokerName), t, this.options, this.wireGroup));
      await step(this.orderOf(t.brokerName));
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

  /** Topic × broker pairs with readable queues, sorted, from the current routes. */
  private async targets(): Promise<Target[]> {
    const instance = this.running();
    const out: Target[] = [];
    for (const [userTopic, expression] of Object.entries(this.options.subscriptions)) {
      const wireTopic = wrapNamespace(this.options.namespace, userTopic);
      const queues = await instance.routes.subscribeQueues(
        wireTopic,
        Deadline.after(this.options.mqClientApiTimeout),
      );
      for (const brokerName of [...new Set(queues.map((q) => q.brokerName))].sort())
        out.push({ userTopic, wireTopic, expression, brokerName });
    }
    return out;
  }

  private address(brokerName: string): string {
    const address = this.running().routes.masterAddress(brokerName);
    if (address === undefined)
      throw new IllegalStateError(`no master address known for broker ${brokerName}`);
    return address;
  }

  /**
   * Whether POPs of `brokerName` are orderly: `fifo` when set, else the group's
   * `consumeMessageOrderly` there (GET_SUBSCRIPTIONGROUP_CONFIG, as the 5.x Proxy decides; false
   * when the broker cannot say), asked once per broker.
   */
  private async orderOf(brokerName: string): Promise<boolean> {
    if (this.options.fifo !== undefined) return this.options.fifo;
    const known = this.orderly.get(brokerName);
    if (known !== undefined) return known;
    const said = await groupConsumesOrderly(
      consumerClientOf(this.running(), this.options.mqClientApiTimeout),
      brokerName,
      this.wireGroup,
      this.options.mqClientApiTimeout,
    );
    if (said === undefined)
      this.logger.info('broker does not tell whether the group is orderly: POP unordered', {
        broker: brokerName,
        group: this.options.consumerGroup,
      });
    this.orderly.set(brokerName, said ?? false);
    return said ?? false;
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
    const telemetry = this.telemetry;
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
    const targets = await this.targets();
    if (targets.length === 0 || signal?.aborted === true) return [];
    const t = targets[this.next++ % targets.length]!;
    const order = await this.orderOf(t.brokerName);
    const address = this.address(t.brokerName);
    const pollTime = this.options.awaitDuration;
    const request = createRequest(
      PopMessage.code,
      PopMessage.encode({
        consumerGroup: this.wireGroup,
        topic: t.wireTopic,
        queueId: -1,
        maxMsgNums: maxMessages,
        invisibleTime: invisibleDurationMs,
        pollTime,
        bornTime: Date.now(),
        initMode: ConsumeInitMode.MAX,
        expType: 'TAG',
        exp: t.expression,
        order,
        bname: t.brokerName,
      }),
      undefined,
      instance.commandDefaults,
    );
    let response: RemotingCommand;
    try {
      response = await instance.pool.request(address, request, pollTime + POP_RPC_EXTRA_MS);
    } catch (err) {
      if (this.lifecycle.closed) return [];
      throw err;
    }
    switch (response.code) {
      case ResponseCode.SUCCESS: {
        const messages = await this.withoutDeadLetters(this.messagesOf(response, t, order));
        this.held.add(messages, invisibleDurationMs);
        return messages;
      }
      case ResponseCode.POLLING_TIMEOUT:
      case ResponseCode.PULL_NOT_FOUND:
        return [];
      case ResponseCode.POLLING_FULL:
        this.logger.warn('POP polling full', { broker: t.brokerName, topic: t.wireTopic });
        return [];
      case ResponseCode.REQUEST_CODE_NOT_SUPPORTED:
        throw new PopNotSupportedError(t.brokerName, address);
      default:
        throw errorFromResponse(response, { address, permission: 'SUB', requestCode: request.code });
    }
  }

  private messagesOf(response: RemotingCommand, t: Target, order: boolean): PoppedMessage[] {
    const header = PopMessageResponse.decode(response.extFields);
    const decoded = decodePullBody(response.body ?? new Uint8Array(0), {
      queue: { topic: t.wireTopic, brokerName: t.brokerName, queueId: -1 },
      consumerGroup: this.wireGroup,
      namespace: this.options.namespace,
    });
    const handles = parsedReceiptHandles(decoded, header, t.brokerName, order);
    const group = this.options.consumerGroup;
    // Java sets the request's topic on every message (retry messages included): an own property of
    // the view (a spread keeps it), from one descriptor per response. The other fields are set the
    // same way in the same order on every message, so they share one shape (a defineProperties
    // of three fresh descriptors per message cost 5 % of a drain).
    const topic = { value: t.userTopic, enumerable: true };
    return decoded.map((m, i) => {
      markPopped(m, header.popTime);
      Object.defineProperty(m, 'topic', topic);
      return markReceived(m, handles[i]!, group);
    });
  }

  /**
   * The gRPC proxy's `PopMessageResultFilterImpl` rule, here because a broker reached over
   * remoting has none: a message redelivered more than maxReconsumeTimes times goes to the DLQ
   * (CONSUMER_SEND_MSG_BACK, delay level −1) and is acked. One the DLQ send fails for stays
   * un-acked and comes back.
   */
  private async withoutDeadLetters(messages: PoppedMessage[]): Promise<PoppedMessage[]> {
    const max = this.options.maxReconsumeTimes;
    const keep: PoppedMessage[] = [];
    for (const m of messages) {
      if (m.reconsumeTimes <= max) {
        keep.push(m);
        continue;
      }
      if (await this.sendBack!.sendBack(m, -1)) {
        this.logger.info('message moved to the DLQ', { msgId: m.msgId, reconsumeTimes: m.reconsumeTimes });
        await this.ack(m).catch((err: unknown) => {
          this.logger.warn('ack after DLQ failed', { msgId: m.msgId, error: err });
          this.emit('deadLetterFailed', { message: m, error: err });
        });
      } else this.emit('deadLetterFailed', { message: m, error: undefined });
    }
    return keep;
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
    const telemetry = this.telemetry;
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
    const telemetry = this.telemetry;
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
    const targets = await this.targets();
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
    this.orderly.clear();
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

/** receive()'s arguments; InvalidArgumentError naming the bad one. */
export function checkReceiveArgs(maxMessages: unknown, invisibleDurationMs: unknown): void {
  if (
    typeof maxMessages !== 'number' ||
    !Number.isInteger(maxMessages) ||
    maxMessages < 1 ||
    maxMessages > POP_MAX_MSG_NUMS
  )
    throw new InvalidArgumentError(
      'maxMessages',
      `must be an integer in [1, ${POP_MAX_MSG_NUMS}], got ${String(maxMessages)}`,
    );
  checkInvisibleDuration(invisibleDurationMs);
}

/** An invisible duration: 1 ms to 12 h (the 5.x proxy's `maxInvisibleTimeMills`). */
function checkInvisibleDuration(invisibleDurationMs: unknown): void {
  checkDuration('invisibleDurationMs', invisibleDurationMs, 1, MAX_INVISIBLE_DURATION_MS);
}
