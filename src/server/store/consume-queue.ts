/**
 * One consume queue: the index of a (topic, queueId) into the commit log. Entry `n` lives at
 * byte `n * 20` of the queue's segmented file and is Java's layout:
 * int64 commitLogOffset, int32 size, int64 tagsCode.
 */
import { readInt64, setInt64, writeInt64 } from '../../protocol/message/int64.js';
import { SegmentedFile } from './segmented-file.js';
import { BlockCache } from './block-cache.js';
import type { StoreTestHooks } from './options.js';
import { javaStringHashCode } from '../../protocol/java-string-hash.js';

export const CQ_ENTRY_SIZE = 20;
/** The in-memory block of a queue's entries: 800 entries, 25 pulls of 32. */
const CQ_BLOCK_BYTES = 800 * CQ_ENTRY_SIZE;

export interface CqEntry {
  physicalOffset: number;
  size: number;
  tagsCode: number;
}

/** The tagsCode of a message with TAGS (0 without): Java `String.hashCode()` of the tags. */
export const tagsHashCode = javaStringHashCode;

export function writeCqEntry(
  buf: Buffer,
  at: number,
  physicalOffset: number,
  size: number,
  tagsCode: number,
): void {
  writeInt64(buf, physicalOffset, at);
  buf.writeInt32BE(size, at + 8);
  writeInt64(buf, tagsCode, at + 12);
}

/**
 * Entries from `fields` (physical offset, size, tags code per entry, flat) in one buffer: the
 * append path writes every stored message's entry through here.
 */
export function encodeCqEntries(fields: readonly number[]): Buffer {
  const buf = Buffer.allocUnsafe((fields.length / 3) * CQ_ENTRY_SIZE);
  writeCqFields(new DataView(buf.buffer, buf.byteOffset, buf.byteLength), 0, fields);
  return buf;
}

/** Writes the entries of `fields` (as `encodeCqEntries`) at `at` of `view`; returns the end. */
function writeCqFields(view: DataView, at: number, fields: readonly number[]): number {
  for (let i = 0; i < fields.length; i += 3, at += CQ_ENTRY_SIZE) {
    setInt64(view, at, fields[i]!);
    view.setInt32(at + 8, fields[i + 1]!);
    setInt64(view, at + 12, fields[i + 2]!);
  }
  return at;
}

/** A stored batch's records as consume-queue entries: placed at `pos`, record i at `pos + starts[i]`. */
interface BatchRun {
  readonly pos: number;
  readonly starts: Int32Array;
  readonly tagsCodes: Int32Array;
  readonly count: number;
}

/**
 * The entries one append adds to a queue, in order, encoded into one buffer when written. A
 * stored batch is kept as its record starts and tags codes (read once, at encoding) instead of
 * three numbers pushed per record into a growing array.
 */
export class CqEntries {
  /** Entries added. */
  count = 0;
  private readonly runs: Array<number[] | BatchRun> = [];

  /** One message's entry. */
  addOne(physicalOffset: number, size: number, tagsCode: number): void {
    let last = this.runs[this.runs.length - 1];
    if (!Array.isArray(last)) {
      last = [];
      this.runs.push(last);
    }
    last.push(physicalOffset, size, tagsCode);
    this.count++;
  }

  /** The `count` records of a batch placed at `pos` (`starts` has `count + 1` entries). */
  addBatch(pos: number, starts: Int32Array, tagsCodes: Int32Array, count: number): void {
    this.runs.push({ pos, starts, tagsCodes, count });
    this.count += count;
  }

  encode(): Buffer {
    const buf = Buffer.allocUnsafe(this.count * CQ_ENTRY_SIZE);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let at = 0;
    for (const run of this.runs) {
      if (Array.isArray(run)) {
        at = writeCqFields(view, at, run);
        continue;
      }
      const { pos, starts, tagsCodes } = run;
      for (let i = 0; i < run.count; i++, at += CQ_ENTRY_SIZE) {
        const start = starts[i]!;
        setInt64(view, at, pos + start);
        view.setInt32(at + 8, starts[i + 1]! - start);
        // An int32 tags code as int64: the high word is its sign.
        const tags = tagsCodes[i]!;
        view.setInt32(at + 12, tags >> 31);
        view.setInt32(at + 16, tags);
      }
    }
    return buf;
  }
}

export function readCqEntry(buf: Buffer, at: number): CqEntry {
  return {
    physicalOffset: readInt64(buf, at) ?? -1,
    size: buf.readInt32BE(at + 8),
    tagsCode: readInt64(buf, at + 12) ?? 0,
  };
}

export class ConsumeQueue {
  readonly topic: string;
  readonly queueId: number;
  /** Offset of the first entry. */
  minOffset = 0;
  /** Offset one past the last entry that is written and visible to readers. */
  maxOffset = 0;
  private readonly file: SegmentedFile;
  /** The entries pulls read lately (block-cache.ts); its buffer is allocated on first use. */
  private readonly recent: BlockCache;

  private constructor(topic: string, queueId: number, file: SegmentedFile) {
    this.topic = topic;
    this.queueId = queueId;
    this.file = file;
    this.recent = new BlockCache(file, 1, CQ_BLOCK_BYTES);
  }

  /**
   * Opens (creating) the queue folder with the entries it holds; a torn last entry is cut off.
   * `minOffset` is the first entry of the oldest file until `correctMinOffset` refines it.
   */
  static async open(
    dir: string,
    topic: string,
    queueId: number,
    entriesPerFile: number,
    hooks?: StoreTestHooks,
  ): Promise<ConsumeQueue> {
    const file = await SegmentedFile.open(dir, entriesPerFile * CQ_ENTRY_SIZE, hooks);
    const torn = file.endOffset % CQ_ENTRY_SIZE;
    if (torn !== 0) await file.truncate(file.endOffset - torn);
    const queue = new ConsumeQueue(topic, queueId, file);
    queue.minOffset = file.minOffset / CQ_ENTRY_SIZE;
    queue.maxOffset = file.endOffset / CQ_ENTRY_SIZE;
    return queue;
  }

  /** Holds no entry file (a queue folder left empty). */
  get isEmpty(): boolean {
    return this.file.segmentCount === 0;
  }

  /**
   * Recovery: drops the entries of records at or after commit-log offset `physicalOffset`,
   * and any invalid (zero-filled) entry at the tail, walking back from the end. Only the
   * entries written since the last checkpoint are visited.
   */
  async truncateFromPhysical(physicalOffset: number): Promise<void> {
    const chunk = 1024;
    let keep = this.maxOffset;
    while (keep > this.minOffset) {
      const from = Math.max(this.minOffset, keep - chunk);
      const raw = await this.readEntries(from, keep - from);
      let i = raw.length / CQ_ENTRY_SIZE;
      while (i > 0) {
        const e = readCqEntry(raw, (i - 1) * CQ_ENTRY_SIZE);
        if (e.size > 0 && e.physicalOffset < physicalOffset) break;
        i--;
      }
      keep = from + i;
      if (i > 0 || raw.length === 0) break;
    }
    if (keep < this.maxOffset) await this.truncate(keep);
  }

  /**
   * Java `correctMinLogicOffset`: the first entry whose record is still in the commit log
   * (physical offset >= `logMinOffset`) becomes `minOffset`; `maxOffset` when there is none.
   * Entries are in commit-log order, so this is a binary search.
   */
  async correctMinOffset(logMinOffset: number): Promise<void> {
    // Usually the first entry is still in the log: one read instead of a search.
    const first = await this.entryAt(this.minOffset);
    if (first !== undefined && first.size > 0 && first.physicalOffset >= logMinOffset) return;
    let lo = this.minOffset;
    let hi = this.maxOffset;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const e = await this.entryAt(mid);
      if (e === undefined || e.size <= 0 || e.physicalOffset < logMinOffset) lo = mid + 1;
      else hi = mid;
    }
    this.minOffset = lo;
  }

  /**
   * Java `deleteExpiredFile(offset)`: deletes the oldest files whose last entry points below
   * `logMinOffset`, never the newest one. Returns how many were deleted.
   */
  async deleteExpired(logMinOffset: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const segs = this.file.list();
      const first = segs[0];
      if (first === undefined || segs.length < 2) break;
      const lastEntry = (first.start + first.size) / CQ_ENTRY_SIZE - 1;
      const e = lastEntry >= this.minOffset ? await this.entryAt(lastEntry) : undefined;
      if (e !== undefined && e.physicalOffset >= logMinOffset) break;
      await this.file.deleteFirst();
      deleted++;
    }
    const floor = this.file.minOffset / CQ_ENTRY_SIZE;
    if (this.minOffset < floor) this.minOffset = floor;
    return deleted;
  }

  /** fdatasync of what was written since the last sync (the checkpoint's flush). */
  sync(): Promise<void> {
    return this.file.sync();
  }

  get hasDirty(): boolean {
    return this.file.hasDirty;
  }

  /** Writes entries starting at queue offset `first`, which must be `maxOffset` or pending past it. */
  async write(first: number, entries: Buffer): Promise<void> {
    await this.file.write(first * CQ_ENTRY_SIZE, entries);
  }

  /**
   * Raw entries `[offset, offset + count)` clipped to what is visible. With `viaBlock` (pulls)
   * from the queue's in-memory block (copied out: the block may move before the caller reads; a
   * block is only allocated for queues read this way, not for every queue a restart looks at);
   * else read synchronously when the file is open: entries are 20 bytes, written moments ago, and
   * a pull needs them before anything else, so the thread-pool round trip would only add latency.
   */
  async readEntries(offset: number, count: number, viaBlock = false): Promise<Buffer> {
    const n = Math.max(0, Math.min(count, this.maxOffset - offset));
    if (n === 0 || offset < this.minOffset) return Buffer.alloc(0);
    const at = offset * CQ_ENTRY_SIZE;
    const len = n * CQ_ENTRY_SIZE;
    const cached = viaBlock ? this.recent.read(at, len, this.maxOffset * CQ_ENTRY_SIZE) : undefined;
    if (cached !== undefined) return Buffer.from(cached);
    const buf = this.file.readSyncIfOpen(at, len) ?? (await this.file.read(at, len));
    return buf.subarray(0, buf.length - (buf.length % CQ_ENTRY_SIZE));
  }

  async entryAt(offset: number): Promise<CqEntry | undefined> {
    const buf = await this.readEntries(offset, 1);
    return buf.length === CQ_ENTRY_SIZE ? readCqEntry(buf, 0) : undefined;
  }

  /** Drops entries at or after `offset` (rollback of a failed append). */
  async truncate(offset: number): Promise<void> {
    // Only entries not yet visible are cut in service, but recovery cuts visible ones.
    this.recent.clear();
    await this.file.truncate(offset * CQ_ENTRY_SIZE);
    if (this.maxOffset > offset) this.maxOffset = offset;
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
