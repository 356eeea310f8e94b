/**
 * ProcessQueue (Java `ProcessQueue`, consumer.md §2.4): the messages of one queue that were
 * pulled and are not yet done, keyed by queue offset. Its one rule: the offset a consumer may
 * commit is the smallest offset still in flight (or max + 1 when nothing is), so a commit never
 * passes an unfinished message. It also carries the flow-control figures (count, body bytes,
 * span) and the orderly lock state.
 */
import type { ProcessQueueInfoData } from '../protocol/body/consumer-running-info.js';

export interface CachedMessage {
  readonly queueOffset: number;
  readonly body: Buffer;
}

export class ProcessQueue<M extends CachedMessage = CachedMessage> {
  /** Offset → message; offsets arrive in increasing order, so insertion order is offset order. */
  private readonly msgs = new Map<number, M>();
  private size = 0;
  private maxOffset = -1;
  /** Orderly: the messages handed to the handler and not yet committed (a prefix of `msgs`). */
  private consumingCount = 0;
  dropped = false;
  locked = false;
  lastLockTimestamp = 0;
  lastPullTimestamp = Date.now();
  lastConsumeTimestamp = Date.now();
  tryUnlockTimes = 0;
  /** Orderly: set once the offset was re-read after the first lock (Java `previouslyLocked`). */
  previouslyLocked = false;
  /** Broker max offset from the last pull (for lag). */
  brokerMaxOffset = -1;

  get msgCount(): number {
    return this.msgs.size;
  }

  /** Cached body bytes. */
  get msgSize(): number {
    return this.size;
  }

  /** Largest offset ever cached (−1 before the first message). */
  get queueOffsetMax(): number {
    return this.maxOffset;
  }

  firstOffset(): number | undefined {
    for (const k of this.msgs.keys()) return k;
    return undefined;
  }

  /** Java `getMaxSpan`: last − first cached offset, 0 when empty. */
  maxSpan(): number {
    const first = this.firstOffset();
    return first === undefined ? 0 : this.maxOffset - first;
  }

  /** Adds pulled messages (duplicate or older offsets skipped); returns how many were new. */
  putMessages(list: readonly M[]): number {
    let added = 0;
    for (const m of list) {
      if (m.queueOffset <= this.maxOffset) continue;
      this.msgs.set(m.queueOffset, m);
      this.size += m.body.length;
      this.maxOffset = m.queueOffset;
      added++;
    }
    return added;
  }

  /**
   * Removes finished messages; returns the offset to commit: −1 if nothing was cached, else the
   * smallest offset still in flight, or max + 1 when the queue is empty.
   */
  removeMessages(list: readonly M[]): number {
    if (this.msgs.size === 0) return -1;
    this.lastConsumeTimestamp = Date.now();
    for (const m of list) {
      const cached = this.msgs.get(m.queueOffset);
      if (cached === undefined) continue;
      this.msgs.delete(m.queueOffset);
      this.size -= cached.body.length;
    }
    if (this.msgs.size === 0) {
      this.size = 0;
      return this.maxOffset + 1;
    }
    return this.firstOffset()!;
  }

  /** Orderly: the next `n` messages in offset order, kept cached until `commit()`. */
  takeMessages(n: number): M[] {
    const out: M[] = [];
    this.lastConsumeTimestamp = Date.now();
    for (const m of this.msgs.values()) {
      if (out.length >= n) break;
      out.push(m);
    }
    this.consumingCount = out.length;
    return out;
  }

  /** Orderly: the taken messages are done; returns the offset to commit (last taken + 1), or −1. */
  commit(): number {
    if (this.consumingCount === 0) return -1;
    let last = -1;
    let i = 0;
    for (const [offset, m] of this.msgs) {
      if (i++ >= this.consumingCount) break;
      this.msgs.delete(offset);
      this.size -= m.body.length;
      last = offset;
    }
    this.consumingCount = 0;
    if (this.msgs.size === 0) this.size = 0;
    return last + 1;
  }

  /** Orderly: the taken messages go back to the head of the queue (retry in place). */
  rollback(): void {
    this.consumingCount = 0;
  }

  /** Drops every cached message (offset reset, queue re-created). */
  clear(): void {
    this.msgs.clear();
    this.size = 0;
    this.consumingCount = 0;
  }

  isLockExpired(lockMaxLiveTime: number, now = Date.now()): boolean {
    return now - this.lastLockTimestamp > lockMaxLiveTime;
  }

  isPullExpired(pullMaxIdleTime: number, now = Date.now()): boolean {
    return now - this.lastPullTimestamp > pullMaxIdleTime;
  }

  /** Snapshot for GET_CONSUMER_RUNNING_INFO (Java `ProcessQueueInfo`). */
  info(commitOffset: number): ProcessQueueInfoData {
    const first = this.firstOffset();
    return {
      commitOffset,
      cachedMsgMinOffset: first ?? 0,
      cachedMsgMaxOffset: this.msgs.size > 0 ? this.maxOffset : 0,
      cachedMsgCount: this.msgs.size,
      cachedMsgSizeInMiB: Math.floor(this.size / (1024 * 1024)),
      transactionMsgMinOffset: 0,
      transactionMsgMaxOffset: 0,
      transactionMsgCount: 0,
      locked: this.locked,
      tryUnlockTimes: this.tryUnlockTimes,
      lastLockTimestamp: this.lastLockTimestamp,
      droped: this.dropped,
      lastPullTimestamp: this.lastPullTimestamp,
      lastConsumeTimestamp: this.lastConsumeTimestamp,
    };
  }
}
