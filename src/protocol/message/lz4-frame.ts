/**
 * The LZ4 frame format (lz4 spec "LZ4 Frame Format Description" v1.6.x) around lz4js's block
 * codec. Java's `Lz4Compressor` writes lz4-java `LZ4FrameOutputStream` frames (docs/protocol.md
 * §4.4): independent 4 MiB blocks, no checksums but the header one. lz4js's own frame writer
 * leaves BLOCK_INDEPENDENCE unset, which lz4-java's reader refuses, and its reader skips a block
 * checksum in the wrong place; so the frame is written and read here, the blocks by lz4js.
 */
import type * as Lz4js from 'lz4js';
import type * as Xxh32 from 'lz4js/xxh32.js';
import { requireDependency } from '../../lazy-dependency.js';

/** lz4js's block codec and xxHash32, required on the first LZ4 body (lazy-dependency.ts). */
interface Lz4Codec {
  compressBlock: typeof Lz4js.compressBlock;
  compressBound: typeof Lz4js.compressBound;
  decompressBlock: typeof Lz4js.decompressBlock;
  xxh32: typeof Xxh32.hash;
  /** lz4js's match table (64 Ki entries), shared by every call: cleared, not reallocated, per block. */
  hashTable: Uint32Array;
}

let loaded: Lz4Codec | undefined;

function lz4(): Lz4Codec {
  if (loaded === undefined) {
    const blocks = requireDependency<typeof Lz4js>('lz4js');
    loaded = {
      compressBlock: blocks.compressBlock,
      compressBound: blocks.compressBound,
      decompressBlock: blocks.decompressBlock,
      xxh32: requireDependency<typeof Xxh32>('lz4js/xxh32.js').hash,
      hashTable: new Uint32Array(1 << 16),
    };
  }
  return loaded;
}

const MAGIC = 0x184d2204;
const VERSION = 0x40;
const FLG_BLOCK_INDEPENDENCE = 0x20;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
const FLG_DICT_ID = 0x01;
const UNCOMPRESSED_BIT = 0x80000000;
/** Block-size ids 4..7 → 64 KiB, 256 KiB, 1 MiB, 4 MiB. */
const BLOCK_SIZES: Readonly<Record<number, number>> = { 4: 1 << 16, 5: 1 << 18, 6: 1 << 20, 7: 1 << 22 };
const WRITE_BLOCK_ID = 7;

export class Lz4FrameError extends Error {}

/** One LZ4 frame holding `src`, as lz4-java's `LZ4FrameOutputStream(out)` shapes it. */
export function lz4FrameCompress(src: Uint8Array): Buffer {
  const { compressBlock, compressBound, xxh32, hashTable } = lz4();
  const maxBlock = BLOCK_SIZES[WRITE_BLOCK_ID] as number;
  const blocks = Math.max(1, Math.ceil(src.length / maxBlock));
  const out = Buffer.allocUnsafe(7 + blocks * (4 + compressBound(Math.min(src.length, maxBlock))) + 4);
  out.writeUInt32LE(MAGIC, 0);
  out[4] = VERSION | FLG_BLOCK_INDEPENDENCE;
  out[5] = WRITE_BLOCK_ID << 4;
  out[6] = (xxh32(0, out, 4, 2) >>> 8) & 0xff;
  let o = 7;
  const table = hashTable;
  for (let s = 0; s < src.length; s += maxBlock) {
    const n = Math.min(maxBlock, src.length - s);
    // Every block starts from a clean table: independent blocks may not reach into the previous
    // one, and a stale entry equal to the current position would pass lz4js's checks as a
    // match at offset 0 (corrupt output).
    table.fill(0);
    const size = compressBlock(src, out.subarray(o + 4), s, n, table);
    if (size === 0 || size >= n) {
      out.writeUInt32LE((UNCOMPRESSED_BIT | n) >>> 0, o);
      out.set(src.subarray(s, s + n), o + 4);
      o += 4 + n;
    } else {
      out.writeUInt32LE(size, o);
      o += 4 + size;
    }
  }
  out.writeUInt32LE(0, o);
  return out.subarray(0, o + 4);
}

/**
 * Decodes one LZ4 frame (any block size, with or without block/content checksums, content size
 * or dictionary id; dependent blocks too). Throws Lz4FrameError on a malformed frame, a bad
 * checksum or output beyond `maxOutputLength`.
 */
export function lz4FrameDecompress(src: Uint8Array, maxOutputLength = 2 ** 31 - 1): Buffer {
  const { decompressBlock, xxh32 } = lz4();
  const view = Buffer.from(src.buffer, src.byteOffset, src.byteLength);
  const need = (at: number, n: number): void => {
    if (at + n > view.length) throw new Lz4FrameError('truncated LZ4 frame');
  };
  need(0, 7);
  if (view.readUInt32LE(0) !== MAGIC) throw new Lz4FrameError('not an LZ4 frame (bad magic)');
  const flg = view[4] as number;
  if ((flg & 0xc0) !== VERSION) throw new Lz4FrameError(`unsupported LZ4 frame version in FLG ${flg}`);
  const maxBlock = BLOCK_SIZES[((view[5] as number) >> 4) & 7];
  if (maxBlock === undefined) throw new Lz4FrameError('invalid LZ4 block size id');
  const headerEnd = 6 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + (flg & FLG_DICT_ID ? 4 : 0);
  need(0, headerEnd + 1);
  if (((xxh32(0, view, 4, headerEnd - 4) >>> 8) & 0xff) !== view[headerEnd])
    throw new Lz4FrameError('LZ4 frame header checksum mismatch');
  let contentSize: number | undefined;
  if (flg & FLG_CONTENT_SIZE) {
    const size = view.readBigUInt64LE(6);
    if (size > BigInt(maxOutputLength)) throw new Lz4FrameError('LZ4 content size exceeds the limit');
    contentSize = Number(size);
  }
  let i = headerEnd + 1;
  // Dependent blocks may copy from earlier output, so every block decodes into one buffer.
  let capacity = Math.min(maxOutputLength, contentSize ?? maxBlock);
  let dst = Buffer.allocUnsafe(capacity);
  let d = 0;
  for (;;) {
    need(i, 4);
    const word = view.readUInt32LE(i);
    i += 4;
    if (word === 0) break;
    const raw = (word & UNCOMPRESSED_BIT) !== 0;
    const n = word & ~UNCOMPRESSED_BIT;
    if (n > maxBlock) throw new Lz4FrameError('LZ4 block larger than the frame allows');
    need(i, n + (flg & FLG_BLOCK_CHECKSUM ? 4 : 0));
    if (d + maxBlock > capacity && capacity < maxOutputLength) {
      capacity = Math.min(maxOutputLength, Math.max(capacity * 2, d + maxBlock));
      const bigger = Buffer.allocUnsafe(capacity);
      dst.copy(bigger, 0, 0, d);
      dst = bigger;
    }
    if (raw) {
      if (d + n > capacity) throw new Lz4FrameError('LZ4 output exceeds the limit');
      view.copy(dst, d, i, i + n);
      d += n;
    } else {
      const end = decompressBlock(view, dst, i, n, d);
      // lz4js writes past a typed array's end silently: a block that would overflow is refused.
      if (end > capacity || end < d) throw new Lz4FrameError('LZ4 output exceeds the limit');
      d = end;
    }
    if (flg & FLG_BLOCK_CHECKSUM) {
      if (xxh32(0, view, i, n) !== view.readUInt32LE(i + n))
        throw new Lz4FrameError('LZ4 block checksum mismatch');
      i += 4;
    }
    i += n;
  }
  const out = dst.subarray(0, d);
  if (flg & FLG_CONTENT_CHECKSUM) {
    need(i, 4);
    if (xxh32(0, out, 0, out.length) !== view.readUInt32LE(i))
      throw new Lz4FrameError('LZ4 content checksum mismatch');
  }
  if (contentSize !== undefined && contentSize !== d) throw new Lz4FrameError('LZ4 content size mismatch');
  return out;
}
