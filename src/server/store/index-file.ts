/**
 * One key-index file in Java's `IndexFile` layout (`<dataDir>/index/<yyyyMMddHHmmssSSS>`):
 *
 *   header (40 B): beginTimestamp i64, endTimestamp i64, beginPhyOffset i64, endPhyOffset i64,
 *                  hashSlotCount i32, indexCount i32 (starts at 1: entry 0 is never used)
 *   slots  (4 B each, `hashSlotNum`): number of the newest entry whose hash falls in the slot, 0 = none
 *   entries (20 B each, `indexNum`): keyHash i32, phyOffset i64, timeDiff i32 (seconds after
 *                  beginTimestamp), prevIndex i32 (previous entry of the same slot, 0 = none)
 *
 * The writable file lives in a buffer and reaches the disk at each checkpoint (only the bytes
 * changed since the last one) and when it is full; full files are read from disk.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { readInt64, setInt64, writeInt64 } from '../../protocol/message/int64.js';

export const INDEX_HEADER_SIZE = 40;
const SLOT_SIZE = 4;
const ENTRY_SIZE = 20;
/** Slot bytes are tracked for flushing by pages of this size (a shift of PAGE_BITS). */
const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
/**
 * Dirty slot pages this close together are written as one run (the clean pages between them
 * again, unchanged): keys hash all over the slots, and one write per page cost thousands of
 * writes per checkpoint under load.
 */
const MAX_CLEAN_GAP_PAGES = 8;

export interface IndexGeometry {
  hashSlotNum: number;
  indexNum: number;
}

export function indexFileSize(g: IndexGeometry): number {
  return INDEX_HEADER_SIZE + g.hashSlotNum * SLOT_SIZE + g.indexNum * ENTRY_SIZE;
}

interface Header {
  beginTimestamp: number;
  endTimestamp: number;
  beginPhyOffset: number;
  endPhyOffset: number;
  hashSlotCount: number;
  indexCount: number;
}

export class IndexFile {
  readonly header: Header;
  /** The whole file while it is writable; undefined once it is on disk for good. */
  private buf: Buffer | undefined;
  private handle: FileHandle | undefined;
  /** `buf` as a DataView (`put` runs for every key stored). */
  private view: DataView | undefined;
  /** Entries below this number and slot pages not marked in `dirtyPages` are on disk. */
  private flushedCount: number;
  /** 1 for each slot page changed since the last flush. */
  private readonly dirtyPages: Uint8Array;
  private flushing: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    readonly geometry: IndexGeometry,
    header: Header,
    buf: Buffer | undefined,
  ) {
    this.header = header;
    this.buf = buf;
    this.view = buf === undefined ? undefined : new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.flushedCount = header.indexCount;
    this.dirtyPages = new Uint8Array(Math.ceil(this.slotsEnd / PAGE));
  }

  /** End of the slot table. */
  private get slotsEnd(): number {
    return INDEX_HEADER_SIZE + this.geometry.hashSlotNum * SLOT_SIZE;
  }

  /** A new, writable file (created on disk at its first flush). */
  static create(path: string, geometry: IndexGeometry, after: number): IndexFile {
    const header: Header = {
      beginTimestamp: 0,
      endTimestamp: 0,
      beginPhyOffset: after,
      endPhyOffset: after,
      hashSlotCount: 0,
      indexCount: 1,
    };
    const file = new IndexFile(path, geometry, header, Buffer.alloc(indexFileSize(geometry)));
    file.flushedCount = 0;
    return file;
  }

  /**
   * Opens an existing file; a file that is not full is read into memory to take more keys.
   * Returns undefined when its size does not match `geometry`.
   */
  static async load(path: string, geometry: IndexGeometry): Promise<IndexFile | undefined> {
    const handle = await open(path, 'r+');
    try {
      const { size } = await handle.stat();
      if (size !== indexFileSize(geometry)) {
        await handle.close();
        return undefined;
      }
      const head = Buffer.alloc(INDEX_HEADER_SIZE);
      await handle.read(head, 0, INDEX_HEADER_SIZE, 0);
      const header: Header = {
        beginTimestamp: readInt64(head, 0) ?? 0,
        endTimestamp: readInt64(head, 8) ?? 0,
        beginPhyOffset: readInt64(head, 16) ?? 0,
        endPhyOffset: readInt64(head, 24) ?? 0,
        hashSlotCount: head.readInt32BE(32),
        indexCount: Math.max(1, Math.min(head.readInt32BE(36), geometry.indexNum)),
      };
      let buf: Buffer | undefined;
      if (header.indexCount < geometry.indexNum) {
        buf = Buffer.alloc(size);
        await handle.read(buf, 0, size, 0);
      }
      const file = new IndexFile(path, geometry, header, buf);
      if (buf !== undefined) file.repairSlots(buf);
      file.handle = handle;
      if (buf !== undefined) file.writeHeader(buf);
      return file;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * A flush cut short by a crash can leave slots naming entries past the header's count (slots
   * are written before the header). Walks such chains back to the counted entries, so keys the
   * recovery adds again link to the right predecessors.
   */
  private repairSlots(buf: Buffer): void {
    const count = this.header.indexCount;
    for (let s = 0; s < this.geometry.hashSlotNum; s++) {
      const at = INDEX_HEADER_SIZE + s * SLOT_SIZE;
      let n = buf.readInt32BE(at);
      if (n < count && n >= 0) continue;
      for (let hops = 0; (n >= count || n < 0) && hops < this.geometry.indexNum; hops++) {
        n = n < 0 || n >= this.geometry.indexNum ? 0 : buf.readInt32BE(this.entryPos(n) + 16);
      }
      buf.writeInt32BE(n >= count || n < 0 ? 0 : n, at);
      this.dirtyPages[at >> PAGE_BITS] = 1;
    }
    buf.fill(0, this.entryPos(count));
  }

  get isFull(): boolean {
    return this.header.indexCount >= this.geometry.indexNum;
  }

  get writable(): boolean {
    return this.buf !== undefined;
  }

  /** Java `IndexFile#putKey`; false when the file is full. */
  put(keyHash: number, phyOffset: number, storeTimestamp: number): boolean {
    const view = this.view;
    const h = this.header;
    if (view === undefined || h.indexCount >= this.geometry.indexNum) return false;
    const slotAt = INDEX_HEADER_SIZE + (keyHash % this.geometry.hashSlotNum) * SLOT_SIZE;
    let prev = view.getInt32(slotAt);
    if (prev < 0 || prev >= h.indexCount) prev = 0;
    if (h.indexCount <= 1) {
      h.beginTimestamp = storeTimestamp;
      h.beginPhyOffset = phyOffset;
    }
    let timeDiff = Math.floor((storeTimestamp - h.beginTimestamp) / 1000);
    timeDiff = h.beginTimestamp <= 0 || timeDiff < 0 ? 0 : Math.min(timeDiff, 0x7fffffff);
    const n = h.indexCount;
    const at = this.entryPos(n);
    view.setInt32(at, keyHash);
    setInt64(view, at + 4, phyOffset);
    view.setInt32(at + 12, timeDiff);
    view.setInt32(at + 16, prev);
    view.setInt32(slotAt, n);
    this.dirtyPages[slotAt >> PAGE_BITS] = 1;
    if (prev === 0) h.hashSlotCount++;
    h.indexCount++;
    h.endPhyOffset = phyOffset;
    h.endTimestamp = storeTimestamp;
    return true;
  }

  /** Java `isTimeMatched`: the file's time range meets [begin, end]. */
  timeMatches(begin: number, end: number): boolean {
    const h = this.header;
    return (
      (begin < h.beginTimestamp && end > h.endTimestamp) ||
      (begin >= h.beginTimestamp && begin <= h.endTimestamp) ||
      (end >= h.beginTimestamp && end <= h.endTimestamp)
    );
  }

  /**
   * Java `selectPhyOffset`: offsets of the entries of `keyHash` stored in [begin, end] (to the
   * second, as the file keeps), newest first, appended to `out` up to `maxNum`.
   */
  async select(keyHash: number, maxNum: number, begin: number, end: number, out: number[]): Promise<void> {
    const h = this.header;
    const slot = await this.int32(INDEX_HEADER_SIZE + (keyHash % this.geometry.hashSlotNum) * SLOT_SIZE);
    let n = slot;
    const seen = new Set<number>();
    while (out.length < maxNum && n > 0 && n < h.indexCount && !seen.has(n)) {
      seen.add(n);
      const e = await this.bytes(this.entryPos(n), ENTRY_SIZE);
      const time = h.beginTimestamp + e.readInt32BE(12) * 1000;
      // Times are kept in whole seconds: widen `begin` by one so the caller's exact check decides.
      if (e.readInt32BE(0) === keyHash && time >= begin - 999 && time <= end) {
        out.push(readInt64(e, 4) ?? -1);
      }
      if (time < begin - 999) break;
      n = e.readInt32BE(16);
    }
  }

  /** Writes what changed since the last flush and fdatasyncs; with `seal`, drops the buffer. */
  flush(seal = false): Promise<void> {
    const run = this.flushing.then(() => this.doFlush(seal));
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async doFlush(seal: boolean): Promise<void> {
    const buf = this.buf;
    if (buf === undefined) return;
    // A consistent snapshot, taken synchronously: keys added while the writes are under way
    // belong to the next flush, and the header on disk never counts an entry not yet written.
    const count = this.header.indexCount;
    const from = this.entryPos(this.flushedCount);
    const to = this.entryPos(count);
    const entries = Buffer.from(buf.subarray(from, to));
    const runs = this.takeDirtyRuns(buf);
    const head = Buffer.alloc(INDEX_HEADER_SIZE);
    this.writeHeader(head);
    try {
      if (this.handle === undefined) {
        this.handle = await open(this.path, 'w+');
        await this.handle.truncate(buf.length);
      }
      const handle = this.handle;
      if (entries.length > 0) await handle.write(entries, 0, entries.length, from);
      for (const r of runs) await handle.write(r.bytes, 0, r.bytes.length, r.at);
      await handle.write(head, 0, INDEX_HEADER_SIZE, 0);
      await handle.datasync();
    } catch (err) {
      for (const r of runs)
        this.dirtyPages.fill(1, r.at >> PAGE_BITS, (r.at + r.bytes.length + PAGE - 1) >> PAGE_BITS);
      throw err;
    }
    this.flushedCount = count;
    if (seal) {
      this.buf = undefined;
      this.view = undefined;
    }
  }

  /**
   * Copies of the dirty slot pages, neighbours merged into runs (`MAX_CLEAN_GAP_PAGES`), and
   * marks them clean: the snapshot a flush writes.
   */
  private takeDirtyRuns(buf: Buffer): Array<{ at: number; bytes: Buffer }> {
    const dirty = this.dirtyPages;
    const slotsEnd = this.slotsEnd;
    const runs: Array<{ at: number; bytes: Buffer }> = [];
    let p = dirty.indexOf(1);
    while (p >= 0) {
      let last = p;
      for (let q = p + 1; q < dirty.length && q <= last + MAX_CLEAN_GAP_PAGES + 1; q++)
        if (dirty[q] === 1) last = q;
      const at = p << PAGE_BITS;
      runs.push({ at, bytes: Buffer.from(buf.subarray(at, Math.min((last + 1) << PAGE_BITS, slotsEnd))) });
      dirty.fill(0, p, last + 1);
      p = dirty.indexOf(1, last + 1);
    }
    return runs;
  }

  private writeHeader(buf: Buffer): void {
    const h = this.header;
    writeInt64(buf, h.beginTimestamp, 0);
    writeInt64(buf, h.endTimestamp, 8);
    writeInt64(buf, h.beginPhyOffset, 16);
    writeInt64(buf, h.endPhyOffset, 24);
    buf.writeInt32BE(h.hashSlotCount, 32);
    buf.writeInt32BE(h.indexCount, 36);
  }

  private entryPos(n: number): number {
    return INDEX_HEADER_SIZE + this.geometry.hashSlotNum * SLOT_SIZE + n * ENTRY_SIZE;
  }

  private async int32(at: number): Promise<number> {
    return (await this.bytes(at, 4)).readInt32BE(0);
  }

  private async bytes(at: number, len: number): Promise<Buffer> {
    if (this.buf !== undefined) return this.buf.subarray(at, at + len);
    const out = Buffer.alloc(len);
    this.handle ??= await open(this.path, 'r+');
    await this.handle.read(out, 0, len, at);
    return out;
  }

  async close(): Promise<void> {
    await this.flushing;
    const h = this.handle;
    this.handle = undefined;
    await h?.close().catch(() => undefined);
  }
}
