/**
 * `adaptive`, the default strategy. It answers Java's weakness ("isolating a broker for
 * minutes after one blip overloads the healthy ones") with:
 * - even spread: each send goes to the next queue, in round-robin order, among the queues of the
 *   brokers that may take it now; an isolated broker's share is split evenly over the others
 *   instead of falling through to the broker next to it in queue order;
 * - load that follows capacity (capacity-share.ts): among those brokers, the ones with the fewest
 *   sends in flight per queue; a broker answering below `minShare` of its fair share gets the
 *   next send (a floor), so a slow group gets what it can take without holding every caller;
 * - one incident, one strike: a failure isolates the broker briefly (`baseIsolationMs`); failures
 *   of sends that were already in flight, or that started before the broker's last re-admission,
 *   are the same incident and change nothing;
 * - a half-open trial when the isolation ends: exactly one send is let through. Success
 *   re-admits the broker; failure isolates it again for twice as long, counted from when the
 *   trial was sent (a trial that waited for its timeout has already waited), capped at
 *   `maxQuickIsolationMs` (1 s) when the trial failed at once and `maxIsolationMs` (2 s) when it
 *   timed out. A failed trial costs nothing visible: the send retries elsewhere. The caps are
 *   short, so traffic returns within about that long after any fault ends;
 * - early re-admission after a transport failure (refused, closed): the broker is probed every
 *   `probeInterval` and the first answer re-admits it. After a timeout or a broker error code a
 *   probe proves little (it may answer probes and still fail sends), so only a trial send can;
 * - slowness never isolates, it samples: a broker whose latency (its latest sample, or the age
 *   of its oldest send in flight, whichever is larger) exceeds `2 × fastest + slackMs` gets one
 *   send at a time. A broker 100 times slower than the others thus gets a tiny share (p99 stays
 *   low), and the first fast answer gives it its full share back. Since the age of sends in
 *   flight counts, a broker that turns slow or hangs loses its traffic within `slackMs`, not
 *   after the first slow answer or timeout;
 * - never two attempts of one send on the same broker when another broker exists;
 * - if no broker is admissible, a working one over its sampling limit is used, else the one whose
 *   isolation ends first: sends never stop.
 * Failures that are about the message (`rejected`) or the client (`client`) do not count.
 *
 * Every `select` must be followed by one `onSuccess`/`onFailure` for the chosen broker (the send
 * loop does this): the strategy tracks sends in flight per broker.
 */
import type { MessageQueue } from '../../client/route.js';
import type { TopicPublishInfo } from '../../client/topic-publish-info.js';
import type {
  BrokerHealth,
  FailureKind,
  FaultStrategyHost,
  LatencyFaultStrategy,
} from './latency-fault-tolerance.js';
import { belowFloor, DEFAULT_MIN_SHARE, ShareTracker, STALL_FACTOR } from './capacity-share.js';

export interface AdaptiveSettings {
  /** Isolation after a new incident (ms). @default 500 */
  baseIsolationMs?: number;
  /**
   * Longest isolation after a trial that timed out (ms). Such a trial cost one send a whole
   * attempt timeout, so a broker that keeps hanging is tried less often. @default 2000
   */
  maxIsolationMs?: number;
  /**
   * Longest isolation after a trial that failed at once (busy, refused). Such a trial costs one
   * quick retry elsewhere, so the broker is tried again soon. @default 1000
   */
  maxQuickIsolationMs?: number;
  /** Probe period of a broker isolated by a transport failure (ms). @default 500 */
  probeInterval?: number | undefined;
  /** Probe timeout (ms). @default 200 */
  probeTimeout?: number | undefined;
  /**
   * Floor of an answering broker's share of the sends, as a fraction of its fair share (1/n of
   * the topic's n brokers); 0 disables the floor. @default 0.2
   */
  minShare?: number;
  /** EWMA weight of a new latency sample (the reported `latencyMs`). @default 0.3 */
  ewmaAlpha?: number;
  /** Latency within `2 × fastest + slackMs` counts as "as fast" (ms). @default 20 */
  slackMs?: number;
}

/** What a broker may take right now. */
type Gate = 'open' | 'sample' | 'trial' | 'closed';

interface BrokerState {
  name: string;
  /** Smoothed latency, for health reports. */
  ewma: number | undefined;
  /** Latency of the most recently started attempt that completed. */
  sample: number | undefined;
  sampleStart: number;
  /** Start times of the attempts in flight, oldest first. */
  inflight: number[];
  /** Failed trials of the current incident, plus one for the incident itself. */
  strikes: number;
  isolated: boolean;
  isolatedAt: number;
  isolatedUntil: number;
  /** When the broker was last re-admitted; failures of older attempts are a past incident. */
  readmittedAt: number;
  /** When the current half-open trial was sent; 0 when none is out. */
  trialSince: number;
  lastKind: FailureKind | undefined;
  probeTimer: NodeJS.Timeout | undefined;
}

/** A broker may have this many attempts in flight more than the least loaded one and still be chosen. */
const LOAD_TOLERANCE = 1;
/** A half-open trial that never reported back is forgotten after this long. */
const TRIAL_TIMEOUT_MS = 10_000;
/** An attempt in flight for longer than this never reported back; it is forgotten. */
const STALE_ATTEMPT_MS = 60_000;

export class AdaptiveFaultStrategy implements LatencyFaultStrategy {
  readonly name = 'adaptive';
  private readonly states = new Map<string, BrokerState>();
  private readonly base: number;
  private readonly max: number;
  private readonly quickMax: number;
  private readonly probeInterval: number;
  private readonly probeTimeout: number;
  private readonly alpha: number;
  private readonly slack: number;
  private running = false;
  private readonly minShare: number;
  /** Recent share of the sends per broker (the floor and brokerHealth's `weight`). */
  private readonly shares = new ShareTracker();
  /** Scratch space of `select`. */
  private readonly gates: Gate[] = [];
  private readonly load: number[] = [];
  /** What `floorEligible` needs of the current `select`: one closure per strategy, not per send. */
  private readonly floorScratch: {
    names: readonly string[];
    avoid: string | undefined;
    now: number;
    limit: number;
  } = { names: [], avoid: undefined, now: 0, limit: 0 };
  /** An 'open' broker needs no floor: least outstanding already gives it its turn. */
  private readonly floorEligible = (b: number): boolean => {
    const f = this.floorScratch;
    const name = f.names[b] as string;
    return this.gates[b] !== 'open' && name !== f.avoid && this.answering(name, f.now, f.limit);
  };

  constructor(
    private readonly host: FaultStrategyHost,
    settings: AdaptiveSettings = {},
  ) {
    this.base = settings.baseIsolationMs ?? 500;
    this.max = settings.maxIsolationMs ?? 2000;
    this.quickMax = Math.min(this.max, settings.maxQuickIsolationMs ?? 1000);
    this.probeInterval = settings.probeInterval ?? 500;
    this.probeTimeout = settings.probeTimeout ?? 200;
    this.alpha = settings.ewmaAlpha ?? 0.3;
    this.slack = settings.slackMs ?? 20;
    this.minShare = settings.minShare ?? DEFAULT_MIN_SHARE;
  }

  private state(name: string): BrokerState {
    let s = this.states.get(name);
    if (s === undefined) {
      s = {
        name,
        ewma: undefined,
        sample: undefined,
        sampleStart: -Infinity,
        inflight: [],
        strikes: 0,
        isolated: false,
        isolatedAt: 0,
        isolatedUntil: 0,
        readmittedAt: -Infinity,
        trialSince: 0,
        lastKind: undefined,
        probeTimer: undefined,
      };
      this.states.set(name, s);
    }
    return s;
  }

  /**
   * Isolation length after `strikes` strikes (1 = a new incident, 2 = its first failed trial,
   * ...), the last one of `kind`.
   */
  isolationFor(strikes: number, kind: FailureKind = 'timeout'): number {
    const cap = kind === 'timeout' ? this.max : this.quickMax;
    return Math.min(cap, this.base * 2 ** Math.max(0, Math.min(strikes - 1, 30)));
  }

  /** Latency estimate: the latest sample, or the age of the oldest attempt in flight if larger. */
  latencyOf(name: string, now: number = this.host.now()): number | undefined {
    const s = this.states.get(name);
    if (s === undefined) return undefined;
    while (s.inflight.length > 0 && now - (s.inflight[0] as number) > STALE_ATTEMPT_MS) s.inflight.shift();
    const oldest = s.inflight[0];
    const age = oldest === undefined ? 0 : now - oldest;
    if (s.sample === undefined && oldest === undefined) return undefined;
    return Math.max(s.sample ?? 0, age);
  }

  /** Above this latency (ms) a broker is slow: `2 × fastest + slackMs` over working brokers of `names`. */
  slowLimit(names: readonly string[], now: number = this.host.now()): number {
    let fastest = Infinity;
    for (const n of names) {
      if (this.states.get(n)?.isolated === true) continue;
      const l = this.latencyOf(n, now);
      if (l !== undefined && l < fastest) fastest = l;
    }
    return 2 * fastest + this.slack;
  }

  private gate(name: string, now: number, limit: number): Gate {
    const s = this.states.get(name);
    if (s === undefined) return 'open';
    if (s.isolated) {
      if (now < s.isolatedUntil) return 'closed';
      if (s.trialSince !== 0 && now - s.trialSince < TRIAL_TIMEOUT_MS) return 'closed';
      return 'trial';
    }
    const latency = this.latencyOf(name, now);
    if (latency === undefined || latency <= limit) return 'open';
    return s.inflight.length === 0 ? 'sample' : 'closed';
  }

  /** Not isolated, or its isolation ended (a trial may go). */
  isAvailable(brokerName: string): boolean {
    const s = this.states.get(brokerName);
    return s === undefined || !s.isolated || this.host.now() >= s.isolatedUntil;
  }

  select(tp: TopicPublishInfo, avoid: string | undefined, _attempt = 0): MessageQueue {
    const now = this.host.now();
    const names = tp.brokerNames;
    const limit = this.slowLimit(names, now);
    // Gate per broker index, in a reused array: select runs for every send.
    const gates = this.gates;
    gates.length = names.length;
    for (let b = 0; b < names.length; b++) {
      const name = names[b] as string;
      gates[b] = name === avoid ? 'closed' : this.gate(name, now, limit);
    }
    const start = tp.sendWhichQueue.incrementAndGet();

    // A broker below its floor (capacity-share.ts) gets the send, even if slow.
    const f = this.floorScratch;
    f.names = names;
    f.avoid = avoid;
    f.now = now;
    f.limit = limit;
    const low = belowFloor(this.shares, names, this.minShare, this.floorEligible);
    if (low >= 0) return this.takeOnBroker(tp, low, start, now);

    // Least outstanding: the (start mod n)-th of the n queues whose broker is admissible and has
    // at most one attempt in flight more than the least loaded one (within that, brokers share
    // evenly by queue count, so similar brokers stay balanced for consumers).
    const owner = tp.queueBroker;
    const load = this.load;
    load.length = names.length;
    let least = Infinity;
    for (let b = 0; b < names.length; b++) {
      load[b] = this.states.get(names[b] as string)?.inflight.length ?? 0;
      if (gates[b] !== 'closed' && (load[b] as number) < least) least = load[b] as number;
    }
    const most = least + LOAD_TOLERANCE;
    for (let b = 0; b < names.length; b++) if ((load[b] as number) > most) gates[b] = 'closed';
    let admissible = 0;
    for (let i = 0; i < owner.length; i++) {
      const b = owner[i] as number;
      if (gates[b] !== 'closed') admissible++;
    }
    if (admissible > 0) {
      let k = start % admissible;
      for (let i = 0; i < owner.length; i++) {
        const b = owner[i] as number;
        const gate = gates[b];
        if (gate === 'closed' || k-- > 0) continue;
        return this.take(tp.queues[i] as MessageQueue, gate === 'trial', now);
      }
    }
    // Every working broker already has its one sample in flight: use them anyway.
    const working = tp.queues.filter(
      (mq) => mq.brokerName !== avoid && this.states.get(mq.brokerName)?.isolated !== true,
    );
    if (working.length > 0) return this.take(working[start % working.length] as MessageQueue, false, now);
    // Every other broker is isolated: use the one whose isolation ends first.
    let best: BrokerState | undefined;
    for (const b of tp.brokerNames) {
      if (b === avoid) continue;
      const s = this.states.get(b);
      if (s !== undefined && (best === undefined || s.isolatedUntil < best.isolatedUntil)) best = s;
    }
    const mine = best === undefined ? [] : tp.queues.filter((mq) => mq.brokerName === best.name);
    if (mine.length > 0) return this.take(mine[start % mine.length] as MessageQueue, false, now);
    return this.take(tp.selectAvoiding(avoid), false, now);
  }

  private take(mq: MessageQueue, trial: boolean, now: number): MessageQueue {
    const s = this.state(mq.brokerName);
    if (trial) s.trialSince = now;
    s.inflight.push(now);
    this.shares.note(mq.brokerName);
    return mq;
  }

  /** The (start mod m)-th of the m queues of broker index `b`. */
  private takeOnBroker(tp: TopicPublishInfo, b: number, start: number, now: number): MessageQueue {
    const owner = tp.queueBroker;
    let m = 0;
    for (let i = 0; i < owner.length; i++) if (owner[i] === b) m++;
    let k = start % m;
    for (let i = 0; i < owner.length; i++) {
      if (owner[i] !== b || k-- > 0) continue;
      return this.take(tp.queues[i] as MessageQueue, false, now);
    }
    return this.take(tp.selectOne(), false, now);
  }

  /**
   * Whether a broker is answering at its usual pace: not isolated, and its oldest attempt in
   * flight is not older than STALL_FACTOR × its usual latency (or the slow limit). Only such a
   * broker gets the floor.
   */
  private answering(name: string, now: number, limit: number): boolean {
    const s = this.states.get(name);
    if (s === undefined) return true;
    if (s.isolated) return false;
    const oldest = s.inflight[0];
    if (oldest === undefined) return true;
    return now - oldest <= Math.max(STALL_FACTOR * (s.ewma ?? 0), limit);
  }

  /** Forgets the attempt that just completed; returns when it started. */
  private finish(s: BrokerState, now: number, latencyMs: number): number {
    const started = now - latencyMs;
    let best = -1;
    let bestGap = Infinity;
    for (let i = 0; i < s.inflight.length; i++) {
      const gap = Math.abs((s.inflight[i] as number) - started);
      if (gap < bestGap) {
        best = i;
        bestGap = gap;
      }
    }
    if (best < 0) return started;
    // In place: splice would allocate a result array on every send.
    const list = s.inflight;
    const t = list[best] as number;
    for (let i = best + 1; i < list.length; i++) list[i - 1] = list[i] as number;
    list.length--;
    return t;
  }

  private noteSample(s: BrokerState, started: number, latencyMs: number): void {
    if (started >= s.sampleStart) {
      s.sample = latencyMs;
      s.sampleStart = started;
    }
    s.ewma = s.ewma === undefined ? latencyMs : s.ewma + this.alpha * (latencyMs - s.ewma);
  }

  onSuccess(brokerName: string, latencyMs: number): void {
    const s = this.state(brokerName);
    const now = this.host.now();
    const started = this.finish(s, now, latencyMs);
    this.noteSample(s, started, latencyMs);
    // Only an attempt sent after the isolation began (the trial) proves the broker works again.
    if (s.isolated && started >= s.isolatedAt) this.recover(s, now);
  }

  onFailure(brokerName: string, latencyMs: number, kind: FailureKind, error?: unknown): void {
    const s = this.state(brokerName);
    const now = this.host.now();
    const started = this.finish(s, now, latencyMs);
    if (kind === 'rejected' || kind === 'client') return;
    if (kind === 'timeout') this.noteSample(s, started, latencyMs);
    if (s.isolated) {
      // Not the trial: a send in flight when the incident began (64 concurrent failures are one strike).
      if (s.trialSince === 0 || started < s.trialSince) return;
      s.strikes++;
      s.trialSince = 0;
      s.lastKind = kind;
      s.isolatedUntil = Math.max(now, started + this.isolationFor(s.strikes, kind));
      this.host.logger.info('broker failed its trial', {
        brokerName,
        kind,
        forMs: s.isolatedUntil - now,
      });
      this.scheduleProbe(s);
      return;
    }
    if (started < s.readmittedAt) return; // a leftover of the incident that just ended
    this.isolate(s, now, kind, error instanceof Error ? `${kind}: ${error.message}` : kind);
  }

  /** An overdue attempt (hedged sends) is the start of a timeout incident: isolate at once. */
  onOverdue(brokerName: string, overdueMs: number): void {
    const s = this.state(brokerName);
    const now = this.host.now();
    if (s.isolated || now - overdueMs < s.readmittedAt) return;
    this.isolate(s, now, 'timeout', `overdue: no answer for ${overdueMs} ms`);
  }

  private isolate(s: BrokerState, now: number, kind: FailureKind, reason: string): void {
    const brokerName = s.name;
    s.strikes = 1;
    s.isolated = true;
    s.isolatedAt = now;
    s.isolatedUntil = now + this.isolationFor(1, kind);
    s.trialSince = 0;
    s.lastKind = kind;
    this.host.logger.warn('broker isolated', { brokerName, reason, forMs: s.isolatedUntil - now });
    this.host.onIsolated({ brokerName, reason, untilMs: s.isolatedUntil });
    this.scheduleProbe(s);
  }

  private recover(s: BrokerState, now: number): void {
    s.isolated = false;
    s.isolatedUntil = 0;
    s.trialSince = 0;
    s.strikes = 0;
    s.readmittedAt = now;
    if (s.probeTimer) clearTimeout(s.probeTimer);
    s.probeTimer = undefined;
    this.host.logger.info('broker recovered', { brokerName: s.name });
    this.host.onRecovered({ brokerName: s.name });
  }

  private scheduleProbe(s: BrokerState): void {
    if (!this.running || s.probeTimer !== undefined || s.lastKind !== 'transport') return;
    s.probeTimer = setTimeout(() => {
      s.probeTimer = undefined;
      void this.probeOnce(s);
    }, this.probeInterval);
    s.probeTimer.unref();
  }

  /** Probe timers currently armed (for diagnostics and tests). */
  pendingProbeTimers(): NodeJS.Timeout[] {
    const out: NodeJS.Timeout[] = [];
    for (const s of this.states.values()) if (s.probeTimer !== undefined) out.push(s.probeTimer);
    return out;
  }

  /** One probe of an isolated broker; exposed for tests. */
  async probeOnce(s: BrokerState | string): Promise<boolean> {
    const st = typeof s === 'string' ? this.states.get(s) : s;
    if (st === undefined || !st.isolated) return false;
    if (!this.host.brokerKnown(st.name)) {
      this.states.delete(st.name);
      this.shares.forget(st.name);
      return false;
    }
    let ok = false;
    try {
      ok = await this.host.probe(st.name, this.probeTimeout);
    } catch {
      ok = false;
    }
    if (!st.isolated) return ok;
    if (ok && st.lastKind === 'transport') this.recover(st, this.host.now());
    else this.scheduleProbe(st);
    return ok;
  }

  health(): BrokerHealth[] {
    const now = this.host.now();
    const names = [...this.states.keys()];
    const limit = this.slowLimit(names, now);
    return [...this.states.values()].map((s) => {
      const latency = this.latencyOf(s.name, now) ?? 0;
      return {
        brokerName: s.name,
        isolated: s.isolated,
        ...(s.isolated ? { isolatedUntil: s.isolatedUntil } : {}),
        latencyMs: s.ewma ?? 0,
        failures: s.strikes,
        reachable: !s.isolated,
        share: s.isolated ? 0 : latency > limit ? limit / latency : 1,
        weight: this.shares.weight(s.name),
        floor: names.length < 2 ? 0 : this.minShare / names.length,
      };
    });
  }

  start(): void {
    this.running = true;
    for (const s of this.states.values()) if (s.isolated) this.scheduleProbe(s);
  }

  stop(): void {
    this.running = false;
    for (const s of this.states.values()) {
      if (s.probeTimer) clearTimeout(s.probeTimer);
      s.probeTimer = undefined;
    }
  }
}
