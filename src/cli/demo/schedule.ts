/**
 * The demo's fault schedule: warm-up, then four faults on one broker (slow, busy, hung, killed),
 * each followed by a recovery phase, all proportional to the run's duration so a 5 s smoke test
 * and a 30 s demo show the same story.
 */

export type FaultKind = 'slow' | 'busy' | 'hung' | 'killed';
export type PhaseKind = 'warmup' | 'fault' | 'recovery';

export interface Phase {
  /** Short label for tables and charts, e.g. `slow`, `recovery after hung`. */
  readonly name: string;
  readonly kind: PhaseKind;
  /** The fault injected during this phase (fault phases only). */
  readonly fault?: FaultKind;
  /** The fault this recovery phase follows (recovery phases only). */
  readonly after?: FaultKind;
  /** Broker the fault targets (fault and recovery phases). */
  readonly broker?: string;
  /** Offset from the start of the run. */
  readonly startMs: number;
  readonly endMs: number;
}

/** What each fault does, for help texts and report legends. */
export const FAULT_DESCRIPTIONS: Readonly<Record<FaultKind, string>> = Object.freeze({
  slow: '500 ms added latency',
  busy: 'answers SYSTEM_BUSY',
  hung: 'accepts requests, never answers',
  killed: 'process killed (sockets reset), then restarted',
});

export const FAULT_ORDER: readonly FaultKind[] = Object.freeze(['slow', 'busy', 'hung', 'killed']);

/** Share of the duration for each slot: warm-up, then (fault, recovery) × 4. Sums to 1. */
const WARMUP_SHARE = 0.1;
const FAULT_SHARE = 0.12;
const RECOVERY_SHARE = 0.105;

/**
 * Builds the phases for a run of `durationMs` against `broker`. With `faults: false` (a real
 * cluster that refuses fault injection) the whole run is one warm-up-like baseline phase.
 */
export function buildSchedule(durationMs: number, broker: string, faults = true): Phase[] {
  if (!(durationMs > 0)) throw new RangeError(`durationMs must be positive, got ${durationMs}`);
  if (!faults) return [{ name: 'steady', kind: 'warmup', startMs: 0, endMs: durationMs }];
  const phases: Phase[] = [];
  let t = 0;
  const warmupEnd = Math.round(durationMs * WARMUP_SHARE);
  phases.push({ name: 'warm-up', kind: 'warmup', startMs: 0, endMs: warmupEnd });
  t = warmupEnd;
  FAULT_ORDER.forEach((fault, i) => {
    const faultEnd = Math.round(t + durationMs * FAULT_SHARE);
    phases.push({ name: fault, kind: 'fault', fault, broker, startMs: t, endMs: faultEnd });
    const last = i === FAULT_ORDER.length - 1;
    const recoveryEnd = last ? durationMs : Math.round(faultEnd + durationMs * RECOVERY_SHARE);
    phases.push({
      name: fault === 'killed' ? 'restarted' : `recovered from ${fault}`,
      kind: 'recovery',
      after: fault,
      broker,
      startMs: faultEnd,
      endMs: recoveryEnd,
    });
    t = recoveryEnd;
  });
  return phases;
}

/** Failover schedule: warm-up until 30 % of the run, the group's master down until 70 %. */
const FAILOVER_KILL_AT = 0.3;
const FAILOVER_RESTART_AT = 0.7;

/**
 * The failover picture (`npm run demo:failover`): warm-up, then one `killed` fault on `group`
 * (a real DLedger group: its leader is killed at the start of the phase, the group elects
 * another meanwhile, and the old leader restarts as a follower when the phase ends), then the
 * rest of the run with every node back.
 */
export function buildFailoverSchedule(durationMs: number, group: string): Phase[] {
  if (!(durationMs > 0)) throw new RangeError(`durationMs must be positive, got ${durationMs}`);
  const killAt = Math.round(durationMs * FAILOVER_KILL_AT);
  const restartAt = Math.round(durationMs * FAILOVER_RESTART_AT);
  return [
    { name: 'warm-up', kind: 'warmup', startMs: 0, endMs: killAt },
    { name: 'killed', kind: 'fault', fault: 'killed', broker: group, startMs: killAt, endMs: restartAt },
    {
      name: 'restarted',
      kind: 'recovery',
      after: 'killed',
      broker: group,
      startMs: restartAt,
      endMs: durationMs,
    },
  ];
}

/**
 * The phases a run ending at `untilMs` (interrupted) went through, the last one cut at `untilMs`;
 * the whole schedule when the run lasted its full duration. Never empty.
 */
export function phasesUntil(phases: readonly Phase[], untilMs: number): Phase[] {
  return phases
    .filter((p, i) => i === 0 || p.startMs < untilMs)
    .map((p) => (p.endMs > untilMs ? { ...p, endMs: Math.max(p.startMs, untilMs) } : p));
}

/** Index of the phase containing `elapsedMs` (the last one once the run is over). */
export function phaseIndexAt(phases: readonly Phase[], elapsedMs: number): number {
  for (let i = 0; i < phases.length; i++) if (elapsedMs < phases[i]!.endMs) return i;
  return phases.length - 1;
}
