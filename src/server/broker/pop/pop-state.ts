/**
 * The embedded broker's POP bookkeeping (docs/consumers.md §3.2), kept in memory and in one durable
 * file of our own, `config/pop.json`, instead of Java's `rmq_sys_REVIVE_LOG_<cluster>` topic:
 * - checkpoints of normal POP (Java `PopCheckPoint`): which offsets a pop handed out, when they
 *   become visible again, and which of them were acked;
 * - orderly POP locks (Java `ConsumerOrderInfoManager`): the offsets of a queue in flight for a
 *   group, which block the queue until they are acked or their invisible time ends.
 * The file is rewritten atomically, so the state survives a restart. Changes are coalesced: the
 * first change after a write schedules the next one POP_STATE_WRITE_INTERVAL_MS later, whatever
 * comes meanwhile goes with it (a drain changed the state on every POP and ack, and rewriting the
 * file each time, five file-system calls per write, was a fifth of the broker's busy time). What
 * makes this safe is `flushNow`, which the consumer-offset file waits for (PopService registers
 * it as that file's write barrier): an offset a POP advanced is never on disk before the
 * checkpoint of the messages it skipped, so a restarted broker re-delivers every un-acked message.
 * An ack lost to a crash only means the message is delivered again (POP is at-least-once).
 */
import type { Logger } from '../../../observability/logger.js';
import type { RetentionPin } from '../../store/retention.js';
import { StateFile } from '../state-file.js';

export interface PopCheckpoint {
  group: string;
  /** The real topic popped: the subscribed topic or its retry topic. */
  topic: string;
  queueId: number;
  /** ckQueueOffset of the receipt handles. */
  startOffset: number;
  popTime: number;
  invisibleTime: number;
  reviveQid: number;
  /** Queue offsets handed out. */
  offsets: number[];
  /** Offsets acked so far. */
  acked: number[];
}

export interface OrderLock {
  group: string;
  topic: string;
  queueId: number;
  popTime: number;
  invisibleTime: number;
  /** Offsets of the batch in flight, ascending. */
  offsets: number[];
  acked: number[];
  /** Deliveries so far per offset (the next delivery's reconsumeTimes). */
  counts: Record<string, number>;
  /**
   * Per-offset visible time set by CHANGE_MESSAGE_INVISIBLETIME (Java
   * `OrderInfo.offsetNextVisibleTime`); an offset without one is visible at popTime + invisibleTime.
   */
  nextVisible?: Record<string, number>;
}

export function checkpointKey(
  group: string,
  topic: string,
  queueId: number,
  start: number,
  popTime: number,
): string {
  return `${group}@${topic}@${queueId}@${start}@${popTime}`;
}

export function queueLockKey(group: string, topic: string, queueId: number): string {
  return `${topic}@${group}@${queueId}`;
}

export function visibleAt(x: { popTime: number; invisibleTime: number }): number {
  return x.popTime + x.invisibleTime;
}

/**
 * When an orderly queue may be popped again (Java `OrderInfo#needBlock`): once every un-acked
 * offset of the batch in flight is visible again.
 */
export function lockVisibleAt(lock: OrderLock): number {
  let at = Number.NEGATIVE_INFINITY;
  for (const o of lock.offsets) {
    if (lock.acked.includes(o)) continue;
    at = Math.max(at, lock.nextVisible?.[String(o)] ?? visibleAt(lock));
  }
  return at;
}

interface FileShape {
  checkpoints?: PopCheckpoint[];
  orders?: OrderLock[];
}

/** Longest time a change of the POP state waits for its write (see the file's comment). */
export const POP_STATE_WRITE_INTERVAL_MS = 100;

export class PopState {
  private readonly checkpoints = new Map<string, PopCheckpoint>();
  private readonly orders = new Map<string, OrderLock>();
  private readonly file: StateFile;
  /** Changed since the last write began. */
  private dirty = false;
  /** The scheduled write of the changes since. */
  private timer: NodeJS.Timeout | undefined;
  /**
   * No checkpoint becomes visible before this (a lower bound: removals leave it early): the
   * revive round, every second, scans the checkpoints only once one may be due.
   */
  private checkpointsDueAt = Number.POSITIVE_INFINITY;

  constructor(
    path: string,
    private readonly logger: Logger,
  ) {
    this.file = new StateFile(path);
  }

  async load(): Promise<void> {
    await this.file.load(
      (text) => {
        const parsed = JSON.parse(text) as FileShape;
        for (const ck of parsed.checkpoints ?? []) this.addCheckpoint(ck, false);
        for (const o of parsed.orders ?? []) this.orders.set(queueLockKey(o.group, o.topic, o.queueId), o);
      },
      this.logger,
      'POP state file',
    );
  }

  addCheckpoint(ck: PopCheckpoint, persist = true): void {
    this.checkpoints.set(checkpointKey(ck.group, ck.topic, ck.queueId, ck.startOffset, ck.popTime), ck);
    this.checkpointsDueAt = Math.min(this.checkpointsDueAt, visibleAt(ck));
    if (persist) this.persist();
  }

  findCheckpoint(
    group: string,
    topic: string,
    queueId: number,
    start: number,
    popTime: number,
  ): PopCheckpoint | undefined {
    return this.checkpoints.get(checkpointKey(group, topic, queueId, start, popTime));
  }

  /**
   * Marks `offset` of the checkpoint acked; false when it is not one of its un-acked offsets.
   * A fully acked checkpoint is dropped.
   */
  ack(ck: PopCheckpoint, offset: number): boolean {
    if (!ck.offsets.includes(offset) || ck.acked.includes(offset)) return false;
    ck.acked.push(offset);
    if (ck.acked.length >= ck.offsets.length) this.removeCheckpoint(ck);
    else this.persist();
    return true;
  }

  /**
   * Marks `offsets` of the checkpoint acked, each one of its un-acked offsets (the caller checked:
   * BATCH_ACK checks a whole request before it applies any of it), with one state change.
   */
  ackAll(ck: PopCheckpoint, offsets: readonly number[]): void {
    if (offsets.length === 0) return;
    ck.acked.push(...offsets);
    if (ck.acked.length >= ck.offsets.length) this.removeCheckpoint(ck);
    else this.persist();
  }

  removeCheckpoint(ck: PopCheckpoint): void {
    this.checkpoints.delete(checkpointKey(ck.group, ck.topic, ck.queueId, ck.startOffset, ck.popTime));
    this.persist();
  }

  /** Checkpoints whose invisible time has ended by `now`. */
  expiredCheckpoints(now: number): PopCheckpoint[] {
    if (now < this.checkpointsDueAt) return [];
    const expired: PopCheckpoint[] = [];
    let dueAt = Number.POSITIVE_INFINITY;
    for (const ck of this.checkpoints.values()) {
      const at = visibleAt(ck);
      if (at <= now) expired.push(ck);
      else dueAt = Math.min(dueAt, at);
    }
    // Raised only past a round with nothing due: an expired checkpoint the caller failed to
    // revive (a put that threw) is found again by the next round.
    if (expired.length === 0) this.checkpointsDueAt = dueAt;
    return expired;
  }

  /** Number of un-acked offsets in checkpoints (for stats and tests). */
  get inflight(): number {
    let n = 0;
    for (const ck of this.checkpoints.values()) n += ck.offsets.length - ck.acked.length;
    return n;
  }

  /**
   * The lowest un-acked offset of every checkpoint and order lock: retention keeps the commit-log
   * files holding them (docs/consumers.md §3.5), as Java keeps POP data alive in its revive topic.
   */
  *retentionPins(): Iterable<RetentionPin> {
    for (const x of [...this.checkpoints.values(), ...this.orders.values()]) {
      let lowest: number | undefined;
      for (const o of x.offsets) if (!x.acked.includes(o) && (lowest === undefined || o < lowest)) lowest = o;
      if (lowest !== undefined) yield { topic: x.topic, queueId: x.queueId, offset: lowest };
    }
  }

  /** Un-acked POP messages of `group` per `topic@queueId` (checkpoints and order locks). */
  inflightOf(group: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const x of [...this.checkpoints.values(), ...this.orders.values()]) {
      if (x.group !== group) continue;
      const key = `${x.topic}@${x.queueId}`;
      out.set(key, (out.get(key) ?? 0) + x.offsets.length - x.acked.length);
    }
    return out;
  }

  orderLock(group: string, topic: string, queueId: number): OrderLock | undefined {
    return this.orders.get(queueLockKey(group, topic, queueId));
  }

  setOrderLock(lock: OrderLock): void {
    this.orders.set(queueLockKey(lock.group, lock.topic, lock.queueId), lock);
    this.persist();
  }

  removeOrderLock(lock: OrderLock): void {
    this.orders.delete(queueLockKey(lock.group, lock.topic, lock.queueId));
    this.persist();
  }

  /** Order locks whose invisible time ended by `now` (their queue may be popped again). */
  expiredOrderLocks(now: number): OrderLock[] {
    return [...this.orders.values()].filter((o) => lockVisibleAt(o) <= now);
  }

  /** Records that the state changed: it is written within POP_STATE_WRITE_INTERVAL_MS. */
  persist(): void {
    this.dirty = true;
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => void this.flushNow(), POP_STATE_WRITE_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Writes every change made so far (now, not at the next interval); resolves once it is on
   * disk. Never rejects: a failed write is logged and the state stays dirty for the next one.
   */
  async flushNow(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty) {
      this.dirty = false;
      await this.file
        .save(() =>
          JSON.stringify({ checkpoints: [...this.checkpoints.values()], orders: [...this.orders.values()] }),
        )
        .catch((err: unknown) => {
          this.logger.warn('POP state not written', { error: err });
          this.persist();
        });
    }
    await this.file.settled();
  }

  /** Resolves once every change made so far is written (a scheduled write is made now). */
  settled(): Promise<void> {
    return this.flushNow();
  }
}
