/**
 * Rebuilds the consume queues and the key index from the commit log while recovery scans it.
 * Each record's queue offset must continue its queue; one that does not ends the valid log.
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

/** Scans `log`, appending to (empty) queues from `queues` and to `keyIndex`. */
export async function rebuildIndexes(
  log: SegmentedFile,
  keyIndex: KeyIndex,
  queues: QueueDirectory,
): Promise<ScanResult> {
  const rebuild = new Map<ConsumeQueue, { buf: Buffer; count: number }>();
  const flushQueue = async (queue: ConsumeQueue, plan: { buf: Buffer; count: number }): Promise<void> => {
    if (plan.count === 0) return;
    await queue.write(queue.maxOffset, plan.buf.subarray(0, plan.count * CQ_ENTRY_SIZE));
    queue.maxOffset += plan.count;
    plan.buf = Buffer.allocUnsafe(REBUILD_CHUNK * CQ_ENTRY_SIZE);
    plan.count = 0;
  };
  const index = (queue: ConsumeQueue, msg: RecordIndexFields, physicalOffset: number, size: number) => {
    let plan = rebuild.get(queue);
    if (plan === undefined) {
      plan = { buf: Buffer.allocUnsafe(REBUILD_CHUNK * CQ_ENTRY_SIZE), count: 0 };
      rebuild.set(queue, plan);
    }
    const expected = queue.maxOffset + plan.count;
    if (msg.queueOffset !== expected) {
      return `queue offset ${msg.queueOffset} of ${msg.topic}/${msg.queueId}, expected ${expected}`;
    }
    const tags = getProperty(msg.properties, PropertyKey.TAGS);
    writeCqEntry(
      plan.buf,
      plan.count * CQ_ENTRY_SIZE,
      physicalOffset,
      size,
      tags === undefined ? 0 : tagsHashCode(tags),
    );
    plan.count++;
    for (const key of keysOf(msg.properties)) keyIndex.add(msg.topic, key, physicalOffset);
    return plan.count === REBUILD_CHUNK ? flushQueue(queue, plan).then(() => undefined) : undefined;
  };
  // Synchronous per record unless a queue must be created or a chunk written.
  const result = await scanCommitLog(log, (msg, physicalOffset, size) => {
    const queue = queues.queueOf(msg.topic, msg.queueId);
    if (queue !== undefined) return index(queue, msg, physicalOffset, size);
    return queues.createQueue(msg.topic, msg.queueId).then((q) => index(q, msg, physicalOffset, size));
  });
  for (const [queue, plan] of rebuild) await flushQueue(queue, plan);
  return result;
}
