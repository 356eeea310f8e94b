/**
 * Disk reclamation (Java `DefaultMessageStore.CleanCommitLogService` then
 * `CleanConsumeQueueService`; facts in docs/architecture.md, store retention):
 *
 * - A commit-log file is expired when its last write is older than `fileReservedTime` hours.
 *   Expired files are deleted at the hours of `deleteWhen`, or at any hour once the disk is
 *   more than `diskMaxUsedSpaceRatio` % used. Above `diskSpaceCleanForciblyRatio` files go even
 *   unexpired (with `cleanFileForciblyEnable`); above `diskSpaceWarningLevelRatio` the store
 *   also refuses puts as disk full until use is back under the forcible ratio.
 * - Oldest first, never the newest file, at most `deleteFileBatchMax` per pass, stopping at the
 *   first file that must stay.
 * - Ours, not Java's: a file holding a message some consumer group has not consumed yet (at or
 *   after its committed offset) stays, unless the disk forces deletion — then it goes and the
 *   groups that lose messages are logged.
 * - Then consume-queue files wholly below the new commit-log start and key-index files whose
 *   last offset is below it are deleted, and every queue's minimum offset moves up.
 */
import { statfs, stat } from 'node:fs/promises';
import type { Logger } from '../../observability/logger.js';
import type { ConsumeQueue } from './consume-queue.js';
import type { KeyIndex } from './key-index.js';
import type { ConsumerOffsetStore } from './offset-store.js';
import type { StoreOptions } from './options.js';
import type { SegmentedFile } from './segmented-file.js';

/** Java hard-codes the first clean 60 s after start. */
export const FIRST_CLEAN_DELAY_MS = 60_000;

/** A queue position some broker mechanism still needs (the timer's undelivered wheel, ...). */
export interface RetentionPin {
  topic: string;
  queueId: number;
  offset: number;
}

export interface RetentionSource {
  options: Readonly<StoreOptions>;
  log: SegmentedFile;
  keyIndex: KeyIndex;
  consumerOffsets: ConsumerOffsetStore;
  queues(): ConsumeQueue[];
  queueOf(topic: string, queueId: number): ConsumeQueue | undefined;
  /** Positions registered by other mechanisms, by owner name; pinned like a group's offset. */
  pins: ReadonlyMap<string, () => Iterable<RetentionPin>>;
  /** Sets the store's disk-full flag (puts answer SERVICE_NOT_AVAILABLE while set). */
  setDiskFull(full: boolean): void;
}

/** What one pass did. */
export interface CleanResult {
  /** Used fraction of the store's disk as probed. */
  diskUsedRatio: number;
  /** Why files could go: the hour, the disk above the max ratio, the disk above the forcible ratio. */
  timeToDelete: boolean;
  spaceToDelete: boolean;
  forced: boolean;
  commitLogFilesDeleted: number;
  consumeQueueFilesDeleted: number;
  indexFilesDeleted: number;
  /** Groups (topic@group) whose unconsumed messages kept a file, or were deleted by force. */
  pinnedBy: string[];
  minPhysicalOffset: number;
}

interface Pin {
  offset: number;
  groups: string[];
}

export class Retention {
  private running: Promise<CleanResult> | undefined;
  /** Log start the queues and index were last cleaned for; -1: not yet (the first pass cleans). */
  private cleanedUpTo = -1;

  constructor(private readonly src: RetentionSource) {}

  private get options(): Readonly<StoreOptions> {
    return this.src.options;
  }

  private get logger(): Logger {
    return this.src.options.logger;
  }

  private now(): number {
    return this.options.testHooks?.now?.() ?? Date.now();
  }

  /** One pass; concurrent calls share it. */
  run(): Promise<CleanResult> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no pass is running (close waits for it). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** Java `UtilAll#isItTimeToDo`: the current local hour is one of `deleteWhen`. */
  isTimeToDelete(): boolean {
    const hour = new Date(this.now()).getHours();
    return this.options.deleteWhen.split(';').some((h) => Number(h) === hour);
  }

  /** Used fraction of the disk holding the store: (blocks − free) / blocks, as Java's `getFreeSpace`. */
  async diskUsedRatio(): Promise<number> {
    const probe = this.options.testHooks?.diskUsedRatio;
    if (probe !== undefined) return probe(this.options.dataDir);
    try {
      const s = await statfs(this.options.dataDir);
      return s.blocks > 0 ? (s.blocks - s.bfree) / s.blocks : -1;
    } catch (err) {
      this.logger.warn('disk usage probe failed', { err });
      return -1;
    }
  }

  private async pass(): Promise<CleanResult> {
    const o = this.options;
    const ratio = await this.diskUsedRatio();
    // Java `isSpaceToDelete`, including its side effect on the disk-full flag.
    let cleanImmediately = false;
    if (ratio > o.diskSpaceWarningLevelRatio) {
      this.src.setDiskFull(true);
      cleanImmediately = true;
    } else if (ratio > o.diskSpaceCleanForciblyRatio) {
      cleanImmediately = true;
    } else {
      this.src.setDiskFull(false);
    }
    const spaceToDelete = ratio < 0 || ratio > o.diskMaxUsedSpaceRatio / 100;
    const timeToDelete = this.isTimeToDelete();
    const forced = o.cleanFileForciblyEnable && cleanImmediately;
    const result: CleanResult = {
      diskUsedRatio: ratio,
      timeToDelete,
      spaceToDelete,
      forced,
      commitLogFilesDeleted: 0,
      consumeQueueFilesDeleted: 0,
      indexFilesDeleted: 0,
      pinnedBy: [],
      minPhysicalOffset: this.src.log.minOffset,
    };
    if (timeToDelete || spaceToDelete) {
      await this.deleteCommitLogFiles(forced, result);
    }
    await this.cleanQueuesAndIndex(result);
    result.minPhysicalOffset = this.src.log.minOffset;
    return result;
  }

  /** Java `MappedFileQueue#deleteExpiredFileByTime` plus the consumer-group pin. */
  private async deleteCommitLogFiles(forced: boolean, result: CleanResult): Promise<void> {
    const o = this.options;
    const log = this.src.log;
    const reservedMs = o.fileReservedTime * 3600_000;
    const pin = await this.pin();
    const lostBy = new Set<string>();
    while (log.segmentCount > 1 && result.commitLogFilesDeleted < o.deleteFileBatchMax) {
      const seg = log.list()[0]!;
      const expired = this.now() >= (await stat(seg.path)).mtimeMs + reservedMs;
      if (!expired && !forced) break;
      const segEnd = seg.start + log.segmentSize;
      if (pin !== undefined && segEnd > pin.offset) {
        if (!forced) {
          result.pinnedBy = pin.groups;
          this.logger.info('retention: keeping a commit-log file a consumer group still needs', {
            file: seg.path,
            groups: pin.groups,
          });
          break;
        }
        for (const g of pin.groups) lostBy.add(g);
      }
      await log.deleteFirst();
      result.commitLogFilesDeleted++;
      this.logger.info('retention: deleted commit-log file', { file: seg.path, expired, forced });
      if (o.deleteCommitLogFilesIntervalMs > 0 && log.segmentCount > 1)
        await new Promise((r) => setTimeout(r, o.deleteCommitLogFilesIntervalMs));
    }
    if (lostBy.size > 0) {
      result.pinnedBy = [...lostBy];
      this.logger.warn('retention: disk nearly full, deleted messages consumer groups had not consumed', {
        groups: result.pinnedBy,
        diskUsedRatio: result.diskUsedRatio,
        minPhysicalOffset: log.minOffset,
      });
    }
  }

  /**
   * The lowest commit-log offset some group (or registered mechanism) still needs: the record
   * at its committed offset, for each (group, topic, queue) whose offset lies inside the queue.
   * Undefined when none.
   */
  private async pin(): Promise<Pin | undefined> {
    let best: Pin | undefined;
    const positions: Array<RetentionPin & { who: string }> = [];
    for (const { group, topic, offsets } of this.src.consumerOffsets.entries())
      for (const [queueId, offset] of offsets)
        positions.push({ topic, queueId, offset, who: `${topic}@${group}` });
    for (const [owner, pins] of this.src.pins)
      for (const p of pins()) positions.push({ ...p, who: `${p.topic}@${owner}` });
    for (const { topic, queueId, offset, who } of positions) {
      const q = this.src.queueOf(topic, queueId);
      if (q === undefined || offset < q.minOffset || offset >= q.maxOffset) continue;
      const e = await q.entryAt(offset);
      if (e === undefined) continue;
      if (best === undefined || e.physicalOffset < best.offset)
        best = { offset: e.physicalOffset, groups: [who] };
      else if (e.physicalOffset < best.offset + this.src.log.segmentSize && !best.groups.includes(who))
        best.groups.push(who);
    }
    return best;
  }

  /** Java `CleanConsumeQueueService`: queue and index files below the commit log's start. */
  private async cleanQueuesAndIndex(result: CleanResult): Promise<void> {
    const min = this.src.log.minOffset;
    // Only a move of the log start (or the first pass) gives something to delete.
    if (min === this.cleanedUpTo) return;
    this.cleanedUpTo = min;
    for (const q of this.src.queues()) {
      result.consumeQueueFilesDeleted += await q.deleteExpired(min);
      await q.correctMinOffset(min);
    }
    result.indexFilesDeleted = await this.src.keyIndex.deleteExpired(min);
  }
}
