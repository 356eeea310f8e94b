/**
 * Fixed-memory latency statistics for the CLI (demo, bench, producer tools).
 *
 * Buckets grow geometrically by 1 % from {@link HISTOGRAM_MIN_MS} to {@link HISTOGRAM_MAX_MS}, so
 * every recorded value lands in a bucket whose bounds are within 1 % of each other; a percentile is
 * answered with the bucket's geometric midpoint (≤ 0.5 % relative error), clamped to the exact
 * minimum and maximum seen. Recording is O(1) and allocation-free; memory is ~1 600 counters.
 */

/** Smallest distinguishable latency; smaller values (including 0) share the first bucket. */
export const HISTOGRAM_MIN_MS = 0.01;
/** Largest distinguishable latency; larger values share the last bucket (min/max stay exact). */
export const HISTOGRAM_MAX_MS = 60_000;
/** Ratio between consecutive bucket bounds. */
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(HISTOGRAM_MAX_MS / HISTOGRAM_MIN_MS) / LOG_GROWTH) + 1;

function bucketOf(ms: number): number {
  if (!(ms > HISTOGRAM_MIN_MS)) return 0; // also catches NaN
  const i = Math.floor(Math.log(ms / HISTOGRAM_MIN_MS) / LOG_GROWTH);
  return i >= BUCKETS ? BUCKETS - 1 : i;
}

/** Geometric midpoint of bucket `i`: the value reported for everything recorded in it. */
function representative(i: number): number {
  return HISTOGRAM_MIN_MS * Math.pow(GROWTH, i + 0.5);
}

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;
  private sum = 0;
  private minSeen = Infinity;
  private maxSeen = -Infinity;

  /** Records one latency in milliseconds. Negative and non-finite values are ignored. */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.counts[bucketOf(ms)]! += 1;
    this.total += 1;
    this.sum += ms;
    if (ms < this.minSeen) this.minSeen = ms;
    if (ms > this.maxSeen) this.maxSeen = ms;
  }

  /**
   * The latency below or at which `p` percent of the recorded values fall (nearest rank), within
   * 1 %. `p` is clamped to 0..100; 0 gives the minimum, 100 the maximum. NaN when empty.
   */
  percentile(p: number): number {
    if (this.total === 0) return NaN;
    const clamped = Math.min(100, Math.max(0, p));
    if (clamped === 0) return this.minSeen;
    if (clamped === 100) return this.maxSeen;
    const rank = Math.max(1, Math.ceil((clamped / 100) * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.maxSeen, Math.max(this.minSeen, representative(i)));
    }
    return this.maxSeen;
  }

  /** Number of recorded values. */
  get count(): number {
    return this.total;
  }

  /** Exact arithmetic mean; NaN when empty. */
  get mean(): number {
    return this.total === 0 ? NaN : this.sum / this.total;
  }

  /** Exact smallest recorded value; NaN when empty. */
  get min(): number {
    return this.total === 0 ? NaN : this.minSeen;
  }

  /** Exact largest recorded value; NaN when empty. */
  get max(): number {
    return this.total === 0 ? NaN : this.maxSeen;
  }

  reset(): void {
    this.counts.fill(0);
    this.total = 0;
    this.sum = 0;
    this.minSeen = Infinity;
    this.maxSeen = -Infinity;
  }

  /** Adds every value recorded in `other` to this histogram (`other` is unchanged). */
  merge(other: LatencyHistogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.total += other.total;
    this.sum += other.sum;
    if (other.minSeen < this.minSeen) this.minSeen = other.minSeen;
    if (other.maxSeen > this.maxSeen) this.maxSeen = other.maxSeen;
  }

  /** A copy, e.g. to keep a per-interval snapshot before `reset()`. */
  clone(): LatencyHistogram {
    const copy = new LatencyHistogram();
    copy.merge(this);
    return copy;
  }
}

/**
 * Events per second over a sliding window, in fixed memory: a ring of time slots, each counting
 * the events (and bytes) marked during it.
 */
export class ThroughputMeter {
  private readonly slotMs: number;
  private readonly events: Float64Array;
  private readonly bytes: Float64Array;
  /** Absolute slot number held by each ring position, to tell stale slots from current ones. */
  private readonly slotIds: Float64Array;
  private totalEvents = 0;
  private totalBytes = 0;
  private readonly startedAt: number;

  /**
   * @param windowMs longest window `rate()` can answer for. @default 5000
   * @param slotMs resolution. @default 100
   * @param now clock, for tests. @default Date.now
   */
  constructor(
    windowMs = 5000,
    slotMs = 100,
    private readonly now: () => number = Date.now,
  ) {
    this.slotMs = slotMs;
    const slots = Math.max(2, Math.ceil(windowMs / slotMs) + 1);
    this.events = new Float64Array(slots);
    this.bytes = new Float64Array(slots);
    this.slotIds = new Float64Array(slots).fill(-1);
    this.startedAt = this.now();
  }

  /** Counts `n` events carrying `byteCount` bytes at the current time. */
  mark(n = 1, byteCount = 0): void {
    const slot = Math.floor(this.now() / this.slotMs);
    const i = slot % this.events.length;
    if (this.slotIds[i] !== slot) {
      this.slotIds[i] = slot;
      this.events[i] = 0;
      this.bytes[i] = 0;
    }
    this.events[i]! += n;
    this.bytes[i]! += byteCount;
    this.totalEvents += n;
    this.totalBytes += byteCount;
  }

  /** Events per second over the last `windowMs` (complete slots only, plus the current one). */
  rate(windowMs = 1000): number {
    return this.sumWindow(this.events, windowMs);
  }

  /** Bytes per second over the last `windowMs`. */
  byteRate(windowMs = 1000): number {
    return this.sumWindow(this.bytes, windowMs);
  }

  /** Events marked since construction. */
  get total(): number {
    return this.totalEvents;
  }

  /** Bytes marked since construction. */
  get totalByteCount(): number {
    return this.totalBytes;
  }

  /** Average events per second since construction. */
  overallRate(): number {
    const elapsed = (this.now() - this.startedAt) / 1000;
    return elapsed > 0 ? this.totalEvents / elapsed : 0;
  }

  private sumWindow(values: Float64Array, windowMs: number): number {
    const now = this.now();
    const current = Math.floor(now / this.slotMs);
    const span = Math.min(this.events.length - 1, Math.max(1, Math.round(windowMs / this.slotMs)));
    // Window = the `span` slots before the current one plus the elapsed part of the current one.
    let sum = 0;
    for (let s = current - span; s <= current; s++) {
      const i = ((s % values.length) + values.length) % values.length;
      if (this.slotIds[i] === s) sum += values[i]!;
    }
    const coveredMs = span * this.slotMs + (now - current * this.slotMs);
    const sinceStart = Math.max(1, now - this.startedAt);
    return (sum * 1000) / Math.min(coveredMs, Math.max(sinceStart, 1));
  }
}

/** Formats milliseconds for tables: 3 significant digits, '-' for NaN. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}
