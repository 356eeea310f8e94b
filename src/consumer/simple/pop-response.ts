/**
 * Turns a POP_MESSAGE FOUND response into messages with receipt handles, as Java's
 * `MQClientAPIImpl#processPopResponse` does (docs/protocol.md §13.1): a record the broker already gave a
 * `POP_CK` (retry-topic messages) keeps it; the others get one built from the response's
 * startOffsetInfo / msgOffsetInfo (key `retryFlag@queueId`, the n-th message of a key takes the
 * n-th offset), or, from a broker that sends none, from the first offset per queue.
 */
import { ProtocolError } from '../../errors.js';
import type { PopMessageResponseHeader } from '../../protocol/headers/pop.js';
import {
  type ExtraInfo,
  extraInfoPrefix,
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  queueKey,
  queueOffsetKey,
  retryFlagOf,
  type RetryFlag,
} from '../../protocol/pop/extra-info.js';
import { popFactsOf, type ConsumerMessage, type PopRecordFacts } from '../core/message-view.js';

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

/** Per `retryFlag@queueId` of a response: its start offset, message offsets, and how many were taken. */
interface QueueCursor {
  readonly key: string;
  readonly start: number | undefined;
  readonly offsets: readonly number[] | undefined;
  taken: number;
  /** The handle's fields up to the message offset (extraInfoPrefix): built once per cursor. */
  prefix: string | undefined;
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
  const noStartInfo = h.startOffsetInfo === undefined || h.startOffsetInfo === '';
  const cursors = new Map<string, QueueCursor>();
  // A response's messages of one queue come in a run and share one queue object: the cursor of the
  // previous message is reused, a key built only when the queue or retry flag changes.
  let lastQueue: ConsumerMessage['queue'] | undefined;
  let lastFlag: RetryFlag | undefined;
  let cursor: QueueCursor | undefined;
  const facts: PopRecordFacts = { retryTopic: undefined, popCheckpoint: undefined };
  const out: ParsedHandle[] = new Array<ParsedHandle>(messages.length);
  for (let n = 0; n < messages.length; n++) {
    const m = messages[n]!;
    popFactsOf(m, facts);
    if (facts.popCheckpoint !== undefined) {
      out[n] = { handle: facts.popCheckpoint, info: undefined };
      continue;
    }
    const flag: RetryFlag = facts.retryTopic === undefined ? '0' : retryFlagOf(facts.retryTopic);
    const qid = m.queue.queueId;
    if (cursor === undefined || m.queue !== lastQueue || flag !== lastFlag) {
      const key = queueKey(flag, qid);
      cursor = cursors.get(key);
      if (cursor === undefined) {
        cursor = {
          key,
          start: noStartInfo ? m.queueOffset : starts.get(key),
          offsets: offsets.get(key),
          taken: 0,
          prefix: undefined,
        };
        cursors.set(key, cursor);
      }
      lastQueue = m.queue;
      lastFlag = flag;
    }
    const key = cursor.key;
    // From a broker that sends no offset info: the first offset per queue starts the checkpoint.
    if (noStartInfo) {
      out[n] = built(h, cursor, flag, brokerName, qid, cursor.start!, m.queueOffset);
      continue;
    }
    const i = cursor.taken++;
    const msgOffset = cursor.offsets?.[i];
    if (cursor.start === undefined || msgOffset === undefined)
      throw new ProtocolError(
        `POP response: no start/message offset for ${key} (message ${i}) in ${h.msgOffsetInfo ?? ''}`,
      );
    if (counts !== undefined) {
      const count = counts.get(queueOffsetKey(flag, qid, m.queueOffset)) ?? counts.get(key);
      if (count !== undefined && count > 0) m.reconsumeTimes = count;
    }
    out[n] = built(h, cursor, flag, brokerName, qid, cursor.start, msgOffset);
  }
  return out;
}

function built(
  h: PopMessageResponseHeader,
  cursor: QueueCursor,
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
  // Seven of the eight fields are the queue's: built once, not once per message (a fifth of the
  // bytes a POP drain allocated were these strings).
  // A cursor's checkpoint start, queue, retry flag and POP fields never change.
  cursor.prefix ??= extraInfoPrefix(info);
  return { handle: cursor.prefix + String(msgQueueOffset), info };
}
