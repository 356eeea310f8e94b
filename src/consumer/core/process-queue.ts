/**
 * ProcessQueue (Java `ProcessQueue`, docs/consumers.md §1.4): the messages of one queue that were
 * pulled and are not yet done, keyed by queue offset. Its one rule: the offset a consumer may
 * commit is the smallest offset still in flight (or max + 1 when nothing is), so a commit never
 * passes an unfinished message. It also carries the flow-control figures (count, body bytes,
 * span) and the orderly lock state.
 */
import type { ProcessQueueInfoData } from '../../protocol/body/consumer-running-info.js';

export interface CachedMessage {
  readonly queueOffset: number;
  readonly body: Buffer;
}

export class ProcessQueue<M extends CachedMessage = CachedMessage> {
  /**
   * The cached messages in offset order (Java keeps a TreeMap). Offsets only grow as messages are
   * pulled, so two arrays appended at the end serve: a finished message leaves a hole, `head`
   * skips the leading holes, and the arrays are compacted once most of them are holes. No
   * allocation per message, and the commit offset is `offsets[head]`.
   */
  private items: Array<M | undefined> = [];
  private offsets: number[] = [];
  private head = 0;
  private count = 0;
  private size = 0;
  private maxOffset = -1;
  /** Orderly: the messages handed to the handler and not yet committed (the first live ones). */
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
    return this.count;
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
    return this.count === 0 ? undefined : this.offsets[this.head];
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
      this.items.push(m);
      this.offsets.push(m.queueOffset);
      this.size += m.body.length;
      this.maxOffset = m.queueOffset;
      added++;
    }
    this.count += added;
    return added;
  }

  /** Index of `offset` among the cached slots, −1 when absent. */
  private indexOf(offset: number): number {
    const offsets = this.offsets;
    let lo = this.head;
    let hi = offsets.length - 1;
    if (lo > hi) return -1;
    // Offsets are usually contiguous: try the slot the distance from the head points at.
    const guess = lo + (offset - offsets[lo]!);
    if (guess >= lo && guess <= hi && offsets[guess] === offset) return guess;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = offsets[mid]!;
      if (v === offset) return mid;
      if (v < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Frees slot `i` (a cached message). */
  private drop(i: number): void {
    this.size -= this.items[i]!.body.length;
    this.items[i] = undefined;
    this.count--;
  }

  /** Moves `head` past finished slots; empties or compacts the arrays. */
  private advance(): void {
    if (this.count === 0) {
      this.items.length = 0;
      this.offsets.length = 0;
      this.head = 0;
      this.size = 0;
      return;
    }
    const items = this.items;
    let h = this.head;
    while (items[h] === undefined) h++;
    this.head = h;
    if (h > 1024 && h * 2 > items.length) {
      this.items = items.slice(h);
      this.offsets = this.offsets.slice(h);
      this.head = 0;
    }
  }

  /**
   * Removes finished messages; returns the offset to commit: −1 if nothing was cached, else the
   * smallest offset still in flight, or max + 1 when the queue is empty.
   */
  removeMessages(list: readonly M[]): number {
    if (this.count === 0) return -1;
    this.lastConsumeTimestamp = Date.now();
    for (const m of list) {
      const i = this.indexOf(m.queueOffset);
      if (i >= 0 && this.items[i] !== undefined) this.drop(i);
    }
    this.advance();
    return this.count === 0 ? this.maxOffset + 1 : this.offsets[this.head]!;
  }

  /** Orderly: the next `n` messages in offset order, kept cached until `commit()`. */
  takeMessages(n: number): M[] {
    const out: M[] = [];
    this.lastConsumeTimestamp = Date.now();
    const items = this.items;
    for (let i = this.head; i < items.length && out.length < n; i++) {
      const m = items[i];
      if (m !== undefined) out.push(m);
    }
    this.consumingCount = out.length;
    return out;
  }

  /** Orderly: the taken messages are done; returns the offset to commit (last taken + 1), or −1. */
  commit(): number {
    if (this.consumingCount === 0) return -1;
    let last = -1;
    let left = this.consumingCount;
    const items = this.items;
    for (let i = this.head; i < items.length && left > 0; i++) {
      if (items[i] === undefined) continue;
      last = this.offsets[i]!;
      this.drop(i);
      left--;
    }
    this.consumingCount = 0;
    this.advance();
    return last + 1;
  }

  /** Orderly: the taken messages go back to the head of the queue (retry in place). */
  rollback(): void {
    this.consumingCount = 0;
  }

  /** Drops every cached message (offset reset, queue re-created). */
  clear(): void {
    this.items = [];
    this.offsets = [];
    this.head = 0;
    this.count = 0;
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
      cachedMsgMaxOffset: this.count > 0 ? this.maxOffset : 0,
      cachedMsgCount: this.count,
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
