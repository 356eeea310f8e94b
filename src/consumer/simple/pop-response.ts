/**
 * Turns a POP_MESSAGE FOUND response into messages with receipt handles, as Java's
 * `MQClientAPIImpl#processPopResponse` does (docs/protocol.md §13.1): a record the broker already gave a
 * `POP_CK` (retry-topic messages) keeps it; the others get one built from the response's
 * startOffsetInfo / msgOffsetInfo (key `retryFlag@queueId`, the n-th message of a key takes the
 * n-th offset), or, from a broker that sends none, from the first offset per queue.
 */
import { ProtocolError } from '../../errors.js';
import type { PopMessageResponseHeader } from '../../protocol/headers/pop.js';
import { PropertyKey } from '../../protocol/message/properties.js';
import {
  buildExtraInfo,
  type ExtraInfo,
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  queueKey,
  queueOffsetKey,
  retryFlagOf,
  type RetryFlag,
} from '../../protocol/pop/extra-info.js';
import { recordTopicOf, systemPropertyOf, type ConsumerMessage } from '../core/message-view.js';

/** A message received by POP: a ConsumerMessage with its receipt handle. */
export interface PoppedMessage extends ConsumerMessage {
  /**
   * The receipt handle (`extraInfo`, docs/protocol.md §13.1) that ack and changeInvisibleDuration name.
   * changeInvisibleDuration replaces it; the old one is no longer valid.
   */
  receiptHandle: string;
  /** The consumer group that received it (an ack from another group is refused). */
  readonly consumerGroup: string;
}

/** Receipt handles for `messages` (decoded in body order), parallel to them. */
export function receiptHandles(
  messages: readonly ConsumerMessage[],
  h: PopMessageResponseHeader,
  brokerName: string,
  order: boolean,
): string[] {
  return parsedReceiptHandles(messages, h, brokerName, order).map((r) => r.handle);
}

/**
 * A receipt handle and, when this client built it, its fields (the acker then need not parse it
 * again); a handle the broker gave (POP_CK) comes without them.
 */
export interface ParsedHandle {
  handle: string;
  info: ExtraInfo | undefined;
}

/** `receiptHandles` with each handle's fields. */
export function parsedReceiptHandles(
  messages: readonly ConsumerMessage[],
  h: PopMessageResponseHeader,
  brokerName: string,
  order: boolean,
): ParsedHandle[] {
  const starts = parseStartOffsetInfo(h.startOffsetInfo);
  const offsets = parseMsgOffsetInfo(h.msgOffsetInfo);
  const counts = order ? parseOrderCountInfo(h.orderCountInfo) : undefined;
  const seen = new Map<string, number>();
  const firstOffset = new Map<string, number>();
  return messages.map((m) => {
    const given = systemPropertyOf(m, PropertyKey.POP_CK);
    if (given !== undefined) return { handle: given, info: undefined };
    const flag: RetryFlag = retryFlagOf(recordTopicOf(m));
    const qid = m.queue.queueId;
    const key = queueKey(flag, qid);
    if (h.startOffsetInfo === undefined || h.startOffsetInfo === '') {
      if (!firstOffset.has(key)) firstOffset.set(key, m.queueOffset);
      return built(h, flag, brokerName, qid, firstOffset.get(key)!, m.queueOffset);
    }
    const start = starts.get(key);
    const list = offsets.get(key);
    const i = seen.get(key) ?? 0;
    seen.set(key, i + 1);
    const msgOffset = list?.[i];
    if (start === undefined || msgOffset === undefined)
      throw new ProtocolError(
        `POP response: no start/message offset for ${key} (message ${i}) in ${h.msgOffsetInfo ?? ''}`,
      );
    if (counts !== undefined) {
      const count = counts.get(queueOffsetKey(flag, qid, m.queueOffset)) ?? counts.get(key);
      if (count !== undefined && count > 0) m.reconsumeTimes = count;
    }
    return built(h, flag, brokerName, qid, start, msgOffset);
  });
}

function built(
  h: PopMessageResponseHeader,
  retryFlag: RetryFlag,
  brokerName: string,
  queueId: number,
  ckQueueOffset: number,
  msgQueueOffset: number,
): ParsedHandle {
  const info: ExtraInfo = {
    ckQueueOffset,
    popTime: h.popTime,
    invisibleTime: h.invisibleTime,
    reviveQid: h.reviveQid,
    retryFlag,
    brokerName,
    queueId,
    msgQueueOffset,
  };
  return { handle: buildExtraInfo(info), info };
}
