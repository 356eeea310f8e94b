/**
 * The lite pull consumer's offsets (Java `AssignedMessageQueue#consumeOffset` + the offset
 * store): per queue, the offset after the last message `poll()` returned. It is written to the
 * store's memory at once, so a rebalance that drops the queue persists exactly what was polled,
 * and stays the live value when a look at the committed offset reads the store (which caches).
 */
import { InvalidArgumentError, OffsetCommitError, OffsetReadError } from '../../errors.js';
import type { MessageQueue } from '../../client/route.js';
import { queueMaxOffset, queueMinOffset } from '../core/broker-queries.js';
import type { ConsumerClient } from '../core/client-port.js';
import type { Logger } from '../../observability/logger.js';
import type { CommitFailedEvent, OffsetsCommittedEvent } from '../push/types.js';
import { messageQueueKey, OFFSET_READ_ERROR, type OffsetStore } from '../offset-store/offset-store.js';

/** Where LiteOffsets reports commits: the consumer's events (docs/events.md) and logger. */
export interface CommitReports {
  emit(event: 'offsetsCommitted', payload: OffsetsCommittedEvent): boolean;
  emit(event: 'commitFailed', payload: CommitFailedEvent): boolean;
}

export class LiteOffsets {
  private readonly consumed = new Map<string, number>();

  constructor(
    readonly store: OffsetStore,
    private readonly userQueue: (mq: MessageQueue) => MessageQueue,
    private readonly reports: CommitReports,
    private readonly logger: Logger,
  ) {}

  /** Commits the consumed offsets of `held`; 'offsetsCommitted' for what was stored. Throws as `persist`. */
  async commit(held: readonly MessageQueue[]): Promise<void> {
    const committed = await this.persist(held, this.userQueue);
    if (committed.length > 0) this.reports.emit('offsetsCommitted', { offsets: committed });
  }

  /** A commit no caller waits for (auto-commit, shutdown, a reset): a failure is 'commitFailed'. */
  async commitInBackground(what: string, held: readonly MessageQueue[]): Promise<void> {
    try {
      await this.commit(held);
    } catch (err) {
      this.logger.warn(`${what} failed`, { error: err });
      const queues = err instanceof OffsetCommitError ? err.queues : held.map(this.userQueue);
      this.reports.emit('commitFailed', { error: err, queues });
    }
  }

  /** The queue's next message to return is at `offset` (queue taken, polled past, seek, commit(offsets)). */
  set(mq: MessageQueue, offset: number): void {
    this.consumed.set(messageQueueKey(mq), offset);
    this.store.updateOffset(mq, offset, false);
  }

  /**
   * Stores the consumed offsets of `held`. The store confirms each queue; `userQueue` names the
   * unconfirmed ones in the OffsetCommitError.
   */
  async persist(
    held: readonly MessageQueue[],
    userQueue: (mq: MessageQueue) => MessageQueue,
  ): Promise<Array<{ queue: MessageQueue; offset: number }>> {
    // Queues without a consumed offset yet have nothing to commit.
    const withOffset = held.filter((mq) => this.consumed.has(messageQueueKey(mq)));
    // What was stored, for the 'offsetsCommitted' event.
    const stored = (): Array<{ queue: MessageQueue; offset: number }> =>
      withOffset.map((mq) => ({ queue: userQueue(mq), offset: this.consumed.get(messageQueueKey(mq))! }));
    const ok = await this.store.commitAll(withOffset);
    const failed = withOffset.filter((_, i) => !ok[i]).map(userQueue);
    if (failed.length > 0) throw new OffsetCommitError(failed);
    return stored();
  }

  /** The stored offset (−1 when none); what was polled since is not included. */
  async committed(mq: MessageQueue): Promise<number> {
    const stored = await this.store.readOffset(mq, 'STORE');
    // −2 is the store's "could not ask the broker", never an offset.
    if (stored === OFFSET_READ_ERROR) throw new OffsetReadError(mq);
    // Reading the store also caches what it read; the consumed offset stays the live one.
    const mine = this.consumed.get(messageQueueKey(mq));
    if (mine !== undefined) this.store.updateOffset(mq, mine, false);
    return stored;
  }
}

/** Where a seek puts `mq`: `offset` checked against the queue's [min, max], or its min or max. */
export async function seekOffset(
  client: ConsumerClient,
  mq: MessageQueue,
  to: number | 'begin' | 'end',
  timeoutMs: number,
): Promise<number> {
  // Java `MQAdminImpl#minOffset`: the route is fetched when the broker's address is not known yet
  // (a queue assigned a moment ago, whose topic nothing has looked up).
  if (client.masterAddress(mq.brokerName) === undefined)
    await client.subscribeQueues(mq.topic).catch(() => undefined);
  if (to === 'begin') return queueMinOffset(client, mq, timeoutMs);
  if (to === 'end') return queueMaxOffset(client, mq, timeoutMs);
  const [min, max] = await Promise.all([
    queueMinOffset(client, mq, timeoutMs),
    queueMaxOffset(client, mq, timeoutMs),
  ]);
  if (to < min || to > max)
    throw new InvalidArgumentError('offset', `${to} is outside the queue's offsets [${min}, ${max}]`);
  return to;
}
