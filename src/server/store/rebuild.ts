/**
 * Replays the commit log into the consume queues and the key index during recovery, from the
 * checkpoint (or from the first byte for a full rebuild). Records before `dispatchFrom` are only
 * validated (Java re-checks the last files of a cleanly closed log); from there each record's
 * entry is appended to its queue and its keys to the index. A record whose queue offset does not
 * continue its queue ends the valid log in a full rebuild; after a checkpoint it means the queue
 * files disagree with the log, and the caller rebuilds everything instead.
 */
import { getProperty, PropertyKey } from '../../protocol/message/properties.js';
import { CQ_ENTRY_SIZE, tagsHashCode, writeCqEntry, type ConsumeQueue } from './consume-queue.js';
import { keysOf, type KeyIndex } from './key-index.js';
import { scanCommitLog, type RecordIndexFields, type ScanResult } from './recovery.js';
import type { SegmentedFile } from './segmented-file.js';

/** Entries buffered per queue before one write. */
const REBUILD_CHUNK = 4096;

export interface QueueDirectory {
  queueOf(topic: string, queueId: number): ConsumeQueue | undefined;
  createQueue(topic: string, queueId: number): Promise<ConsumeQueue>;
}

export interface ReplayPlan {
  verifyFrom: number;
  dispatchFrom: number;
  /**
   * Full rebuild: a queue met for the first time starts at the record's queue offset (older
   * records may have been deleted by retention).
   */
  fresh: boolean;
}

export interface ReplayResult extends ScanResult {
  /** Records dispatched (the rest were only validated). */
  dispatched: number;
  /** A queue's files disagree with the log (only when not `fresh`). */
  mismatch: boolean;
  /** Store time of the last valid record, 0 when none was read. */
  lastStoreTimestamp: number;
}

const MISMATCH = 'consume queue does not match the commit log';

export async function replayCommitLog(
  log: SegmentedFile,
  keyIndex: KeyIndex,
  queues: QueueDirectory,
  plan: ReplayPlan,
): Promise<ReplayResult> {
  const rebuild = new Map<ConsumeQueue, { buf: Buffer; count: number }>();
  const indexedUpTo = keyIndex.endPhyOffset;
  let dispatched = 0;
  let mismatch = false;
  let lastStoreTimestamp = 0;
  const flushQueue = async (queue: ConsumeQueue, chunk: { buf: Buffer; count: number }): Promise<void> => {
    if (chunk.count === 0) return;
    await queue.write(queue.maxOffset, chunk.buf.subarray(0, chunk.count * CQ_ENTRY_SIZE));
    queue.maxOffset += chunk.count;
    chunk.buf = Buffer.allocUnsafe(REBUILD_CHUNK * CQ_ENTRY_SIZE);
    chunk.count = 0;
  };
  const index = (queue: ConsumeQueue, msg: RecordIndexFields, physicalOffset: number, size: number) => {
    let chunk = rebuild.get(queue);
    if (chunk === undefined) {
      chunk = { buf: Buffer.allocUnsafe(REBUILD_CHUNK * CQ_ENTRY_SIZE), count: 0 };
      rebuild.set(queue, chunk);
      if (plan.fresh && queue.isEmpty && queue.maxOffset === 0) {
        queue.minOffset = msg.queueOffset;
        queue.maxOffset = msg.queueOffset;
      }
    }
    const expected = queue.maxOffset + chunk.count;
    if (msg.queueOffset !== expected) {
      if (!plan.fresh) {
        mismatch = true;
        return MISMATCH;
      }
      return `queue offset ${msg.queueOffset} of ${msg.topic}/${msg.queueId}, expected ${expected}`;
    }
    const tags = getProperty(msg.properties, PropertyKey.TAGS);
    writeCqEntry(
      chunk.buf,
      chunk.count * CQ_ENTRY_SIZE,
      physicalOffset,
      size,
      tags === undefined ? 0 : tagsHashCode(tags),
    );
    chunk.count++;
    dispatched++;
    lastStoreTimestamp = msg.storeTimestamp;
    if (physicalOffset > indexedUpTo) {
      for (const key of keysOf(msg.properties))
        keyIndex.add(msg.topic, key, physicalOffset, msg.storeTimestamp);
    }
    return chunk.count === REBUILD_CHUNK ? flushQueue(queue, chunk).then(() => undefined) : undefined;
  };
  // Synchronous per record unless a queue must be created or a chunk written.
  const result = await scanCommitLog(log, plan.verifyFrom, (msg, physicalOffset, size) => {
    if (physicalOffset < plan.dispatchFrom) {
      lastStoreTimestamp = msg.storeTimestamp;
      return undefined;
    }
    const queue = queues.queueOf(msg.topic, msg.queueId);
    if (queue !== undefined) return index(queue, msg, physicalOffset, size);
    return queues.createQueue(msg.topic, msg.queueId).then((q) => index(q, msg, physicalOffset, size));
  });
  for (const [queue, chunk] of rebuild) await flushQueue(queue, chunk);
  return { ...result, dispatched, mismatch, lastStoreTimestamp };
}
