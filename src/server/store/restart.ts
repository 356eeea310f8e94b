/**
 * What a store does at open to get back to a consistent state, in time that depends on the
 * checkpoint lag and the segment size, not on how much history the store holds:
 *
 * - Consume queues and key-index files are loaded from disk as they are.
 * - With a valid checkpoint, the commit log is validated (magic, sizes, body CRC) from the
 *   start of its third-to-last segment or the checkpoint, whichever is first (Java's
 *   `recoverNormally` re-checks the last three files), and re-dispatched to the queues and the
 *   index from the checkpoint on, after the queue entries written past the checkpoint are cut.
 *   A clean close writes the checkpoint at the end of the log, so nothing is re-dispatched; after
 *   a crash (the `abort` file is still there) only what was written since the last checkpoint is.
 * - Without a usable checkpoint (new or older store, bad CRC, checkpoint past the end of the
 *   log), without any consume queue beside a non-empty log (the folder was deleted to force a
 *   rebuild), or when a queue disagrees with the log, queues and index are rebuilt from the log.
 * - A torn or corrupt tail is cut from the log and from the queues, and each queue's minimum
 *   offset moves to its first entry still in the log.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { abortFile, type StoreCheckpoint } from './checkpoint.js';
import type { CommitLog } from './commit-log.js';
import { ConsumeQueue } from './consume-queue.js';
import type { KeyIndex } from './key-index.js';
import type { StoreOptions } from './options.js';
import { replayCommitLog, type QueueDirectory, type ReplayResult } from './rebuild.js';

/** Java `recoverNormally` starts this many files before the end. */
const RECHECKED_SEGMENTS = 3;

/** How the last open went; also logged. */
export interface RecoveryInfo {
  /** The `abort` file was there: the previous run did not close the store. */
  abnormal: boolean;
  /** Recovery replayed the whole log (no usable checkpoint, or queues disagreeing with it). */
  fullRebuild: boolean;
  checkpointOffset: number | undefined;
  /** Validation started here... */
  verifiedFrom: number;
  /** ...and records from here on were dispatched to queues and index. */
  dispatchedFrom: number;
  /** Records dispatched again. */
  dispatched: number;
  /** Records read (validated or dispatched). */
  records: number;
  endOffset: number;
  ms: number;
}

export interface RecoveryTarget extends QueueDirectory {
  options: Readonly<StoreOptions>;
  log: CommitLog;
  keyIndex: KeyIndex;
  keyIndexUsable: boolean;
  checkpoint: StoreCheckpoint;
  queues(): ConsumeQueue[];
  /** Closes and deletes every consume queue (full rebuild). */
  dropQueues(): Promise<void>;
}

/** Opens every `consumequeue/<topic>/<queueId>` folder that holds entry files. */
export async function loadConsumeQueues(options: Readonly<StoreOptions>): Promise<ConsumeQueue[]> {
  const root = join(options.dataDir, 'consumequeue');
  const out: ConsumeQueue[] = [];
  for (const topic of await readdirIfAny(root)) {
    for (const id of await readdirIfAny(join(root, topic))) {
      const queueId = Number(id);
      const dir = join(root, topic, id);
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(queueId) || !(await stat(dir)).isDirectory()) continue;
      const q = await ConsumeQueue.open(
        dir,
        topic,
        queueId,
        options.consumeQueueEntriesPerFile,
        options.testHooks,
      );
      if (q.isEmpty) await q.close();
      else out.push(q);
    }
  }
  return out;
}

async function readdirIfAny(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return [];
    throw err;
  }
}

export async function recoverStore(
  t: RecoveryTarget,
): Promise<{ info: RecoveryInfo; lastStoreTimestamp: number }> {
  const started = Date.now();
  const dataDir = t.options.dataDir;
  const abnormal = await abortFile.exists(dataDir);
  const cp = await t.checkpoint.load();
  const file = t.log.file;
  const segs = file.list();
  let result: ReplayResult | undefined;
  let verifiedFrom = file.minOffset;
  let dispatchedFrom = file.minOffset;
  // No queue at all beside a non-empty log: the consume queues were deleted (to rebuild them).
  const queuesLost = t.queues().length === 0 && file.endOffset > file.minOffset;
  if (
    cp !== undefined &&
    t.keyIndexUsable &&
    !queuesLost &&
    cp.recoverOffset >= file.minOffset &&
    cp.recoverOffset <= file.endOffset
  ) {
    dispatchedFrom = cp.recoverOffset;
    const recheck = segs[Math.max(0, segs.length - RECHECKED_SEGMENTS)]?.start ?? file.minOffset;
    verifiedFrom = Math.min(recheck, dispatchedFrom);
    for (const q of t.queues()) await q.truncateFromPhysical(dispatchedFrom);
    result = await replayCommitLog(file, t.keyIndex, t, {
      verifyFrom: verifiedFrom,
      dispatchFrom: dispatchedFrom,
      fresh: false,
    });
    if (result.mismatch) {
      t.options.logger.warn('consume queues disagree with the commit log; rebuilding them', {
        dataDir,
        at: result.endOffset,
      });
      result = undefined;
    }
  }
  const fullRebuild = result === undefined;
  if (result === undefined) {
    verifiedFrom = dispatchedFrom = file.minOffset;
    await t.dropQueues();
    await t.keyIndex.clear();
    await rm(join(dataDir, 'consumequeue'), { recursive: true, force: true });
    result = await replayCommitLog(file, t.keyIndex, t, {
      verifyFrom: verifiedFrom,
      dispatchFrom: dispatchedFrom,
      fresh: true,
    });
  }
  const cutTail = result.endOffset < file.endOffset;
  await t.log.recovered(result.endOffset, result.stopReason);
  for (const q of t.queues()) {
    if (cutTail) await q.truncateFromPhysical(result.endOffset);
    await q.correctMinOffset(file.minOffset);
  }
  const info: RecoveryInfo = {
    abnormal,
    fullRebuild,
    checkpointOffset: cp?.recoverOffset,
    verifiedFrom,
    dispatchedFrom,
    dispatched: result.dispatched,
    records: result.records,
    endOffset: result.endOffset,
    ms: Date.now() - started,
  };
  t.options.logger.info('message store recovered', { dataDir, ...info });
  return { info, lastStoreTimestamp: result.lastStoreTimestamp || (cp?.timestamp ?? 0) };
}
