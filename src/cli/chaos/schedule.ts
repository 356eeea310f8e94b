/**
 * The chaos run's fault schedule, a pure function of (duration, seed, targets): replaying a seed
 * replays the same faults at the same offsets. Two lanes run side by side: cluster faults (one at
 * a time, so two brokers always stay healthy) and consumer kills. The first round of the cluster
 * lane holds every fault kind once, in seeded order, so even a short run injects each of them.
 */
import { rng } from './random.js';

export type ClusterFaultKind =
  | 'broker-kill'
  | 'broker-pause'
  | 'broker-latency'
  | 'broker-drop'
  | 'broker-hang'
  | 'broker-error'
  | 'broker-disk-full'
  | 'namesrv-restart';

export type ChaosFaultKind = ClusterFaultKind | 'consumer-kill';

/** What each fault does, for the event log and the report's legend. */
export const CHAOS_FAULT_DESCRIPTIONS: Readonly<Record<ChaosFaultKind, string>> = Object.freeze({
  'broker-kill': 'broker process killed (SIGKILL), restarted on the same store at the end',
  'broker-pause': 'broker process frozen (SIGSTOP), resumed (SIGCONT) at the end',
  'broker-latency': '1.2-4 s added before each send and pull: sends time out, then get stored anyway',
  'broker-drop': 'connection closed on every send',
  'broker-hang': 'sends accepted and never answered',
  'broker-error': 'half of the sends answered SYSTEM_BUSY',
  'broker-disk-full': 'commit-log appends fail with ENOSPC after a partial write',
  'namesrv-restart': 'NameServer killed (SIGKILL) and restarted empty',
  'consumer-kill': 'consumer process killed (SIGKILL), restarted at the end',
});

export const CLUSTER_FAULT_KINDS: readonly ClusterFaultKind[] = Object.freeze([
  'broker-kill',
  'broker-pause',
  'broker-latency',
  'broker-drop',
  'broker-hang',
  'broker-error',
  'broker-disk-full',
  'namesrv-restart',
]);

export interface ChaosFault {
  /** 1-based, in start order. */
  readonly id: number;
  readonly kind: ChaosFaultKind;
  /** Broker name, consumer name, or `namesrv`. */
  readonly target: string;
  readonly startMs: number;
  readonly endMs: number;
}

export interface ScheduleOptions {
  durationMs: number;
  seed: number;
  brokers: readonly string[];
  /** Consumer members that may be killed (empty: no consumer lane). */
  consumers: readonly string[];
  /** Cluster fault kinds to use. @default CLUSTER_FAULT_KINDS */
  kinds?: readonly ClusterFaultKind[];
}

/** Share of the run with no fault at its start, and at its end (everything settles). */
const WARMUP_SHARE = 0.08;
const COOLDOWN_SHARE = 0.12;

export function buildChaosSchedule(options: ScheduleOptions): ChaosFault[] {
  const { durationMs, brokers, consumers } = options;
  if (!(durationMs > 0)) throw new RangeError(`durationMs must be positive, got ${durationMs}`);
  const random = rng(options.seed);
  const between = (lo: number, hi: number): number => Math.round(lo + random() * (hi - lo));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const start = Math.round(durationMs * WARMUP_SHARE);
  const end = Math.round(durationMs * (1 - COOLDOWN_SHARE));
  // Longer runs hold each fault longer, up to 12 s; a 60 s run keeps them at 2-4.5 s.
  const longest = Math.min(12_000, Math.max(4_500, durationMs / 25));
  const out: Omit<ChaosFault, 'id'>[] = [];

  const kinds = (options.kinds ?? CLUSTER_FAULT_KINDS).filter(
    (k) => brokers.length > 0 || k === 'namesrv-restart',
  );
  let round: ClusterFaultKind[] = [];
  for (let t = start; kinds.length > 0;) {
    if (round.length === 0) round = shuffle([...kinds], random);
    const kind = round.shift()!;
    const length = kind === 'namesrv-restart' ? between(1_000, 3_000) : between(2_000, longest);
    if (t + length > end) break;
    out.push({
      kind,
      target: kind === 'namesrv-restart' ? 'namesrv' : pick(brokers),
      startMs: t,
      endMs: t + length,
    });
    t += length + between(1_000, 3_000);
  }

  if (consumers.length > 0) {
    for (let t = start + between(2_000, 6_000); ;) {
      const length = between(1_000, 4_000);
      if (t + length > end) break;
      out.push({ kind: 'consumer-kill', target: pick(consumers), startMs: t, endMs: t + length });
      t += length + between(6_000, 14_000);
    }
  }
  return out.sort((a, b) => a.startMs - b.startMs).map((f, i) => ({ id: i + 1, ...f }));
}

function shuffle<T>(xs: T[], random: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
