/**
 * Buffers for encoded batch records (batch-records.ts), handed back by the store once the records
 * are written and used again for the next batches. A fresh buffer per batch is memory outside
 * the JS heap that only a GC returns: at a few thousand batches a second V8 answered the growth
 * with a full mark-compact every ~100 ms (23 in a 4 s run instead of 2).
 *
 * Buffers come in power-of-two sizes; a caller gets a view of the size it asked for. Only
 * buffers this pool made are taken back, and a bounded number of bytes is kept; a buffer never
 * handed back (a batch refused before it reached the store) is left to the GC.
 */

/** Smallest and largest pooled sizes; larger requests get a buffer of their own. */
const MIN_BITS = 12;
const MAX_BITS = 22;
/** Bytes kept for reuse at most, over all sizes. */
const KEEP_BYTES = 16 * 1024 * 1024;

const free: ArrayBuffer[][] = Array.from({ length: MAX_BITS + 1 }, () => []);
const ours = new WeakSet<ArrayBuffer>();
let keptBytes = 0;

function bitsFor(size: number): number {
  let bits = MIN_BITS;
  while (1 << bits < size) bits++;
  return bits;
}

/** A buffer of `size` bytes, contents undefined: the caller writes every byte. */
export function acquireRecordsBuffer(size: number): Buffer {
  const bits = bitsFor(size);
  if (bits > MAX_BITS) return Buffer.allocUnsafe(size);
  let ab = free[bits]!.pop();
  if (ab !== undefined) keptBytes -= ab.byteLength;
  else {
    ab = new ArrayBuffer(1 << bits);
    ours.add(ab);
  }
  return Buffer.from(ab, 0, size);
}

/**
 * Takes back a buffer from `acquireRecordsBuffer` whose bytes nothing will read again; any other
 * buffer is ignored. Releasing one twice, or using it after, corrupts the batches that get it next.
 */
export function releaseRecordsBuffer(buf: Buffer): void {
  const ab = buf.buffer;
  if (!(ab instanceof ArrayBuffer) || !ours.has(ab) || keptBytes + ab.byteLength > KEEP_BYTES) return;
  const list = free[bitsFor(ab.byteLength)]!;
  if (list.includes(ab)) return;
  list.push(ab);
  keptBytes += ab.byteLength;
}
