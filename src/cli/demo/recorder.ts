/**
 * Records every send outcome of a demo run into fixed-size time buckets (for charts and the live
 * view) and per-phase histograms (for the summary), and derives the phase statistics.
 */
import { LatencyHistogram } from '../stats.js';
import type { Phase } from './schedule.js';

/** One time bucket of the timeline, closed once its time has passed. */
export interface TimelineBucket {
  /** Start of the bucket, ms since the run started. */
  readonly tMs: number;
  /** Length of the bucket: `bucketMs`, shorter for the last one of a run. */
  readonly spanMs: number;
  readonly acked: number;
  readonly failed: number;
  /** Acknowledged sends per broker. */
  readonly perBroker: Readonly<Record<string, number>>;
  /** Latency percentiles of the sends completed in this bucket, failed ones included (NaN when none). */
  readonly p50: number;
  readonly p99: number;
}

export interface BrokerPhaseShare {
  readonly acked: number;
  /** acked / all acked in the phase, 0..1 */
  readonly share: number;
  readonly p99: number;
}

export interface PhaseStats {
  readonly phase: Phase;
  readonly acked: number;
  readonly failed: number;
  /** Latency of every send completed in the phase, failed ones included. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly brokers: Readonly<Record<string, BrokerPhaseShare>>;
}

interface PhaseAccumulator {
  /** Every completed send, failed ones included: the latency the application saw. */
  readonly overall: LatencyHistogram;
  acked: number;
  readonly perBroker: Map<string, LatencyHistogram>;
  failed: number;
}

/** Latency and share of one broker over the last live window, for the terminal view. */
export interface LiveBrokerView {
  readonly name: string;
  readonly sendsPerSec: number;
  readonly p99: number;
  readonly share: number;
}

export class RunRecorder {
  readonly bucketMs: number;
  readonly brokerNames: readonly string[];
  private readonly buckets: TimelineBucket[] = [];
  private bucketStart = 0;
  private bucketHist = new LatencyHistogram();
  private bucketAcked = 0;
  private bucketFailed = 0;
  private bucketPerBroker = new Map<string, number>();
  private readonly phases: PhaseAccumulator[];
  private phaseIndex = 0;
  /** Live view: the window being filled and the last complete one. */
  private liveWindowMs: number;
  private liveStart = 0;
  private liveCurrent = new Map<string, LatencyHistogram>();
  private liveLast = new Map<string, LatencyHistogram>();
  totalAcked = 0;
  totalFailed = 0;
  /** Every completed send of the run, failed ones included. */
  readonly overall = new LatencyHistogram();

  constructor(
    brokerNames: readonly string[],
    phaseCount: number,
    options: { bucketMs?: number; liveWindowMs?: number } = {},
  ) {
    this.brokerNames = brokerNames;
    this.bucketMs = options.bucketMs ?? 250;
    this.liveWindowMs = options.liveWindowMs ?? 1000;
    this.phases = Array.from({ length: Math.max(1, phaseCount) }, () => ({
      overall: new LatencyHistogram(),
      perBroker: new Map<string, LatencyHistogram>(),
      acked: 0,
      failed: 0,
    }));
  }

  /** Outcomes recorded from now on count toward phase `index`. */
  setPhase(index: number): void {
    this.phaseIndex = Math.min(this.phases.length - 1, Math.max(0, index));
  }

  /** A send acknowledged by `broker` after `latencyMs`, completed at `elapsedMs` into the run. */
  recordAck(broker: string, latencyMs: number, elapsedMs: number): void {
    this.advance(elapsedMs);
    this.bucketHist.record(latencyMs);
    this.bucketAcked += 1;
    this.bucketPerBroker.set(broker, (this.bucketPerBroker.get(broker) ?? 0) + 1);
    const phase = this.phases[this.phaseIndex]!;
    phase.overall.record(latencyMs);
    phase.acked += 1;
    histogramFor(phase.perBroker, broker).record(latencyMs);
    histogramFor(this.liveCurrent, broker).record(latencyMs);
    this.overall.record(latencyMs);
    this.totalAcked += 1;
  }

  /** A send that failed after `latencyMs` (all retries exhausted). */
  recordFailure(latencyMs: number, elapsedMs: number): void {
    this.advance(elapsedMs);
    this.bucketHist.record(latencyMs);
    this.bucketFailed += 1;
    const phase = this.phases[this.phaseIndex]!;
    phase.failed += 1;
    phase.overall.record(latencyMs);
    this.overall.record(latencyMs);
    this.totalFailed += 1;
  }

  /** Closes every bucket that ended before `elapsedMs` (call periodically, and at the end). */
  advance(elapsedMs: number): void {
    while (elapsedMs >= this.bucketStart + this.bucketMs) this.closeBucket();
    if (elapsedMs >= this.liveStart + this.liveWindowMs) {
      this.liveLast = this.liveCurrent;
      this.liveCurrent = new Map();
      this.liveStart = elapsedMs;
    }
  }

  /** Closes the partial bucket at the end of the run. */
  finish(elapsedMs: number): void {
    this.advance(elapsedMs);
    const span = elapsedMs - this.bucketStart;
    if (span > 0 && this.bucketAcked + this.bucketFailed > 0) this.closeBucket(span);
  }

  timeline(): readonly TimelineBucket[] {
    return this.buckets;
  }

  /**
   * Per broker: sends/s and share over the last second of closed buckets (at most one bucket
   * behind), p99 over the last complete live window.
   */
  live(): LiveBrokerView[] {
    const span = Math.max(1, Math.round(this.liveWindowMs / this.bucketMs));
    const recent = this.buckets.slice(-span);
    const spanMs = recent.reduce((sum, b) => sum + b.spanMs, 0);
    const total = recent.reduce((sum, b) => sum + b.acked, 0);
    return this.brokerNames.map((name) => {
      const count = recent.reduce((sum, b) => sum + (b.perBroker[name] ?? 0), 0);
      const h = this.liveLast.get(name);
      return {
        name,
        sendsPerSec: spanMs > 0 ? (count * 1000) / spanMs : 0,
        // no recent traffic: an old p99 would look current
        p99: h && count > 0 ? h.percentile(99) : NaN,
        share: total > 0 ? count / total : 0,
      };
    });
  }

  /** Summary per phase, in schedule order. */
  phaseStats(phases: readonly Phase[]): PhaseStats[] {
    return phases.map((phase, i) => {
      const acc = this.phases[i] ?? this.phases[this.phases.length - 1]!;
      const brokers: Record<string, BrokerPhaseShare> = {};
      for (const name of this.brokerNames) {
        const h = acc.perBroker.get(name);
        const acked = h?.count ?? 0;
        brokers[name] = {
          acked,
          share: acc.acked > 0 ? acked / acc.acked : 0,
          p99: h ? h.percentile(99) : NaN,
        };
      }
      return {
        phase,
        acked: acc.acked,
        failed: acc.failed,
        p50: acc.overall.percentile(50),
        p99: acc.overall.percentile(99),
        max: acc.overall.max,
        brokers,
      };
    });
  }

  private closeBucket(spanMs = this.bucketMs): void {
    const perBroker: Record<string, number> = {};
    for (const name of this.brokerNames) perBroker[name] = this.bucketPerBroker.get(name) ?? 0;
    this.buckets.push({
      tMs: this.bucketStart,
      spanMs,
      acked: this.bucketAcked,
      failed: this.bucketFailed,
      perBroker,
      p50: this.bucketHist.percentile(50),
      p99: this.bucketHist.percentile(99),
    });
    this.bucketStart += this.bucketMs;
    this.bucketHist.reset();
    this.bucketAcked = 0;
    this.bucketFailed = 0;
    this.bucketPerBroker = new Map();
  }
}

function histogramFor(map: Map<string, LatencyHistogram>, key: string): LatencyHistogram {
  let h = map.get(key);
  if (!h) {
    h = new LatencyHistogram();
    map.set(key, h);
  }
  return h;
}

/**
 * Milliseconds from `fromMs` until `broker` again gets at least `threshold` × its fair share
 * (1 / brokerCount) of the acknowledged sends, or undefined if that never happens before the
 * timeline ends (or before `untilMs`). Traffic is counted over a window of up to `windowMs` ending
 * at each bucket boundary, but never reaching back before `fromMs`; the reported time is that
 * boundary minus `fromMs`, so the resolution is one bucket.
 */
export function timeToRecover(
  timeline: readonly TimelineBucket[],
  broker: string,
  fromMs: number,
  brokerCount: number,
  options: { threshold?: number; windowMs?: number; untilMs?: number } = {},
): number | undefined {
  const threshold = options.threshold ?? 0.5;
  const windowMs = options.windowMs ?? 1000;
  const untilMs = options.untilMs ?? Infinity;
  const fair = 1 / Math.max(1, brokerCount);
  const first = timeline[0];
  if (!first) return undefined;
  const bucketMs = timeline.length > 1 ? timeline[1]!.tMs - first.tMs : windowMs;
  // The bucket holding fromMs counts as "after" when fromMs lies in its first half.
  const firstAfter = timeline.findIndex((b) => b.tMs + bucketMs / 2 > fromMs);
  if (firstAfter < 0) return undefined;
  const span = Math.max(1, Math.round(windowMs / bucketMs));
  for (let end = firstAfter; end < timeline.length; end++) {
    const endMs = timeline[end]!.tMs + bucketMs;
    if (endMs > untilMs) break;
    let mine = 0;
    let all = 0;
    for (let i = Math.max(firstAfter, end - span + 1); i <= end; i++) {
      const b = timeline[i]!;
      mine += b.perBroker[broker] ?? 0;
      all += b.acked;
    }
    if (all > 0 && mine / all >= threshold * fair) return Math.max(0, endMs - fromMs);
  }
  return undefined;
}

/**
 * How the target broker fared once its faults were over: time (bucket granularity) in the given
 * windows during which it got < `threshold` × its fair share, and the highest share any other
 * broker carried over a sliding `windowMs` in those windows (clipped to the window it ends in).
 */
export function starvation(
  timeline: readonly TimelineBucket[],
  target: string,
  brokers: readonly string[],
  windows: ReadonlyArray<{ readonly startMs: number; readonly endMs: number }>,
  options: { threshold?: number; windowMs?: number } = {},
): { starvedMs: number; peakOtherShare: number } {
  const threshold = options.threshold ?? 0.5;
  const fair = 1 / Math.max(1, brokers.length);
  const inWindow = (b: TimelineBucket): boolean =>
    windows.some((w) => b.tMs >= w.startMs && b.tMs + b.spanMs <= w.endMs);
  let starvedMs = 0;
  let peakOtherShare = 0;
  const bucketMs = timeline[0]?.spanMs ?? 1;
  const span = Math.max(1, Math.round((options.windowMs ?? 1000) / bucketMs));
  timeline.forEach((b, i) => {
    if (!inWindow(b)) return;
    if (b.acked > 0 && (b.perBroker[target] ?? 0) / b.acked < threshold * fair) starvedMs += b.spanMs;
    // the window ends at this bucket and reaches back at most `span` buckets, within the phase
    const recent = timeline.slice(Math.max(0, i + 1 - span), i + 1).filter(inWindow);
    const all = recent.reduce((n, x) => n + x.acked, 0);
    if (all === 0) return;
    for (const other of brokers) {
      if (other === target) continue;
      const mine = recent.reduce((n, x) => n + (x.perBroker[other] ?? 0), 0);
      peakOtherShare = Math.max(peakOtherShare, mine / all);
    }
  });
  return { starvedMs, peakOtherShare };
}

/**
 * The window after `fromMs` during which `broker` acknowledged nothing while the others did:
 * from the first such bucket to the first later bucket where it acknowledged sends again (the
 * failover picture: a group's share falls to zero and returns). Undefined when its share never
 * fell to zero after `fromMs`; `backMs` undefined when it did not return before the timeline ended.
 */
export function shareGap(
  timeline: readonly TimelineBucket[],
  broker: string,
  fromMs: number,
): { zeroMs: number; backMs: number | undefined } | undefined {
  const start = timeline.findIndex((b) => b.tMs >= fromMs && b.acked > 0 && (b.perBroker[broker] ?? 0) === 0);
  if (start < 0) return undefined;
  const zeroMs = timeline[start]!.tMs;
  const back = timeline.slice(start).find((b) => (b.perBroker[broker] ?? 0) > 0);
  return { zeroMs, backMs: back?.tMs };
}
