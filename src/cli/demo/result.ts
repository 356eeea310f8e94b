/** What one demo run produced: everything the summary, the JSON line and the report need. */
import type { PhaseStats, TimelineBucket } from './recorder.js';
import type { DuplicateCause } from './duplicates.js';
import type { FaultKind, Phase } from './schedule.js';

export interface RecoveryFigure {
  readonly fault: FaultKind;
  /** ms from the end of the fault until the broker got ≥ 50 % of its fair share; undefined: not within the run. */
  readonly ms: number | undefined;
  /** How long the run went on after the fault ended (the bound when `ms` is undefined). */
  readonly observedMs: number;
}

export interface VerificationResult {
  /** Messages consumed by the demo's consumer group (every delivery). */
  readonly consumed: number;
  /** Distinct demo messages read back. */
  readonly distinct: number;
  /** Acknowledged messages that were not read back. */
  readonly lost: number;
  /** msgIds of the lost messages (at most the first 100). */
  readonly lostMsgIds: readonly string[];
  /** Extra deliveries (a send retried after a timeout stores twice; a killed consumer's uncommitted work comes again). */
  readonly duplicates: number;
  /** The duplicates by cause, when the group consumed them. */
  readonly duplicateCauses?: Readonly<Record<DuplicateCause, number>>;
  /** Messages read back whose send had failed (stored, but the producer never heard). */
  readonly storedButFailed: number;
  /** Messages read back that sit on another broker or queue than their SendResult said. */
  readonly misplaced: number;
}

export interface RunResult {
  readonly strategy: string;
  readonly topic: string;
  readonly brokers: readonly string[];
  readonly targetBroker: string | undefined;
  readonly ratePerSec: number;
  /** How long the run sent: the planned duration, or less when interrupted. */
  readonly durationMs: number;
  readonly faultsInjected: boolean;
  /** The phases the run went through (an interrupted run: the last one cut where it stopped). */
  readonly phases: readonly Phase[];
  readonly phaseStats: readonly PhaseStats[];
  readonly timeline: readonly TimelineBucket[];
  readonly bucketMs: number;
  /** Sends started. */
  readonly sent: number;
  readonly acknowledged: number;
  readonly failed: number;
  /** Sends the pacer could not start because every in-flight slot was taken. */
  readonly skipped: number;
  readonly p50: number;
  readonly p99: number;
  readonly recovery: readonly RecoveryFigure[];
  /**
   * Time in recovery phases (no fault active) during which the target broker got less than half
   * of its fair share: how long healthy capacity sat idle while the others carried its load.
   */
  readonly starvedMs: number;
  /** Highest share one non-target broker carried over any 1 s window of the recovery phases, 0..1. */
  readonly peakOtherShare: number;
  readonly verification: VerificationResult | undefined;
  /** Things the reader should know (e.g. faults not supported by a real cluster). */
  readonly notes: readonly string[];
  /** The most frequent send errors, with counts. */
  readonly errors: ReadonlyArray<{ readonly message: string; readonly count: number }>;
}
