/**
 * Reusable buffers for bytes that only live until the socket took them: the frame writer's
 * merged runs and the broker's pull bodies. Allocating them fresh costs more than the copy into
 * them: every `ArrayBuffer` counts as external memory, and a broker serving 100k messages/s
 * allocated about 100 MB/s of them, which V8 answers with a full mark-compact every few hundred
 * milliseconds (a quarter of the broker's CPU in a drain). A buffer goes back to the pool only
 * from a write callback, once the socket is done with it; one that is never released is simply
 * collected.
 */

/** Below this, `Buffer.allocUnsafe` slices Node's own 8 KiB pool and is cheap already. */
export const POOLED_MIN_BYTES = 4 * 1024;
/** Larger buffers are allocated as usual. */
export const POOLED_MAX_BYTES = 256 * 1024;
/** Free buffers kept per size class (powers of two from POOLED_MIN_BYTES): at most ~7 MiB idle. */
const FREE_PER_CLASS = 16;

const MIN_SHIFT = Math.log2(POOLED_MIN_BYTES);
const classes: ArrayBuffer[][] = Array.from(
  { length: Math.log2(POOLED_MAX_BYTES) - MIN_SHIFT + 1 },
  () => [],
);
/** Backing stores handed out and not yet released: guards against a double or foreign release. */
const lent = new WeakSet<ArrayBuffer>();

function classOf(size: number): number {
  return Math.max(0, Math.ceil(Math.log2(size)) - MIN_SHIFT);
}

/**
 * A buffer of exactly `size` bytes (uninitialized), from the pool when `size` is within
 * [POOLED_MIN_BYTES, POOLED_MAX_BYTES]. Give it back with `releaseWriteBuffer` once nothing reads it.
 */
export function acquireWriteBuffer(size: number): Buffer {
  if (size < POOLED_MIN_BYTES || size > POOLED_MAX_BYTES) return Buffer.allocUnsafe(size);
  const c = classOf(size);
  const ab = classes[c]!.pop() ?? new ArrayBuffer(POOLED_MIN_BYTES << c);
  lent.add(ab);
  return Buffer.from(ab, 0, size);
}

/** Returns a buffer of `acquireWriteBuffer` to the pool; anything else (or a second release) is ignored. */
export function releaseWriteBuffer(buf: Uint8Array): void {
  const ab = buf.buffer;
  if (!(ab instanceof ArrayBuffer) || !lent.has(ab)) return;
  lent.delete(ab);
  const free = classes[classOf(ab.byteLength)]!;
  if (free.length < FREE_PER_CLASS) free.push(ab);
}

/** Pooled buffers to release once a response is written (or dropped), keyed by the response. */
const afterWrite = new WeakMap<object, Uint8Array>();

/**
 * Releases `buf` once the response `cmd` has been handed to the socket (Connection.sendResponse):
 * for a handler whose response body lives in a pooled buffer. A wrapper that answers with another
 * command leaves `buf` to the garbage collector.
 */
export function releaseAfterWrite(cmd: object, buf: Uint8Array): void {
  afterWrite.set(cmd, buf);
}

/** The release registered for `cmd`, if any (called by the connection that writes it). */
export function takeWriteRelease(cmd: object): (() => void) | undefined {
  const buf = afterWrite.get(cmd);
  if (buf === undefined) return undefined;
  afterWrite.delete(cmd);
  return () => releaseWriteBuffer(buf);
}
