/**
 * A few properties found in the UTF-8 bytes of a properties string (docs/protocol.md §4.1)
 * without decoding it: what `lookUpProperties` answers for the decoded text, as byte ranges.
 * The store reads four names of every record of a batch, and decoding each record's whole
 * properties to look at them was a large part of storing a batch.
 *
 * Working on bytes changes nothing: U+0001 and U+0002 are single bytes that never occur inside a
 * multi-byte UTF-8 sequence, and a decoder turns the bytes of a broken sequence into U+FFFD
 * without swallowing a following byte below 0x80, so segments and name/value splits fall at the
 * same places; a segment with a non-empty name and value is at least three characters long, as
 * `string2messageProperties` requires. ASCII names are compared byte for byte (only those exact
 * bytes decode to them); any other name is compared with the decoded candidate, because broken
 * sequences decode to U+FFFD.
 */

const NAME_VALUE_BYTE = 1;
const PROPERTY_BYTE = 2;

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

export class PropertyScanner {
  /** Per name: where its value starts in the last scanned bytes, -1 when absent. */
  readonly valueStart: Int32Array;
  /** Per name: where its value ends (exclusive). */
  readonly valueEnd: Int32Array;
  private readonly names: readonly string[];
  /** Per name: its bytes when ASCII, undefined when it must be compared decoded. */
  private readonly asciiNames: (Uint8Array | undefined)[];
  /** Per name: its length in bytes when ASCII, -1 when it must be compared decoded. */
  private readonly nameLengths: Int32Array;

  constructor(names: readonly string[]) {
    this.names = names;
    this.valueStart = new Int32Array(names.length);
    this.valueEnd = new Int32Array(names.length);
    this.asciiNames = names.map((n) => (isAscii(n) ? Buffer.from(n, 'latin1') : undefined));
    this.nameLengths = Int32Array.from(this.asciiNames, (a) => (a === undefined ? -1 : a.length));
  }

  /**
   * Looks up every name in the bytes `view[from, to)`; the last occurrence of a name wins.
   * Separators are looked for four bytes at a time, read little-endian: in
   * `(w - 0x03030303) & ~w & 0x80808080` the lowest set flag marks exactly the first byte
   * below 3 (U+0000, U+0001 or U+0002), since a borrow only leaves a byte that is below 3, and
   * a property's bytes are nearly all above that: most words are passed over whole and each
   * separator costs one more word, never a byte-by-byte walk.
   */
  scan(view: DataView, from: number, to: number): void {
    const starts = this.valueStart;
    const ends = this.valueEnd;
    const count = starts.length;
    const lengths = this.nameLengths;
    for (let i = 0; i < count; i++) starts[i] = -1;
    let start = from;
    while (start < to) {
      let sep = -1;
      let end = to;
      let at = start;
      for (;;) {
        let found = -1;
        while (at + 4 <= to) {
          const w = view.getInt32(at, true);
          const flags = (w - 0x03030303) & ~w & 0x80808080;
          if (flags !== 0) {
            found = at + ((31 - Math.clz32(flags & -flags)) >> 3);
            break;
          }
          at += 4;
        }
        if (found < 0) {
          for (; at < to; at++) {
            if (view.getUint8(at) <= PROPERTY_BYTE) {
              found = at;
              break;
            }
          }
          if (found < 0) break;
        }
        const c = view.getUint8(found);
        if (c === PROPERTY_BYTE) {
          end = found;
          break;
        }
        if (c === NAME_VALUE_BYTE && sep < 0) sep = found;
        at = found + 1;
      }
      if (sep > start && sep < end - 1) {
        const len = sep - start;
        for (let i = 0; i < count; i++) {
          const nameLength = lengths[i]!;
          if ((nameLength === len || nameLength < 0) && this.nameIs(i, view, start, sep)) {
            starts[i] = sep + 1;
            ends[i] = end;
          }
        }
      }
      start = end + 1;
    }
  }

  private nameIs(i: number, view: DataView, start: number, end: number): boolean {
    const ascii = this.asciiNames[i];
    if (ascii === undefined) return utf8Text(view, start, end) === this.names[i];
    // The caller compared the lengths.
    for (let k = 0; k < ascii.length; k++) if (view.getUint8(start + k) !== ascii[k]) return false;
    return true;
  }
}

/** A DataView of the memory of `bytes`: what the scanner and the hash read, made once per buffer. */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Java `String.hashCode` continued from `h` over the bytes `view[from, to)` when those bytes are
 * ASCII (each byte is then one UTF-16 unit); undefined when some byte is not. Four bytes per
 * step: `h·31⁴ + b0·31³ + b1·31² + b2·31 + b3` is the same sum mod 2³² as four steps of
 * `h·31 + b`, with one multiplication on the chain instead of four.
 */
export function continueAsciiHash(h: number, view: DataView, from: number, to: number): number | undefined {
  let i = from;
  for (; i + 4 <= to; i += 4) {
    const w = view.getInt32(i);
    if ((w & 0x80808080) !== 0) return undefined;
    h =
      (Math.imul(h, 923521) +
        Math.imul(w >>> 24, 29791) +
        Math.imul((w >>> 16) & 0xff, 961) +
        Math.imul((w >>> 8) & 0xff, 31) +
        (w & 0xff)) |
      0;
  }
  for (; i < to; i++) {
    const c = view.getUint8(i);
    if (c >= 0x80) return undefined;
    h = (Math.imul(31, h) + c) | 0;
  }
  return h;
}

/** The bytes `view[from, to)` decoded as UTF-8. */
export function utf8Text(view: DataView, from: number, to: number): string {
  return Buffer.from(view.buffer, view.byteOffset + from, to - from).toString('utf8');
}
