/**
 * The ack path of the SimpleConsumer (docs/protocol.md §13.1): a message's receipt handle checked
 * (this group's, well-formed, not expired), the ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME
 * requests built from it, their responses interpreted (NO_MESSAGE: the handle is stale), and the
 * new handle a change of invisible time gives the message.
 */
import type { ClientInstance } from '../../client/client-instance.js';
import { withoutNamespace, wrapNamespace } from '../../client/namespace.js';
import { errorFromResponse } from '../../client/response-error.js';
import {
  InvalidArgumentError,
  InvalidReceiptHandleError,
  PopNotSupportedError,
  ProtocolError,
} from '../../errors.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import { AckMessage, ChangeInvisibleTime, ChangeInvisibleTimeResponse } from '../../protocol/headers/pop.js';
import { buildExtraInfo, parseExtraInfo, realTopic, type ExtraInfo } from '../../protocol/pop/extra-info.js';
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

/** Acknowledges `message` (ACK_MESSAGE): it is not delivered again. */
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

/** The handle of `message` checked, then the request `header` builds from its fields, answered. */
async function requestFor(
  port: AckPort,
  message: PoppedMessage,
  code: number,
  header: (fields: AckFields) => object,
  signal: AbortSignal | undefined,
): Promise<{ info: ExtraInfo; response: RemotingCommand }> {
  const info = handleOf(port, message, Date.now());
  const instance = port.running();
  const request = createRequest(
    code,
    header(ackFields(port, message, info)),
    undefined,
    instance.commandDefaults,
  );
  return { info, response: await call(port, info, request, message.receiptHandle, signal) };
}

/** The handle of `message`, checked: this group's, well-formed, not expired. */
function handleOf(port: AckPort, message: PoppedMessage, now: number): ExtraInfo {
  if (message === null || typeof message !== 'object' || typeof message.receiptHandle !== 'string')
    throw new InvalidArgumentError('message', 'must be a message returned by receive()');
  const handle = message.receiptHandle;
  if (message.consumerGroup !== port.consumerGroup)
    throw new InvalidReceiptHandleError(
      handle,
      `received by consumer group ${String(message.consumerGroup)}, not ${port.consumerGroup}`,
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

/** The header fields ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME share. */
type AckFields = ReturnType<typeof ackFields>;

/** The ack / change-invisible header fields of a handle (docs/protocol.md §13.1). */
function ackFields(port: AckPort, message: PoppedMessage, info: ExtraInfo) {
  const wireTopic = wrapNamespace(port.namespace, withoutNamespace(message.topic, port.namespace));
  return {
    consumerGroup: port.wireGroup,
    topic: realTopic(info, wireTopic, port.wireGroup),
    queueId: info.queueId,
    extraInfo: message.receiptHandle,
    offset: info.msgQueueOffset,
    bname: info.brokerName,
  };
}

async function call(
  port: AckPort,
  info: ExtraInfo,
  request: RemotingCommand,
  handle: string,
  signal: AbortSignal | undefined,
): Promise<RemotingCommand> {
  const instance = port.running();
  const address = port.address(info.brokerName);
  const response = await instance.pool.request(address, request, port.timeoutMs, signal);
  if (response.code === ResponseCode.SUCCESS) return response;
  if (response.code === ResponseCode.NO_MESSAGE)
    throw new InvalidReceiptHandleError(
      handle,
      `the broker has no un-acked message for it: ${response.remark ?? ''}`,
    );
  if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED)
    throw new PopNotSupportedError(info.brokerName, address);
  throw errorFromResponse(response, { address, requestCode: request.code });
}
