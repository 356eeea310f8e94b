/**
 * Queue locks of orderly consumers (Java `RebalanceLockManager`): per consumer group, which
 * client holds each message queue. A lock lapses after {@link LOCK_MAX_LIVE_MS} without renewal.
 * Everything here is keyed by client input, so expired locks, empty groups and the locks of a
 * client whose last connection closed are dropped, and the table holds at most
 * {@link MAX_LOCK_ENTRIES} locks (beyond that a new lock is refused, as if another client held it).
 */

export interface LockedQueue {
  topic: string;
  brokerName: string;
  queueId: number;
}

/** Java `REBALANCE_LOCK_MAX_LIVE_TIME`. */
export const LOCK_MAX_LIVE_MS = 60_000;
/** Far beyond any real deployment (groups × queues); stops a misbehaving client growing the table. */
export const MAX_LOCK_ENTRIES = 100_000;

interface LockEntry {
  clientId: string;
  lastUpdate: number;
}

function queueKey(mq: LockedQueue): string {
  return `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
}

export class RebalanceLocks {
  private readonly groups = new Map<string, Map<string, LockEntry>>();
  private entries = 0;

  constructor(private readonly maxEntries = MAX_LOCK_ENTRIES) {}

  /** Number of locks held (live or not yet pruned). */
  get size(): number {
    return this.entries;
  }

  /** Number of groups with at least one lock. */
  get groupCount(): number {
    return this.groups.size;
  }

  /** Locks (or renews) what is free, expired or already `clientId`'s; returns those queues. */
  lock<T extends LockedQueue>(group: string, clientId: string, mqs: readonly T[], now = Date.now()): T[] {
    let table = this.groups.get(group);
    const locked: T[] = [];
    for (const mq of mqs) {
      const k = queueKey(mq);
      const entry = table?.get(k);
      if (entry) {
        if (entry.clientId !== clientId && now - entry.lastUpdate <= LOCK_MAX_LIVE_MS) continue;
        entry.clientId = clientId;
        entry.lastUpdate = now;
        locked.push(mq);
        continue;
      }
      if (this.entries >= this.maxEntries) this.pruneExpired(now);
      if (this.entries >= this.maxEntries) continue;
      if (!table) {
        table = this.groups.get(group);
        if (!table) this.groups.set(group, (table = new Map()));
      }
      table.set(k, { clientId, lastUpdate: now });
      this.entries++;
      locked.push(mq);
    }
    return locked;
  }

  /** Releases the queues `clientId` holds among `mqs`. */
  unlock(group: string, clientId: string, mqs: readonly LockedQueue[]): void {
    const table = this.groups.get(group);
    if (!table) return;
    for (const mq of mqs) {
      const k = queueKey(mq);
      if (table.get(k)?.clientId === clientId && table.delete(k)) this.entries--;
    }
    if (table.size === 0) this.groups.delete(group);
  }

  /** Releases every lock of `clientId` (its last connection closed). */
  releaseClient(clientId: string): void {
    this.removeWhere((e) => e.clientId === clientId);
  }

  /** Drops locks not renewed within {@link LOCK_MAX_LIVE_MS}. */
  pruneExpired(now = Date.now()): void {
    this.removeWhere((e) => now - e.lastUpdate > LOCK_MAX_LIVE_MS);
  }

  /** Who holds `mq` in `group` right now, if anyone. */
  holder(group: string, mq: LockedQueue, now = Date.now()): string | undefined {
    const entry = this.groups.get(group)?.get(queueKey(mq));
    return entry && now - entry.lastUpdate <= LOCK_MAX_LIVE_MS ? entry.clientId : undefined;
  }

  private removeWhere(pred: (e: LockEntry) => boolean): void {
    for (const [group, table] of this.groups) {
      for (const [k, e] of table) {
        if (pred(e)) {
          table.delete(k);
          this.entries--;
        }
      }
      if (table.size === 0) this.groups.delete(group);
    }
  }
}
