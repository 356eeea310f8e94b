/**
 * Recent bytes of a segmented file kept in memory for pulls, in aligned blocks (the read side of
 * Java's mmap'ed page cache). Records of one queue are interleaved with every other queue's in the
 * commit log, so a pull of 32 records of one queue spans the records of all queues written
 * meanwhile: read directly, each queue's pull reads that whole span again (eight queues: eight
 * times the bytes and syscalls). A block is read once and then serves every queue whose records
 * lie in it. A consume queue keeps one small block, so a pull's entries need no syscall either.
 *
 * Only bytes below the visible end (the confirmed end of the log, a queue's max offset) are
 * cached; those never change (a rollback only cuts bytes not yet visible, retention only drops
 * whole segments below the minimum offset, which readers check before asking; recovery runs before
 * any read). A block at the tail grows with the file: a later read adds just the missing bytes.
 */
import type { SegmentedFile } from './segmented-file.js';

/** Commit-log bytes per block (at most the segment size, which it must divide). */
export const LOG_BLOCK_BYTES = 1024 * 1024;
/** Commit-log blocks kept per store, least recently used replaced first: 8 MiB. */
export const LOG_BLOCK_COUNT = 8;

interface Block {
  start: number;
  buf: Buffer;
  /** Bytes of `buf` read from the log. */
  valid: number;
}

export class BlockCache {
  private readonly blockSize: number;
  /** Least recently used first. */
  private readonly blocks: Block[] = [];

  constructor(
    private readonly log: SegmentedFile,
    private readonly maxBlocks: number = LOG_BLOCK_COUNT,
    blockBytes: number = LOG_BLOCK_BYTES,
  ) {
    const size = Math.min(blockBytes, log.segmentSize);
    // A block must never straddle two segments (only one of which might be open).
    this.blockSize = log.segmentSize % size === 0 ? size : 0;
  }

  /** True when `[start, end)` lies within one block (then `read` can serve it). */
  holds(start: number, end: number): boolean {
    const size = this.blockSize;
    return size > 0 && Math.floor(start / size) === Math.floor((end - 1) / size);
  }

  /**
   * A view of the bytes `[offset, offset + length)`, all below `limit` (the visible end),
   * read synchronously into the block holding them; undefined when the range crosses a block
   * boundary or its segment is not open (read it another way then). The view is valid until the
   * next call: copy out of it before anything else reads.
   */
  read(offset: number, length: number, limit: number): Buffer | undefined {
    const size = this.blockSize;
    if (size === 0) return undefined;
    const start = offset - (offset % size);
    const end = offset + length;
    if (end > start + size || end > limit) return undefined;
    const block = this.blockAt(start);
    if (block.valid < end - start) {
      const want = Math.min(limit, start + size) - (start + block.valid);
      const got = this.log.readSyncIfOpen(start + block.valid, want, block.buf.subarray(block.valid));
      if (got === undefined) return undefined;
      block.valid += got.length;
      if (block.valid < end - start) return undefined;
    }
    return block.buf.subarray(offset - start, end - start);
  }

  /** The block starting at `start`, now the most recently used; a new or recycled one is empty. */
  private blockAt(start: number): Block {
    const blocks = this.blocks;
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      if (b.start !== start) continue;
      if (i !== blocks.length - 1) {
        blocks.splice(i, 1);
        blocks.push(b);
      }
      return b;
    }
    const b =
      blocks.length >= this.maxBlocks
        ? blocks.shift()!
        : { start, buf: Buffer.allocUnsafeSlow(this.blockSize), valid: 0 };
    b.start = start;
    b.valid = 0;
    blocks.push(b);
    return b;
  }

  /** Drops every block (the memory goes with them). */
  clear(): void {
    this.blocks.length = 0;
  }
}
