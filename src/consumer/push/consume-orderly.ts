/**
 * Orderly consumption (Java `ConsumeMessageOrderlyService`, docs/consumers.md §1.7): per queue, one
 * handler call at a time, in offset order, only while this client holds the broker's lock on the
 * queue (clustering). A failed call suspends the queue for suspendCurrentQueueTimeMillis and
 * retries the same messages in place; once a message has failed maxReconsumeTimes times it is
 * re-sent to `%RETRY%<group>` with that count so the broker moves it to the DLQ, and the queue
 * moves on.
 */
import { callHandler, type ConsumeContext } from './consume-concurrently.js';
import type { QueueEntry } from '../core/pull-loop.js';

export interface OrderlyContext extends ConsumeContext {
  readonly suspendMillis: number;
  /** Effective maximum (orderly −1 = unlimited). */
  readonly maxReconsumeTimes: number;
  /** Clustering: the lock is held and fresh, or was just taken. */
  ensureLocked(entry: QueueEntry): Promise<boolean>;
  sleep(ms: number): Promise<void>;
}

export class OrderlyConsumeService {
  /** Queues with a consume loop running. */
  private readonly active = new Set<string>();

  constructor(private readonly ctx: OrderlyContext) {}

  /** Starts the queue's consume loop unless it runs already. */
  submit(entry: QueueEntry): void {
    if (this.active.has(entry.key) || entry.pq.dropped) return;
    this.active.add(entry.key);
    this.ctx.track(this.loop(entry));
  }

  private async loop(entry: QueueEntry): Promise<void> {
    const { pq, mq } = entry;
    const ctx = this.ctx;
    try {
      while (!pq.dropped && ctx.isRunning()) {
        // Without the lock another client may consume this queue; the pull loop re-locks and
        // submits the queue again.
        if (!(await ctx.ensureLocked(entry))) return;
        const messages = pq.takeMessages(ctx.batchMaxSize);
        if (messages.length === 0) return;
        const outcome = await callHandler(ctx, entry, messages);
        if (outcome === undefined) {
          pq.rollback();
          return;
        }
        if (outcome.ok) {
          const offset = pq.commit();
          if (offset >= 0) ctx.updateOffset(mq, offset, false);
          continue;
        }
        if (messages.every((m) => m.reconsumeTimes >= ctx.maxReconsumeTimes)) {
          const sent = await Promise.all(messages.map((m) => ctx.sendBack.resend(m, m.reconsumeTimes, 0)));
          if (sent.every(Boolean)) {
            const offset = pq.commit();
            if (offset >= 0) ctx.updateOffset(mq, offset, false);
            continue;
          }
        }
        for (const m of messages) m.reconsumeTimes++;
        pq.rollback();
        await ctx.sleep(ctx.suspendMillis);
      }
    } finally {
      this.active.delete(entry.key);
    }
  }

  /** Whether a consume loop is running for the queue (a held lock is then still in use). */
  isConsuming(key: string): boolean {
    return this.active.has(key);
  }
}
