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
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  queueKey,
  queueOffsetKey,
  retryFlagOf,
  type RetryFlag,
} from '../../protocol/pop/extra-info.js';
import type { ConsumerMessage } from '../core/message-view.js';

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
  const starts = parseStartOffsetInfo(h.startOffsetInfo);
  const offsets = parseMsgOffsetInfo(h.msgOffsetInfo);
  const counts = order ? parseOrderCountInfo(h.orderCountInfo) : undefined;
  const seen = new Map<string, number>();
  const firstOffset = new Map<string, number>();
  return messages.map((m) => {
    const given = m.systemProperties[PropertyKey.POP_CK];
    if (given !== undefined) return given;
    const flag: RetryFlag = retryFlagOf(m.topic);
    const qid = m.queue.queueId;
    const key = queueKey(flag, qid);
    const base = {
      popTime: h.popTime,
      invisibleTime: h.invisibleTime,
      reviveQid: h.reviveQid,
      retryFlag: flag,
      brokerName,
      queueId: qid,
    };
    if (h.startOffsetInfo === undefined || h.startOffsetInfo === '') {
      if (!firstOffset.has(key)) firstOffset.set(key, m.queueOffset);
      return buildExtraInfo({ ...base, ckQueueOffset: firstOffset.get(key)!, msgQueueOffset: m.queueOffset });
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
    return buildExtraInfo({ ...base, ckQueueOffset: start, msgQueueOffset: msgOffset });
  });
}
