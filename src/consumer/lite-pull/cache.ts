/**
 * The lite pull consumer's waiting room (Java `consumeRequestCache`): the pull loops put each
 * pulled batch here, `poll()` takes batches out in arrival order. A batch of a dropped queue
 * (rebalanced away, seeked, unassigned) is discarded; a batch of a paused queue stays until the
 * queue is resumed. `take` waits for a batch, the deadline or `close()`.
 */
import type { ConsumerMessage } from '../core/message-view.js';
import type { QueueEntry } from '../core/pull-loop.js';
import { whenAborted } from '../../remoting/abort.js';

export interface PulledBatch {
  readonly entry: QueueEntry;
  readonly messages: readonly ConsumerMessage[];
}

export class LitePullCache {
  private batches: PulledBatch[] = [];
  private waiters = new Set<() => void>();
  private count = 0;
  private closed = false;

  /** Messages waiting (Java compares `cache size × pullBatchSize` with pullThresholdForAll). */
  get waiting(): number {
    return this.count;
  }

  put(batch: PulledBatch): void {
    if (this.closed) return;
    this.batches.push(batch);
    this.count += batch.messages.length;
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * Up to `max` messages from the oldest batches that `usable` accepts, whole batches only (a
   * batch never exceeds pullBatchSize, so the first usable one always fits). Batches of dropped
   * queues are discarded on the way.
   */
  takeNow(max: number, usable: (b: PulledBatch) => boolean): PulledBatch[] {
    const out: PulledBatch[] = [];
    let taken = 0;
    const keep: PulledBatch[] = [];
    // A queue's batches leave in order: once one stays, the later ones of that queue stay too.
    const held = new Set<string>();
    for (const b of this.batches) {
      if (b.entry.pq.dropped) {
        this.count -= b.messages.length;
        continue;
      }
      const fits = out.length === 0 || taken + b.messages.length <= max;
      if (fits && !held.has(b.entry.key) && usable(b)) {
        out.push(b);
        taken += b.messages.length;
        this.count -= b.messages.length;
      } else {
        held.add(b.entry.key);
        keep.push(b);
      }
    }
    this.batches = keep;
    return out;
  }

  /** Callers waiting in `wait` (for tests). */
  get pollers(): number {
    return this.waiters.size;
  }

  /**
   * Resolves when a batch arrives, after `ms`, at `close()`, or when `signal` aborts (the caller
   * checks it then); the waiter and its timer are gone when it resolves.
   */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || ms <= 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        dispose?.();
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      const dispose = signal === undefined ? undefined : whenAborted(signal, wake);
      this.waiters.add(wake);
    });
  }

  /** Drops every batch of one queue (seek, unassign). */
  discard(key: string): void {
    this.batches = this.batches.filter((b) => {
      if (b.entry.key !== key) return true;
      this.count -= b.messages.length;
      return false;
    });
  }

  /** Wakes every waiter; later puts are ignored. */
  close(): void {
    this.closed = true;
    this.batches = [];
    this.count = 0;
    for (const wake of [...this.waiters]) wake();
  }
}
