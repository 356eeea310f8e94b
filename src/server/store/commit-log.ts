/**
 * The commit log: fixed-size segment files of stored-format records (docs/protocol.md §6.2),
 * named by their first physical offset. This file owns where records go (appending, rolling to
 * the next segment behind a blank record), making them durable (fdatasync, with a timeout in
 * sync mode, periodically in async mode) and undoing a failed append. What the records mean —
 * queue offsets, indexes, which puts share a batch — is `MessageStore`'s business.
 */
import { join } from 'node:path';
import type { Logger } from '../../observability/logger.js';
import { BLANK_MAGIC_CODE } from '../../protocol/message/stored-message.js';
import type { StoreOptions } from './options.js';
import { failAppendIfDiskFull } from './fault-injection.js';
import { END_FILE_MIN_BLANK_LENGTH } from './recovery.js';
import { SegmentedFile } from './segmented-file.js';
import type { PutStatus } from './types.js';

interface PendingWrite {
  offset: number;
  parts: Buffer[];
  bytes: number;
  /** The segment ends after `parts`: fill the rest of it. */
  blank: boolean;
}

/**
 * Records laid out from one start position: each `reserve` moves to the next segment when the
 * bytes to come (plus the end-of-file blank) do not fit in the current one, as Java's
 * `MappedFile.appendMessage` answers END_OF_FILE.
 */
export class LogAppend {
  private readonly writes: PendingWrite[] = [];
  private cur: PendingWrite;
  private position: number;

  constructor(
    readonly startPos: number,
    private readonly segmentSize: number,
  ) {
    this.position = startPos;
    this.cur = { offset: startPos, parts: [], bytes: 0, blank: false };
  }

  /** Physical offset the next record gets. */
  get pos(): number {
    return this.position;
  }

  /** Keeps the next `size` bytes in one segment, closing this one with a blank record if needed. */
  reserve(size: number): void {
    const inSeg = this.position % this.segmentSize;
    if (inSeg + size + END_FILE_MIN_BLANK_LENGTH <= this.segmentSize) return;
    const blank = Buffer.allocUnsafe(8);
    blank.writeInt32BE(this.segmentSize - inSeg, 0);
    blank.writeInt32BE(BLANK_MAGIC_CODE, 4);
    this.cur.parts.push(blank);
    this.cur.bytes += 8;
    this.cur.blank = true;
    this.writes.push(this.cur);
    this.position += this.segmentSize - inSeg;
    this.cur = { offset: this.position, parts: [], bytes: 0, blank: false };
  }

  /** Appends an encoded record at `pos`. */
  add(record: Buffer): void {
    this.cur.parts.push(record);
    this.cur.bytes += record.length;
    this.position += record.length;
  }

  /** The positional writes, one per segment touched. */
  finish(): readonly PendingWrite[] {
    return [...this.writes, this.cur];
  }
}

export class CommitLog {
  /** Next physical offset to assign. */
  private writePos = 0;
  /** End of the records that are written, indexed and visible to readers. */
  private confirmedPos = 0;
  /** A failed write could not be rolled back; cut the log at `writePos` before the next write. */
  private tailDirty = false;
  private flushing = false;

  private constructor(
    readonly file: SegmentedFile,
    private readonly options: Readonly<StoreOptions>,
  ) {}

  /** Opens (creating) `<dataDir>/commitlog`; positions are set by `recovered`. */
  static async open(options: Readonly<StoreOptions>): Promise<CommitLog> {
    const file = await SegmentedFile.open(
      join(options.dataDir, 'commitlog'),
      options.segmentSize,
      options.testHooks,
    );
    file.syncDirOnCreate = options.flush === 'sync';
    return new CommitLog(file, options);
  }

  private get logger(): Logger {
    return this.options.logger;
  }

  /** Physical offset of the first stored byte. */
  get minOffset(): number {
    return this.file.minOffset;
  }

  /** Physical offset just past the last visible record. */
  get confirmedOffset(): number {
    return this.confirmedPos;
  }

  /** Recovery found valid records up to `endOffset`: cut off anything after it and append there. */
  async recovered(endOffset: number, stopReason: unknown): Promise<void> {
    if (this.file.endOffset > endOffset) {
      this.logger.warn('commit log: cutting off a torn or corrupt tail', {
        at: endOffset,
        droppedBytes: this.file.endOffset - endOffset,
        reason: stopReason,
      });
      await this.file.truncate(endOffset);
    }
    this.writePos = endOffset;
    this.confirmedPos = endOffset;
  }

  /** Starts laying out records at the write position, first cutting a tail a rollback left. */
  async beginAppend(): Promise<LogAppend> {
    if (this.tailDirty) {
      await this.file.truncate(this.writePos);
      this.tailDirty = false;
    }
    return new LogAppend(this.writePos, this.options.segmentSize);
  }

  /** Writes what `append` laid out (one positional write per segment, its records gathered by `pwritev`). */
  async write(append: LogAppend): Promise<void> {
    for (const w of append.finish()) {
      if (w.bytes > 0) {
        await failAppendIfDiskFull(this.options.dataDir, w.parts, w.bytes, (p) =>
          this.file.write(w.offset, p),
        );
        await this.file.writeParts(w.offset, w.parts, w.bytes);
      }
      if (w.blank) await this.file.fillSegment(w.offset);
    }
  }

  /** The append is written and indexed: readers may see it, the next one starts after it. */
  confirm(append: LogAppend): void {
    this.writePos = append.pos;
    this.confirmedPos = append.pos;
  }

  /** Undoes a failed append; if even that fails, the next `beginAppend` cuts the tail. */
  async rollback(append: LogAppend): Promise<void> {
    this.writePos = append.startPos;
    try {
      await this.file.truncate(append.startPos);
    } catch (err) {
      this.tailDirty = true;
      this.logger.error('commit log rollback failed; will retry before the next write', { err });
    }
  }

  /** fdatasync; a sync slower than `syncFlushTimeoutMs` answers FLUSH_DISK_TIMEOUT (and keeps going). */
  async syncWithTimeout(): Promise<PutStatus> {
    const sync = this.file.sync();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.syncFlushTimeoutMs);
    });
    try {
      const r = await Promise.race([sync.then(() => 'ok' as const), timeout]);
      if (r === 'timeout') {
        sync.catch((err: unknown) => this.logger.error('late commit log fsync failed', { err }));
        return 'FLUSH_DISK_TIMEOUT';
      }
      return 'PUT_OK';
    } finally {
      clearTimeout(timer);
    }
  }

  /** The async-mode timer's flush: skipped while one runs or nothing is dirty; errors are logged. */
  async backgroundFlush(): Promise<void> {
    if (this.flushing || !this.file.hasDirty) return;
    this.flushing = true;
    try {
      await this.file.sync();
    } catch (err) {
      this.logger.error('commit log flush failed', { err });
    } finally {
      this.flushing = false;
    }
  }

  sync(): Promise<void> {
    return this.file.sync();
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
