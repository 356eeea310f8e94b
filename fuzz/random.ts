/**
 * The fuzzers' source of randomness: a seeded PRNG (mulberry32) and the generators and byte
 * mutators built on it. Our own instead of fast-check: no dependency, and every case is replayed
 * from one 32-bit seed printed on failure (docs/architecture.md "Fuzzing").
 */

import { rng } from '../src/cli/chaos/random.js';

/** mulberry32, the one seeded PRNG of the package (shared with the chaos run's schedule). */
export { rng };

/** The seed of case `index` of a run seeded `runSeed`: cases replay alone, without their predecessors. */
export function caseSeed(runSeed: number, index: number): number {
  let h = (runSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Values that break length and offset arithmetic: signs, type limits, off-by-ones. */
const INTERESTING_INTS = [
  0, 1, -1, 2, 4, 7, 8, 16, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, -0x80000000,
  0xffffff,
];

/** Strings that upset parsers: separators, quotes, escapes, non-ASCII, numbers, the empty string. */
const TRICKY_STRINGS = [
  '',
  ' ',
  'a',
  '"',
  '\\',
  '{',
  '}',
  '[',
  ':',
  ',',
  '\u0000',
  '\u0001',
  '\u0002',
  'é',
  '中',
  '\ud83d\ude00',
  '\ud800',
  '-1',
  '0',
  '2147483648',
  '9223372036854775808',
  '1e309',
  'NaN',
  'null',
  'true',
  '%RETRY%',
  'TBW102',
];

export class Random {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = rng(seed);
  }

  float(): number {
    return this.next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** A size skewed towards small values, sometimes up to `max`. */
  size(max: number): number {
    const roll = this.next();
    if (roll < 0.6) return this.int(Math.min(max, 16) + 1);
    if (roll < 0.9) return this.int(Math.min(max, 512) + 1);
    return this.int(max + 1);
  }

  /** An int32 that is often one of the interesting boundary values. */
  int32(): number {
    if (this.chance(0.5)) return this.pick(INTERESTING_INTS) | 0;
    return (this.int(0x100000000) | 0) >> (this.int(4) * 8);
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  /** A short string made of tricky fragments and plain letters. */
  string(maxParts = 6): string {
    let s = '';
    const parts = this.int(maxParts + 1);
    for (let i = 0; i < parts; i++) {
      s += this.chance(0.5) ? this.pick(TRICKY_STRINGS) : String.fromCharCode(97 + this.int(26));
    }
    return s;
  }

  /** A decimal number as text, sometimes out of range or not a number at all. */
  numberText(): string {
    const roll = this.int(10);
    if (roll < 6) return String(this.range(-2, 64));
    if (roll < 8) return String(this.int32());
    return this.string(3);
  }

  /**
   * `input` with 1–4 random edits: bit flips, byte overwrites, interesting int32s written at a
   * random place (lengths!), truncation, appended garbage, a duplicated or removed slice.
   */
  mutate(input: Uint8Array): Buffer {
    let b: Buffer = Buffer.from(input);
    const edits = 1 + this.int(4);
    for (let e = 0; e < edits; e++) {
      const kind = this.int(7);
      if (b.length === 0 && kind !== 4) {
        b = this.bytes(1 + this.int(8));
        continue;
      }
      const at = this.int(b.length);
      switch (kind) {
        case 0:
          b[at] = (b[at] as number) ^ (1 << this.int(8));
          break;
        case 1:
          b[at] = this.int(256);
          break;
        case 2:
          if (b.length >= 4) b.writeInt32BE(this.int32(), this.int(b.length - 3));
          break;
        case 3:
          b = b.subarray(0, at);
          break;
        case 4:
          b = Buffer.concat([b, this.bytes(this.size(64))]);
          break;
        case 5: {
          const end = Math.min(b.length, at + 1 + this.int(32));
          b = Buffer.concat([b.subarray(0, end), b.subarray(at, end), b.subarray(end)]);
          break;
        }
        default: {
          const end = Math.min(b.length, at + 1 + this.int(32));
          b = Buffer.concat([b.subarray(0, at), b.subarray(end)]);
        }
      }
    }
    return b;
  }

  /** Sorted cut points in (0, length) splitting a byte stream into chunks; often none or one per byte. */
  splits(length: number): number[] {
    if (length < 2 || this.chance(0.3)) return [];
    if (length < 64 && this.chance(0.1)) return Array.from({ length: length - 1 }, (_, i) => i + 1);
    const cuts = new Set<number>();
    const n = 1 + this.int(6);
    for (let i = 0; i < n; i++) cuts.add(1 + this.int(length - 1));
    return [...cuts].sort((a, b) => a - b);
  }
}

/** `bytes` cut at `splits` (sorted, within bounds). */
export function chunksOf(bytes: Buffer, splits: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of splits) {
    if (cut <= from || cut >= bytes.length) continue;
    out.push(bytes.subarray(from, cut));
    from = cut;
  }
  out.push(bytes.subarray(from));
  return out;
}
