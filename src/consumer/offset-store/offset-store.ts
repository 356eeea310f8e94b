/**
 * Where a consumer keeps its consume offsets (Java `OffsetStore`): CLUSTERING consumers on the
 * broker (`RemoteBrokerOffsetStore`), BROADCASTING consumers in a local file
 * (`LocalFileOffsetStore`). Both keep the live offsets in a `MemoryOffsetTable`.
 */
import type { MessageQueue } from '../../client/route.js';
import { InvalidArgumentError } from '../../errors.js';

/**
 * Java `ReadOffsetType`: `MEMORY` = READ_FROM_MEMORY, `STORE` = READ_FROM_STORE (also caches
 * what it read), `MEMORY_THEN_STORE` = MEMORY_FIRST_THEN_STORE.
 */
export type ReadOffsetType = 'MEMORY' | 'STORE' | 'MEMORY_THEN_STORE';

/** Java's "no offset stored": the caller applies consumeFromWhere. */
export const OFFSET_NOT_FOUND = -1;
/** Java's −2: the store could not be asked (skip the queue this round, never guess). */
export const OFFSET_READ_ERROR = -2;

/** What the store holds for a queue, read from where it keeps it (the broker, the file). */
export interface StoredOffset {
  offset: number;
  /**
   * The broker is older than 5.0 and answered 0, which it also does for a group it does not
   * know while message 0 is in memory (docs/consumers.md §1.5), and it stores no offset of the group
   * for the topic: the 0 may mean "not found". Always false for the local file.
   */
  ambiguousZero: boolean;
}

/**
 * Callers use only this interface: which store a consumer has (broker or file) follows from its
 * message model, and nothing above the store needs to know.
 */
export interface OffsetStore {
  /** Reads what was stored before (the local file; a no-op for the broker store). */
  load(): Promise<void>;
  /**
   * The next offset to consume, or −1 when none is stored (the caller then applies
   * consumeFromWhere). The broker store answers −2 when the broker could not be asked.
   */
  readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<number>;
  /** Like `readOffset(mq, 'STORE')`, and says whether a 0 may mean "none" (StoredOffset). */
  readStoredOffset(mq: MessageQueue): Promise<StoredOffset>;
  /** The in-memory offset, −1 when none; synchronous, for the hot path of every pull. */
  memoryOffset(mq: MessageQueue): number;
  /** Memory only. `increaseOnly` never moves an offset back (concurrent consumption). */
  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void;
  /**
   * Stores the memory offsets of the queues still held (`persistConsumerOffset`, every 5 s);
   * OffsetCommitError (wire queue names) when some were not confirmed.
   */
  persistAll(heldMqs: Iterable<MessageQueue>): Promise<void>;
  /** Stores one queue's memory offset (rebalance drop, OFFSET_ILLEGAL). */
  persist(mq: MessageQueue): Promise<void>;
  /**
   * Stores the memory offsets of `mqs` and resolves, per queue, whether the store confirmed it
   * (a sync commit that must name what failed, e.g. the lite consumer's `commit()`).
   */
  commitAll(mqs: readonly MessageQueue[]): Promise<boolean[]>;
  /** Forgets a queue's memory offset (after the rebalance gave it away). */
  removeOffset(mq: MessageQueue): void;
}

/** A map key for a queue; `MessageQueue` objects are compared by value, never by identity. */
export function messageQueueKey(mq: MessageQueue): string {
  // The consume service updates the offset of the same (readonly) queue object after every
  // message: building and hashing the string each time showed in the profile.
  // The fields are compared too, in case an application changed a queue object it passed in.
  const known = queueKeys.get(mq);
  if (
    known !== undefined &&
    known.topic === mq.topic &&
    known.brokerName === mq.brokerName &&
    known.queueId === mq.queueId
  )
    return known.key;
  // U+0000 cannot appear in a topic or a broker name, so the key is unambiguous.
  const key = `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;
  queueKeys.set(mq, { topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId, key });
  return key;
}

const queueKeys = new WeakMap<MessageQueue, MessageQueue & { key: string }>();

function checkOffset(offset: number): void {
  if (!Number.isSafeInteger(offset)) {
    throw new InvalidArgumentError('offset', `must be a safe integer, got ${String(offset)}`);
  }
}

/** The in-memory offsets both stores share (Java's `offsetTable` + `MixAll.compareAndIncreaseOnly`). */
export class MemoryOffsetTable {
  private readonly table = new Map<string, { mq: MessageQueue; offset: number }>();

  get(mq: MessageQueue): number | undefined {
    return this.table.get(messageQueueKey(mq))?.offset;
  }

  update(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    checkOffset(offset);
    const key = messageQueueKey(mq);
    const entry = this.table.get(key);
    if (entry === undefined) {
      this.table.set(key, {
        mq: { topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId },
        offset,
      });
    } else if (!increaseOnly || offset > entry.offset) {
      entry.offset = offset;
    }
  }

  remove(mq: MessageQueue): boolean {
    return this.table.delete(messageQueueKey(mq));
  }

  /** Every queue with its offset, optionally of one topic (Java `cloneOffsetTable`). */
  entries(topic?: string): { mq: MessageQueue; offset: number }[] {
    const out: { mq: MessageQueue; offset: number }[] = [];
    for (const { mq, offset } of this.table.values()) {
      if (topic === undefined || mq.topic === topic) out.push({ mq: { ...mq }, offset });
    }
    return out;
  }

  get size(): number {
    return this.table.size;
  }
}
