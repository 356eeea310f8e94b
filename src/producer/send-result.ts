/** SendResult and the interpretation of a send response (docs/protocol.md §3.2–§3.3). */
import { errorFromResponse } from '../client/response-error.js';
import { ResponseCode } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';
import { DEFAULT_REGION_ID, SendMessageResponse } from '../protocol/headers/send.js';
import type { MessageQueue } from '../client/route.js';
import type { PreparedMessage } from './message.js';

export type SendStatus = 'SEND_OK' | 'FLUSH_DISK_TIMEOUT' | 'FLUSH_SLAVE_TIMEOUT' | 'SLAVE_NOT_AVAILABLE';

export interface SendResult {
  status: SendStatus;
  /** Client id (UNIQ_KEY); comma-joined for a batch. */
  msgId: string;
  /** Broker id: store host + commit-log offset (comma-joined for a batch). */
  offsetMsgId: string;
  messageQueue: MessageQueue;
  /** Consume-queue offset (of the first message for a batch). */
  queueOffset: number;
  regionId: string;
  traceOn: boolean;
  transactionId?: string;
  /**
   * [5.x 5.3.2+] For a single timer send (`deliverAt` / `deliverAfterMs`) to a broker that
   * issues one: pass it to `producer.recallMessage` to cancel the delivery before its time.
   * Never set for batches or delay levels.
   */
  recallHandle?: string;
}

const STATUS_BY_CODE: ReadonlyMap<number, SendStatus> = new Map([
  [ResponseCode.SUCCESS, 'SEND_OK'],
  [ResponseCode.FLUSH_DISK_TIMEOUT, 'FLUSH_DISK_TIMEOUT'],
  [ResponseCode.FLUSH_SLAVE_TIMEOUT, 'FLUSH_SLAVE_TIMEOUT'],
  [ResponseCode.SLAVE_NOT_AVAILABLE, 'SLAVE_NOT_AVAILABLE'],
]);

/**
 * The result for the four stored statuses; any other code throws BrokerResponseError
 * (`retriable` when the code is in `retryCodes`).
 */
export function interpretSendResponse(
  response: RemotingCommand,
  p: PreparedMessage,
  mq: MessageQueue,
  address: string,
  retryCodes: ReadonlySet<number>,
): SendResult {
  const status = STATUS_BY_CODE.get(response.code);
  if (status === undefined) {
    throw errorFromResponse(response, {
      address,
      retriable: retryCodes.has(response.code),
      permission: 'PUB',
      topic: p.userTopic,
    });
  }
  // ProtocolError when msgId/queueId/queueOffset is missing or malformed.
  const h = SendMessageResponse.decode(response.extFields);
  const result: SendResult = {
    status,
    msgId: p.msgId,
    offsetMsgId: h.msgId,
    messageQueue: { topic: p.userTopic, brokerName: mq.brokerName, queueId: h.queueId },
    queueOffset: h.queueOffset,
    regionId: h.regionId ?? DEFAULT_REGION_ID,
    traceOn: h.traceOn ?? true,
  };
  if (h.transactionId !== undefined) result.transactionId = h.transactionId;
  if (h.recallHandle !== undefined) result.recallHandle = h.recallHandle;
  return result;
}
