/**
 * Message ids (docs/protocol.md §3.4, §5).
 *
 * - UNIQ_KEY (client id): IP + pid (int16) + a per-process random int32 (Java uses the class
 *   loader's hash code) + ms since the start of the current month (local time, int32) + a 16-bit
 *   counter, as uppercase hex: 32 chars with an IPv4 address, 56 with IPv6.
 * - offsetMsgId (broker id): store host IP + port (int32) + commit-log offset (int64).
 */
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { ProtocolError } from '../../errors.js';
import { formatIp, parseIp } from './inet.js';
import { readInt64, writeInt64 } from './int64.js';

const HEX = '0123456789ABCDEF';

function toHex(bytes: Uint8Array): string {
  return hexOf(bytes, 0, bytes.length);
}

/** Uppercase hex of `bytes[start, end)`, as message ids are written. */
export function hexOf(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += HEX[bytes[i]! >>> 4]! + HEX[bytes[i]! & 0xf]!;
  return s;
}

function fromHex(hex: string): Buffer {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new ProtocolError(`not a hex id: ${hex}`);
  return Buffer.from(hex, 'hex');
}

/**
 * The client IP as data for the id (never connected to): the first non-internal IPv4 of this
 * host, or 127.0.0.1.
 */
export function localIpv4Bytes(): Uint8Array {
  try {
    for (const list of Object.values(networkInterfaces())) {
      for (const info of list ?? []) {
        if (info.family === 'IPv4' && !info.internal) return parseIp(info.address);
      }
    }
  } catch {
    // fall through: some sandboxes refuse the interface query
  }
  return Uint8Array.of(127, 0, 0, 1);
}

/** Local-time start of the month containing `nowMs` (Java `setStartTime`). */
export function startOfMonth(nowMs: number): { start: number; next: number } {
  const d = new Date(nowMs);
  const start = new Date(d.getFullYear(), d.getMonth(), 1, 0, 0, 0, 0).getTime();
  const next = new Date(d.getFullYear(), d.getMonth() + 1, 1, 0, 0, 0, 0).getTime();
  return { start, next };
}

export interface UniqIdGeneratorOptions {
  /** Client IP, 4 or 16 bytes. @default the first non-internal IPv4, else 127.0.0.1 */
  ip?: Uint8Array;
  /** Process id, truncated to 16 bits. @default process.pid */
  pid?: number;
  /** Stands in for Java's class-loader hash code. @default a random int32 */
  hash?: number;
  /** Clock. @default Date.now */
  now?: () => number;
}

/** Uppercase hex of every byte value. */
/**
 * The two upper-case hex digits of each byte value as one big-endian uint16 of their char codes:
 * id digits written straight into buffers (batch records, the broker's offsetMsgId lists).
 */
export const HEX_PAIR_CODES: Uint16Array = Uint16Array.from(
  { length: 256 },
  (_, b) => (HEX.charCodeAt(b >>> 4) << 8) | HEX.charCodeAt(b & 0xf),
);
const HEX_PAIRS: readonly string[] = Array.from({ length: 256 }, (_, b) => HEX[b >>> 4]! + HEX[b & 0xf]!);

/**
 * Ids made on one clock reading at most. Readings are taken one after the other, so a time is
 * shared by the ids made in its millisecond plus at most this many more (its last reading's):
 * far fewer than the 65,536 of a counter cycle, so ids stay unique (Java reads the clock for
 * every id).
 */
export const IDS_PER_CLOCK_READING = 256;
const SETTLED = Promise.resolve();

/** Java `MessageClientIDSetter.createUniqID()`. */
export class UniqIdGenerator {
  private readonly prefix: string;
  private readonly now: () => number;
  private counter = 0;
  private monthStart = 0;
  private nextMonthStart = 0;
  /** The clock reading `head` was made for. */
  private headMs = NaN;
  /**
   * The current clock reading and how many more ids may use it. A reading serves the ids made
   * in the same run of JavaScript and of the microtasks queued by then (the callers a batch's
   * answer releases send their next messages there): `Date.now()` is a call into the runtime,
   * ~40 ns, and was read for each id. A microtask queued at the reading ends it, so the next
   * turn of the event loop reads the clock again.
   */
  private readingMs = 0;
  private readingLeft = 0;
  private readonly endReading = (): void => {
    this.readingLeft = 0;
  };
  /** prefix + the 8 hex digits of the ms since the month began, for `headMs`. */
  private head = '';
  /** The id `next()` returned last is `lastHead` + 4 hex digits of `lastCounter`. */
  lastHead = '';
  lastCounter = 0;

  constructor(options: UniqIdGeneratorOptions = {}) {
    const ip = options.ip ?? localIpv4Bytes();
    if (ip.length !== 4 && ip.length !== 16) throw new ProtocolError(`client IP of ${ip.length} bytes`);
    const fixed = Buffer.alloc(ip.length + 6);
    fixed.set(ip, 0);
    fixed.writeInt16BE(((options.pid ?? process.pid) << 16) >> 16, ip.length);
    fixed.writeInt32BE(
      options.hash !== undefined ? options.hash | 0 : randomBytes(4).readInt32BE(0),
      ip.length + 2,
    );
    this.prefix = toHex(fixed);
    this.now = options.now ?? Date.now;
  }

  next(): string {
    let current = this.readingMs;
    if (this.readingLeft > 0) this.readingLeft--;
    else {
      current = this.readingMs = this.now();
      this.readingLeft = IDS_PER_CLOCK_READING - 1;
      void SETTLED.then(this.endReading);
    }
    // Ids of one millisecond share everything but the counter: the time digits are made once.
    if (current !== this.headMs) this.stamp(current);
    const counter = this.counter;
    this.counter = (counter + 1) & 0xffff;
    this.lastCounter = counter;
    return this.head + HEX_PAIRS[counter >>> 8]! + HEX_PAIRS[counter & 0xff]!;
  }

  private stamp(current: number): void {
    if (current >= this.nextMonthStart || current < this.monthStart - 1_000_000) {
      const m = startOfMonth(current);
      this.monthStart = m.start;
      this.nextMonthStart = m.next;
    }
    let diff = (current - this.monthStart) | 0;
    if (diff < 0 && diff > -1_000_000) diff = 0;
    const d = diff >>> 0;
    this.headMs = current;
    this.head =
      this.prefix +
      HEX_PAIRS[d >>> 24]! +
      HEX_PAIRS[(d >>> 16) & 0xff]! +
      HEX_PAIRS[(d >>> 8) & 0xff]! +
      HEX_PAIRS[d & 0xff]!;
    // Set here, not per id: storing a new string into this long-lived object costs a write
    // barrier call each time.
    this.lastHead = this.head;
  }
}

export interface UniqIdParts {
  ip: string;
  pid: number;
  hash: number;
  /** ms since the start of the month the id was made in (local time of the producer). */
  monthOffsetMs: number;
  counter: number;
}

/** Splits a UNIQ_KEY; the IP length is inferred from the size (28 bytes → IPv6). */
export function decodeUniqId(id: string): UniqIdParts {
  const b = fromHex(id);
  if (b.length !== 16 && b.length !== 28) throw new ProtocolError(`UNIQ_KEY of ${b.length} bytes: ${id}`);
  const ipLen = b.length === 28 ? 16 : 4;
  return {
    ip: formatIp(b.subarray(0, ipLen)),
    pid: b.readUInt16BE(ipLen),
    hash: b.readInt32BE(ipLen + 2),
    monthOffsetMs: b.readInt32BE(ipLen + 6),
    counter: b.readUInt16BE(ipLen + 10),
  };
}

/** 32 hex chars for an IPv4 store host, 56 for IPv6. */
export function encodeOffsetMsgId(host: string, port: number, commitLogOffset: number): string {
  const ip = parseIp(host);
  const b = Buffer.alloc(ip.length + 12);
  b.set(ip, 0);
  b.writeInt32BE(port | 0, ip.length);
  writeInt64(b, commitLogOffset, ip.length + 4);
  return toHex(b);
}

/** A 32-char id is IPv4, anything else IPv6 (Java `MessageDecoder.decodeMessageId`). */
export function decodeOffsetMsgId(id: string): { host: string; port: number; offset: number } {
  const b = fromHex(id);
  const ipLen = id.length === 32 ? 4 : 16;
  if (b.length !== ipLen + 12) throw new ProtocolError(`offsetMsgId of ${b.length} bytes: ${id}`);
  const offset = readInt64(b, ipLen + 4);
  if (offset === undefined || offset < 0) throw new ProtocolError(`offsetMsgId offset out of range: ${id}`);
  return { host: formatIp(b.subarray(0, ipLen)), port: b.readInt32BE(ipLen), offset };
}
