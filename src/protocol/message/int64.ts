/**
 * int64 fields as JS numbers (offsets and timestamps stay below 2^53), without BigInt on the
 * hot path.
 */
const TWO_32 = 0x1_0000_0000;

/** Writes a safe integer as big-endian int64 (two's complement for negatives). */
export function writeInt64(buf: Buffer, value: number, at: number): void {
  const hi = Math.floor(value / TWO_32);
  const lo = value - hi * TWO_32;
  buf.writeInt32BE(hi | 0, at);
  buf.writeUInt32BE(lo >>> 0, at + 4);
}

/** Big-endian int64 as a number; `undefined` when it is not a safe integer. */
export function readInt64(buf: Buffer, at: number): number | undefined {
  const hi = buf.readInt32BE(at);
  const lo = buf.readUInt32BE(at + 4);
  const v = hi * TWO_32 + lo;
  return Number.isSafeInteger(v) ? v : undefined;
}

/**
 * `writeInt64` through a DataView, for loops over many fields: its stores compile to plain
 * moves, where Buffer's write methods check their arguments on every call.
 */
export function setInt64(view: DataView, at: number, value: number): void {
  const hi = Math.floor(value / TWO_32);
  view.setInt32(at, hi);
  view.setUint32(at + 4, value - hi * TWO_32);
}
