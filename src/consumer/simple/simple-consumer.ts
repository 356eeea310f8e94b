/**
 * SimpleConsumer: RocketMQ 5 POP consumption over remoting (docs/consumers.md §3).
 * No rebalance and no offsets on the client: `receive` pops from every queue of one broker of a
 * subscribed topic (queueId −1, round robin over topics and brokers), with long polling; each
 * message carries a receipt handle for `ack` and `changeInvisibleDuration`. A message not acked
 * within its invisible time comes back (reconsumeTimes + 1); the broker moves it to the DLQ after
 * its maximum of retries. `fifo: true` pops orderly.
 */
import { Deadline } from '../../client/deadline.js';
import type { ClientInstance } from '../../client/client-instance.js';
import { buildClientId, localClientIp } from '../../client/client-id.js';
import { acquireClientInstance, releaseClientInstance } from '../../client/instance-registry.js';
import { withoutNamespace, wrapNamespace } from '../../client/namespace.js';
import { BrokerResponseError, IllegalStateError, InvalidArgumentError, ProtocolError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { ResponseCode, responseCodeName } from '../../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import {
  AckMessage,
  ChangeInvisibleTime,
  ChangeInvisibleTimeResponse,
  ConsumeInitMode,
  Notification,
  POP_MAX_MSG_NUMS,
  PopMessage,
  PopMessageResponse,
} from '../../protocol/headers/pop.js';
import { buildExtraInfo, parseExtraInfo, realTopic, type ExtraInfo } from '../../protocol/pop/extra-info.js';
import { PropertyKey } from '../../protocol/message/properties.js';
import { consumerClientOf } from '../core/client-port.js';
import { decodePullBody } from '../core/message-view.js';
import { SendBack } from '../core/send-back.js';
import { InvalidReceiptHandleError, PopNotSupportedError } from './pop-errors.js';
import { receiptHandles, type PoppedMessage } from './pop-response.js';
import {
  checkDuration,
  resolveSimpleConsumerOptions,
  type ResolvedSimpleConsumerOptions,
  type SimpleConsumerOptions,
} from './options.js';

/** Java `PullAPIWrapper#popAsync`: the RPC waits the poll time plus this. */
const POP_RPC_EXTRA_MS = 10_000;

type State = 'CREATED' | 'STARTING' | 'RUNNING' | 'SHUT_DOWN';

/** One place `receive` can pop from: a subscribed topic on one broker. */
interface Target {
  userTopic: string;
  wireTopic: string;
  expression: string;
  brokerName: string;
}

export class SimpleConsumer {
  readonly options: Readonly<ResolvedSimpleConsumerOptions>;
  readonly clientId: string;
  private readonly logger: Logger;
  private readonly wireGroup: string;
  private instance: ClientInstance | undefined;
  private sendBack: SendBack | undefined;
  private state: State = 'CREATED';
  private next = 0;

  constructor(options: SimpleConsumerOptions) {
    this.options = Object.freeze(resolveSimpleConsumerOptions(options));
    this.logger = this.options.logger;
    this.clientId = buildClientId(localClientIp(), this.options.instanceName);
    this.wireGroup = wrapNamespace(this.options.namespace, this.options.consumerGroup);
  }

  get consumerGroup(): string {
    return this.options.consumerGroup;
  }

  /**
   * Looks up the routes of every subscribed topic and asks each of their brokers whether it
   * speaks POP (a NOTIFICATION with no wait: a 4.x broker answers REQUEST_CODE_NOT_SUPPORTED),
   * failing fast with PopNotSupportedError.
   */
  async start(): Promise<void> {
    if (this.state !== 'CREATED') throw new IllegalStateError(`consumer is ${this.state.toLowerCase()}`);
    this.state = 'STARTING';
    const o = this.options;
    const instance = acquireClientInstance({
      clientId: this.clientId,
      namesrvAddr: o.namesrvAddr,
      namespace: o.namespace,
      language: 'JAVA',
      mqClientApiTimeout: o.mqClientApiTimeout,
      pollNameServerInterval: o.pollNameServerInterval,
      heartbeatBrokerInterval: o.heartbeatBrokerInterval,
      logger: o.logger,
      createTopicKey: 'TBW102',
      defaultTopicQueueNums: 4,
      connection: o.connection,
    });
    this.instance = instance;
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
    try {
      for (const t of this.wireTopics()) instance.routes.pin(t);
      const targets = await this.targets();
      const probed = new Set<string>();
      for (const t of targets) {
        if (probed.has(t.brokerName)) continue;
        probed.add(t.brokerName);
        await this.probe(t);
      }
      this.state = 'RUNNING';
    } catch (err) {
      await this.release();
      this.state = 'SHUT_DOWN';
      throw err;
    }
    this.logger.info('simple consumer started', { group: o.consumerGroup, clientId: this.clientId });
  }

  private wireTopics(): string[] {
    return Object.keys(this.options.subscriptions).map((t) => wrapNamespace(this.options.namespace, t));
  }

  private running(): ClientInstance {
    if (this.state !== 'RUNNING' && this.state !== 'STARTING')
      throw new IllegalStateError(`consumer is not running (${this.state})`);
    return this.instance!;
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

  private async probe(t: Target): Promise<void> {
    const instance = this.running();
    const address = this.address(t.brokerName);
    const request = createRequest(
      Notification.code,
      Notification.encode({
        consumerGroup: this.wireGroup,
        topic: t.wireTopic,
        queueId: -1,
        pollTime: 0,
        bornTime: Date.now(),
        order: this.options.fifo,
        bname: t.brokerName,
      }),
      undefined,
      instance.commandDefaults,
    );
    const response = await instance.pool.request(address, request, this.options.mqClientApiTimeout);
    if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED)
      throw new PopNotSupportedError(t.brokerName, address);
  }

  /**
   * Pops up to `maxMessages` (1–32) messages from the next subscribed topic/broker, waiting up to
   * `awaitDuration` for one to arrive; they stay invisible to every consumer of the group for
   * `invisibleDurationMs`. Resolves to [] when none came.
   */
  async receive(
    maxMessages: number,
    invisibleDurationMs = this.options.invisibleDuration,
  ): Promise<PoppedMessage[]> {
    checkReceiveArgs(maxMessages, invisibleDurationMs);
    const instance = this.running();
    const targets = await this.targets();
    if (targets.length === 0) return [];
    const t = targets[this.next++ % targets.length]!;
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
        order: this.options.fifo,
        bname: t.brokerName,
      }),
      undefined,
      instance.commandDefaults,
    );
    let response: RemotingCommand;
    try {
      response = await instance.pool.request(address, request, pollTime + POP_RPC_EXTRA_MS);
    } catch (err) {
      if (this.state === 'SHUT_DOWN') return [];
      throw err;
    }
    switch (response.code) {
      case ResponseCode.SUCCESS:
        return this.withoutDeadLetters(this.messagesOf(response, t));
      case ResponseCode.POLLING_TIMEOUT:
      case ResponseCode.PULL_NOT_FOUND:
        return [];
      case ResponseCode.POLLING_FULL:
        this.logger.warn('POP polling full', { broker: t.brokerName, topic: t.wireTopic });
        return [];
      case ResponseCode.REQUEST_CODE_NOT_SUPPORTED:
        throw new PopNotSupportedError(t.brokerName, address);
      default:
        throw responseError(response, address);
    }
  }

  private messagesOf(response: RemotingCommand, t: Target): PoppedMessage[] {
    const header = PopMessageResponse.decode(response.extFields);
    const decoded = decodePullBody(response.body ?? new Uint8Array(0), {
      queue: { topic: t.wireTopic, brokerName: t.brokerName, queueId: -1 },
      consumerGroup: this.wireGroup,
      namespace: this.options.namespace,
    });
    const handles = receiptHandles(decoded, header, t.brokerName, this.options.fifo);
    return decoded.map((m, i) => {
      m.systemProperties[PropertyKey.FIRST_POP_TIME] ??= String(header.popTime);
      // Java sets the request's topic on every message (retry messages included).
      // Own properties on the pulled view itself: a spread would drop its lazy fields (msgId, …).
      return Object.defineProperties(m, {
        topic: { value: t.userTopic, enumerable: true },
        receiptHandle: { value: handles[i]!, writable: true, enumerable: true },
        consumerGroup: { value: this.options.consumerGroup, enumerable: true },
      }) as PoppedMessage;
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
        await this.ack(m).catch((err: unknown) =>
          this.logger.warn('ack after DLQ failed', { msgId: m.msgId, error: err }),
        );
      }
    }
    return keep;
  }

  /** The handle of `message`, checked: this group's, well-formed, not expired. */
  private handleOf(message: PoppedMessage, now: number): ExtraInfo {
    if (message === null || typeof message !== 'object' || typeof message.receiptHandle !== 'string')
      throw new InvalidArgumentError('message', 'must be a message returned by receive()');
    const handle = message.receiptHandle;
    if (message.consumerGroup !== this.options.consumerGroup)
      throw new InvalidReceiptHandleError(
        handle,
        `received by consumer group ${String(message.consumerGroup)}, not ${this.options.consumerGroup}`,
      );
    let info: ExtraInfo;
    try {
      info = parseExtraInfo(handle);
    } catch (err) {
      if (err instanceof ProtocolError)
        throw new InvalidReceiptHandleError(handle, err.message, { cause: err });
      throw err;
    }
    if (info.popTime + info.invisibleTime <= now)
      throw new InvalidReceiptHandleError(
        handle,
        `expired ${now - info.popTime - info.invisibleTime} ms ago; the message will be delivered again`,
      );
    return info;
  }

  /** The ack / change-invisible header fields of a handle (docs/protocol.md §13.1). */
  private target(message: PoppedMessage, info: ExtraInfo) {
    const wireTopic = wrapNamespace(
      this.options.namespace,
      withoutNamespace(message.topic, this.options.namespace),
    );
    return {
      consumerGroup: this.wireGroup,
      topic: realTopic(info, wireTopic, this.wireGroup),
      queueId: info.queueId,
      extraInfo: message.receiptHandle,
      offset: info.msgQueueOffset,
      bname: info.brokerName,
    };
  }

  private async call(info: ExtraInfo, request: RemotingCommand, handle: string): Promise<RemotingCommand> {
    const instance = this.running();
    const address = this.address(info.brokerName);
    const response = await instance.pool.request(address, request, this.options.mqClientApiTimeout);
    if (response.code === ResponseCode.SUCCESS) return response;
    if (response.code === ResponseCode.NO_MESSAGE)
      throw new InvalidReceiptHandleError(
        handle,
        `the broker has no un-acked message for it: ${response.remark ?? ''}`,
      );
    if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED)
      throw new PopNotSupportedError(info.brokerName, address);
    throw responseError(response, address);
  }

  /** Acknowledges `message`: it is not delivered again. */
  async ack(message: PoppedMessage): Promise<void> {
    const info = this.handleOf(message, Date.now());
    const instance = this.running();
    const request = createRequest(
      AckMessage.code,
      AckMessage.encode(this.target(message, info)),
      undefined,
      instance.commandDefaults,
    );
    await this.call(info, request, message.receiptHandle);
  }

  /**
   * Makes `message` invisible for `invisibleDurationMs` from now (longer processing, or sooner
   * redelivery). Its `receiptHandle` is replaced; the old one is no longer valid.
   */
  async changeInvisibleDuration(message: PoppedMessage, invisibleDurationMs: number): Promise<PoppedMessage> {
    checkDuration('invisibleDurationMs', invisibleDurationMs, 1);
    const info = this.handleOf(message, Date.now());
    const instance = this.running();
    const request = createRequest(
      ChangeInvisibleTime.code,
      ChangeInvisibleTime.encode({ ...this.target(message, info), invisibleTime: invisibleDurationMs }),
      undefined,
      instance.commandDefaults,
    );
    const response = await this.call(info, request, message.receiptHandle);
    const h = ChangeInvisibleTimeResponse.decode(response.extFields);
    // MQClientAPIImpl#changeInvisibleTimeAsync: the new checkpoint starts at the message itself.
    message.receiptHandle = buildExtraInfo({
      ...info,
      ckQueueOffset: info.msgQueueOffset,
      popTime: h.popTime,
      invisibleTime: h.invisibleTime,
      reviveQid: h.reviveQid,
    });
    return message;
  }

  private async release(): Promise<void> {
    const instance = this.instance;
    this.instance = undefined;
    if (!instance) return;
    for (const t of this.wireTopics()) instance.routes.unpin(t);
    await releaseClientInstance(instance);
  }

  /** Stops; messages received and not acked come back after their invisible time. */
  async shutdown(): Promise<void> {
    if (this.state === 'SHUT_DOWN') return;
    this.state = 'SHUT_DOWN';
    await this.release();
    this.logger.info('simple consumer shut down', { group: this.options.consumerGroup });
  }
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
  checkDuration('invisibleDurationMs', invisibleDurationMs, 1);
}

function responseError(response: RemotingCommand, address: string): BrokerResponseError {
  return new BrokerResponseError(response.code, responseCodeName(response.code), response.remark, address);
}
