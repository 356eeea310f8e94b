/**
 * Where a queue a consumer takes starts reading (Java `RebalancePushImpl#computePullFromWhere`,
 * docs/consumers.md §1.5): the group's stored offset, else `consumeFromWhere`.
 *
 * Deviation, CONSUME_FROM_LAST_OFFSET: Java starts a queue without a stored offset at its end.
 * That replays nothing (the Apache issues about LAST_OFFSET replaying history), but it also
 * skips what was sent after the consumer subscribed whenever the queue is taken later than the
 * send: a topic created by its first message after the consumer subscribed, a queue given to
 * this member by a later rebalance, a retried route. Here "last offset" means "no history from
 * before I subscribed": such a queue starts at the first message stored at or after the
 * subscription time (SEARCH_OFFSET_BY_TIMESTAMP), and its first pulls drop what is older still,
 * because a 4.9 broker's search answers the *nearest* message, which may be the one before.
 *
 * Clock skew: the store time is the broker's clock, the subscription time the client's. We take
 * no margin either way. A client ahead of its broker by δ skips what was sent in the first δ
 * after subscribing; one behind replays up to δ of history. A margin would turn the rare case
 * (unsynchronised clocks) into the common one: every new group on a busy topic would replay the
 * margin's worth of history, which is exactly what the Apache issues reported. Once a pull has
 * reached the end of the queue the time filter is lifted, so after that no skew can drop a new
 * message (everything stored later was sent after we were reading).
 */
import type { MessageQueue } from '../../client/route.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { queueMaxOffset, searchOffset } from './broker-queries.js';
import type { ConsumerScope } from './client-port.js';
import type { ConsumerMessage } from './message-view.js';
import { OFFSET_READ_ERROR, type OffsetStore } from '../offset-store/offset-store.js';
import { parseConsumeTimestamp } from '../push/options.js';
import type { QueueEntry } from './pull-loop.js';

export interface StartPosition {
  offset: number;
  /**
   * LAST_OFFSET without a stored offset: the subscription time (client clock, ms). Pulled
   * messages stored before it are dropped until one at or after it, or the queue's end, is seen.
   */
  notBefore?: number;
}

/** undefined = skip the queue this round (its offset could not be read or computed). */
export async function startPosition(
  ctx: ConsumerScope & { readonly offsetStore: OffsetStore },
  mq: MessageQueue,
  subscribedAt: number,
): Promise<StartPosition | undefined> {
  const { options, client, offsetStore, logger } = ctx;
  const timeout = options.mqClientApiTimeout;
  const retry = mq.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX);
  const last = options.consumeFromWhere === 'CONSUME_FROM_LAST_OFFSET';
  const { offset: stored, ambiguousZero } = await offsetStore.readStoredOffset(mq);
  // Deviation (§2.5): a pre-5.0 broker answers 0 for a group it does not know while message 0
  // is in memory; with LAST_OFFSET that 0 is read as "not found", so a new group replays nothing.
  if (stored >= 0 && !(ambiguousZero && last && !retry)) return { offset: stored };
  if (stored === OFFSET_READ_ERROR) return undefined;
  try {
    switch (options.consumeFromWhere) {
      case 'CONSUME_FROM_FIRST_OFFSET':
        return { offset: 0 };
      case 'CONSUME_FROM_TIMESTAMP':
        return {
          offset: retry
            ? await queueMaxOffset(client, mq, timeout)
            : await searchOffset(client, mq, parseConsumeTimestamp(options.consumeTimestamp), timeout),
        };
      default:
        // The retry topic keeps Java's 0: what was sent back is always for this group.
        if (retry) return { offset: 0 };
        return { offset: await searchOffset(client, mq, subscribedAt, timeout), notBefore: subscribedAt };
    }
  } catch (err) {
    logger.warn('cannot compute where the queue starts; skipped this round', { mq, error: err });
    return undefined;
  }
}

/**
 * The pulled `messages` of `entry` a LAST_OFFSET start keeps: those stored at or after the
 * subscription. The filter ends with the first such message (store times of one queue rise, and
 * a later broker clock step back must not drop anything).
 */
export function sinceSubscription(entry: QueueEntry, messages: ConsumerMessage[]): ConsumerMessage[] {
  const notBefore = entry.notBefore;
  if (notBefore === undefined) return messages;
  const kept = messages.filter((m) => m.storeTimestamp >= notBefore);
  if (kept.length > 0) entry.notBefore = undefined;
  return kept;
}

/** A pull found nothing new: whatever is stored from now on was sent after the subscription. */
export function reachedQueueEnd(entry: QueueEntry): void {
  entry.notBefore = undefined;
}
