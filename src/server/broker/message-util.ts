/** Small helpers shared by processors: hosts, property edits, store-status mapping. */
import { ResponseCode } from '../../protocol/codes.js';
import {
  decodeProperties,
  encodeProperties,
  NAME_VALUE_SEPARATOR,
  PropertyKey,
} from '../../protocol/message/properties.js';
import type { DecodedStoredMessage, SocketAddress } from '../../protocol/message/stored-message.js';
import { transactionValue, MessageSysFlag } from '../../protocol/message/sysflag.js';
import { SystemTopic } from '../../protocol/validation.js';
import type { Logger } from '../../observability/logger.js';
import type { MessageToStore, PutResult, PutStatus } from '../store/types.js';

const DELAY_ENTRY = PropertyKey.DELAY + NAME_VALUE_SEPARATOR;

/** "1.2.3.4:567" or "[::1]:567" → SocketAddress; unparseable → 127.0.0.1:0. */
export function parseSocketAddress(text: string): SocketAddress {
  const i = text.lastIndexOf(':');
  if (i <= 0) return { address: '127.0.0.1', port: 0 };
  let host = text.slice(0, i);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.startsWith('::ffff:') && host.includes('.')) host = host.slice(7);
  const port = Number(text.slice(i + 1));
  return { address: host, port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 0 };
}

export interface PutStatusResponse {
  code: number;
  remark?: string;
}

/** Store status → response code (docs/protocol.md §3.5 step 6). */
export function putStatusToResponse(status: PutStatus, error?: Error): PutStatusResponse {
  switch (status) {
    case 'PUT_OK':
      return { code: ResponseCode.SUCCESS };
    case 'FLUSH_DISK_TIMEOUT':
      return { code: ResponseCode.FLUSH_DISK_TIMEOUT };
    case 'MESSAGE_ILLEGAL':
    case 'PROPERTIES_SIZE_EXCEEDED':
      return {
        code: ResponseCode.MESSAGE_ILLEGAL,
        remark:
          `the message is illegal, maybe msg body or properties length not matched. ${error?.message ?? ''}`.trim(),
      };
    case 'SERVICE_NOT_AVAILABLE':
      return {
        code: ResponseCode.SERVICE_NOT_AVAILABLE,
        remark: `service not available now. ${error?.message ?? ''}`.trim(),
      };
    default:
      return { code: ResponseCode.SYSTEM_ERROR, remark: `UNKNOWN_ERROR ${error?.message ?? ''}`.trim() };
  }
}

/**
 * Java CommitLog's delay rewrite: a message with DELAY > 0 (and not a prepared or rolled-back
 * transaction) is stored under SCHEDULE_TOPIC_XXXX, queue level − 1, with REAL_TOPIC/REAL_QID.
 */
export function applyDelayLevel(msg: MessageToStore, levelCount: number): MessageToStore {
  const tran = transactionValue(msg.sysFlag);
  if (tran !== MessageSysFlag.TRANSACTION_NOT_TYPE && tran !== MessageSysFlag.TRANSACTION_COMMIT_TYPE)
    return msg;
  // Every send passes here: without the key's text there is nothing to decode.
  if (!msg.properties.includes(DELAY_ENTRY)) return msg;
  const props = decodeProperties(msg.properties);
  const raw = props[PropertyKey.DELAY];
  if (raw === undefined) return msg;
  let level = Number.parseInt(raw, 10);
  if (!Number.isFinite(level) || level <= 0) return msg;
  if (level > levelCount) {
    level = levelCount;
    props[PropertyKey.DELAY] = String(level);
  }
  props[PropertyKey.REAL_TOPIC] = msg.topic;
  props[PropertyKey.REAL_QID] = String(msg.queueId);
  return {
    ...msg,
    topic: SystemTopic.RMQ_SYS_SCHEDULE_TOPIC,
    queueId: level - 1,
    properties: encodeProperties(props),
  };
}

/**
 * A parked message (delay level or timer) back to the topic and queue it was sent to, with
 * `props` (edited by the caller) as its properties; undefined when there is no REAL_TOPIC.
 */
export function toRealTopic(
  msg: DecodedStoredMessage,
  props: Record<string, string>,
  realTopic: string | undefined,
  realQid: number,
  storeHost: SocketAddress,
): MessageToStore | undefined {
  if (realTopic === undefined) return undefined;
  return {
    topic: realTopic,
    queueId: Number.isInteger(realQid) && realQid >= 0 ? realQid : 0,
    flag: msg.flag,
    sysFlag: msg.sysFlag,
    bornTimestamp: msg.bornTimestamp,
    bornHost: msg.bornHost,
    storeHost,
    reconsumeTimes: msg.reconsumeTimes,
    preparedTransactionOffset: msg.preparedTransactionOffset,
    body: msg.body,
    properties: encodeProperties(props),
  };
}

/**
 * Store refusals no retry can cure: the message itself is wrong (a topic the store cannot hold,
 * properties over the limit). A parked message refused so is skipped, not retried forever,
 * or it would stall every message queued behind it (docs/security.md §7).
 */
export function isPermanentRefusal(status: PutStatus): boolean {
  return status === 'MESSAGE_ILLEGAL' || status === 'PROPERTIES_SIZE_EXCEEDED';
}

/**
 * The log line for a parked message skipped for good: where it stays (its queue and offset, so
 * it can still be read by offset or id), where it was going and why the store refused it.
 */
export function logSkippedMessage(
  logger: Logger,
  where: string,
  msg: DecodedStoredMessage,
  target: MessageToStore,
  result: Pick<PutResult, 'status' | 'error'>,
): void {
  logger.warn(`${where}: a message that can never be delivered is skipped`, {
    parkedIn: `${msg.topic}:${msg.queueId}@${msg.queueOffset}`,
    commitLogOffset: msg.physicalOffset,
    topic: target.topic,
    queueId: target.queueId,
    status: result.status,
    error: result.error,
  });
}
