/**
 * The ack path of the SimpleConsumer (docs/protocol.md §13.1, docs/consumers.md §3.8): a message's
 * receipt handle checked (this group's, well-formed, not expired), the ACK_MESSAGE and
 * CHANGE_MESSAGE_INVISIBLETIME requests built from it, their responses interpreted (NO_MESSAGE: the
 * handle is stale), and the new handle a change of invisible time gives the message. Batched acks
 * go through `core/pop-acker.ts`, which this module feeds with checked targets.
 */
import type { ClientInstance } from '../../client/client-instance.js';
import { withoutNamespace, wrapNamespace } from '../../client/namespace.js';
import { InvalidArgumentError, InvalidReceiptHandleError } from '../../errors.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import { AckMessage, ChangeInvisibleTime, ChangeInvisibleTimeResponse } from '../../protocol/headers/pop.js';
import { buildExtraInfo, type ExtraInfo } from '../../protocol/pop/extra-info.js';
import { ackHeaderFields, ackOutcome, checkedHandle, type PopAckTarget } from '../core/pop-acker.js';
import type { PoppedMessage } from './pop-response.js';

/** What the ack path needs of its SimpleConsumer. */
export interface AckPort {
  /** The group as the application names it (a message's `consumerGroup`). */
  readonly consumerGroup: string;
  /** The group on the wire (namespace applied). */
  readonly wireGroup: string;
  readonly namespace: string | undefined;
  readonly timeoutMs: number;
  /** The running instance; IllegalStateError when the consumer is not running. */
  running(): ClientInstance;
  /** A broker's master address; IllegalStateError when none is known. */
  address(brokerName: string): string;
}

/** Acknowledges `message` alone (one ACK_MESSAGE): it is not delivered again. */
export async function ackMessage(
  port: AckPort,
  message: PoppedMessage,
  signal: AbortSignal | undefined,
): Promise<void> {
  await requestFor(port, message, AckMessage.code, (fields) => AckMessage.encode(fields), signal);
}

/**
 * Makes `message` invisible for `invisibleDurationMs` from now (CHANGE_MESSAGE_INVISIBLETIME) and
 * gives it the new receipt handle; the old one is no longer valid.
 */
export async function changeInvisibleTime(
  port: AckPort,
  message: PoppedMessage,
  invisibleDurationMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { info, response } = await requestFor(
    port,
    message,
    ChangeInvisibleTime.code,
    (fields) => ChangeInvisibleTime.encode({ ...fields, invisibleTime: invisibleDurationMs }),
    signal,
  );
  const h = ChangeInvisibleTimeResponse.decode(response.extFields);
  // MQClientAPIImpl#changeInvisibleTimeAsync: the new checkpoint starts at the message itself.
  message.receiptHandle = buildExtraInfo({
    ...info,
    ckQueueOffset: info.msgQueueOffset,
    popTime: h.popTime,
    invisibleTime: h.invisibleTime,
    reviveQid: h.reviveQid,
  });
}

/**
 * The ack target of `message` (core/pop-acker.ts): InvalidArgumentError for something that is not
 * a received message, InvalidReceiptHandleError for another group's.
 */
export function ackTargetOf(port: AckPort, message: PoppedMessage, info?: ExtraInfo): PopAckTarget {
  checkOwnGroup(port, message);
  return {
    receiptHandle: message.receiptHandle,
    wireTopic:
      port.namespace === undefined
        ? message.topic
        : wrapNamespace(port.namespace, withoutNamespace(message.topic, port.namespace)),
    wireGroup: port.wireGroup,
    info,
  };
}

function checkOwnGroup(port: AckPort, message: PoppedMessage): void {
  if (message === null || typeof message !== 'object' || typeof message.receiptHandle !== 'string')
    throw new InvalidArgumentError('message', 'must be a message returned by receive()');
  if (message.consumerGroup !== port.consumerGroup)
    throw new InvalidReceiptHandleError(
      message.receiptHandle,
      `received by consumer group ${String(message.consumerGroup)}, not ${port.consumerGroup}`,
    );
}

/** The handle of `message` checked, then the request `header` builds from its fields, answered. */
async function requestFor(
  port: AckPort,
  message: PoppedMessage,
  code: number,
  header: (fields: ReturnType<typeof ackHeaderFields>) => object,
  signal: AbortSignal | undefined,
): Promise<{ info: ExtraInfo; response: RemotingCommand }> {
  const target = ackTargetOf(port, message);
  const info = checkedHandle(target.receiptHandle, Date.now());
  const instance = port.running();
  const request = createRequest(
    code,
    header(ackHeaderFields(target, info)),
    undefined,
    instance.commandDefaults,
  );
  const address = port.address(info.brokerName);
  const response = await instance.pool.request(address, request, port.timeoutMs, signal);
  return { info, response: ackOutcome(response, target.receiptHandle, info, address, code) };
}
