/**
 * `adaptive`, the default strategy. It answers the seeds' warning ("isolating a broker for
 * minutes after one blip overloads the healthy ones") with:
 * - short isolation that grows only with repeated failure: 1 s, 2 s, 4 s ... capped at 30 s;
 *   failures of sends already in flight when the broker was isolated count as the same blip;
 * - early re-admission: while a broker is isolated after a transport failure (refused, closed)
 *   it is probed every `probeInterval`; the first answer re-admits it. After a timeout or a
 *   broker error code a probe proves little (the broker may answer probes and still fail
 *   sends), so such a broker waits out its short isolation instead;
 * - a half-open trial when the isolation ends: one send is let through; success clears the
 *   failure count, failure isolates again for twice as long;
 * - slowness never isolates: a working broker whose latency EWMA is well above the fastest
 *   one's gets a proportionally smaller share (never below `minShare`), never zero;
 * - never two attempts of one send on the same broker when another broker exists;
 * - if every broker is isolated, the one whose isolation ends first is used: sends never stop.
 * Failures that are about the message (`rejected`) or the client (`client`) do not count.
 */
import type { MessageQueue } from '../../client/route.js';
import type { TopicPublishInfo } from '../topic-publish-info.js';
import type {
  BrokerHealth,
  FailureKind,
  FaultStrategyHost,
  LatencyFaultStrategy,
} from './latency-fault-tolerance.js';

export interface AdaptiveSettings {
  /** First isolation after a failure (ms). @default 1000 */
  baseIsolationMs?: number;
  /** Longest isolation (ms). @default 30000 */
  maxIsolationMs?: number;
  /** Probe period of an isolated broker (ms). @default 500 */
  probeInterval?: number | undefined;
  /** Probe timeout (ms). @default 200 */
  probeTimeout?: number | undefined;
  /** EWMA weight of a new latency sample. @default 0.3 */
  ewmaAlpha?: number;
  /** Smallest traffic share of a slow but working broker. @default 0.1 */
  minShare?: number;
  /** Latency within `2 × fastest + slackMs` counts as "as fast" (ms). @default 20 */
  slackMs?: number;
}

interface BrokerState {
  name: string;
  ewma: number | undefined;
  failures: number;
  isolated: boolean;
  isolatedUntil: number;
  lastKind: FailureKind | undefined;
  trialSince: number;
  probeTimer: NodeJS.Timeout | undefined;
}

/** A half-open trial that never reported back is forgotten after this long. */
const TRIAL_TIMEOUT_MS = 10_000;

export class AdaptiveFaultStrategy implements LatencyFaultStrategy {
  readonly name = 'adaptive';
  private readonly states = new Map<string, BrokerState>();
  private readonly base: number;
  private readonly max: number;
  private readonly probeInterval: number;
  private readonly probeTimeout: number;
  private readonly alpha: number;
  private readonly minShare: number;
  private readonly slack: number;
  private running = false;

  constructor(
    private readonly host: FaultStrategyHost,
    settings: AdaptiveSettings = {},
  ) {
    this.base = settings.baseIsolationMs ?? 1000;
    this.max = settings.maxIsolationMs ?? 30_000;
    this.probeInterval = settings.probeInterval ?? 500;
    this.probeTimeout = settings.probeTimeout ?? 200;
    this.alpha = settings.ewmaAlpha ?? 0.3;
    this.minShare = settings.minShare ?? 0.1;
    this.slack = settings.slackMs ?? 20;
  }

  private state(name: string): BrokerState {
    let s = this.states.get(name);
    if (s === undefined) {
      s = {
        name,
        ewma: undefined,
        failures: 0,
        isolated: false,
        isolatedUntil: 0,
        lastKind: undefined,
        trialSince: 0,
        probeTimer: undefined,
      };
      this.states.set(name, s);
    }
    return s;
  }

  /** Isolation length after `failures` consecutive failures. */
  isolationFor(failures: number): number {
    return Math.min(this.max, this.base * 2 ** Math.max(0, Math.min(failures - 1, 30)));
  }

  /** Whether a send may go to the broker now; `claim` reserves the half-open trial. */
  private admissible(name: string, now: number, claim: boolean): boolean {
    const s = this.states.get(name);
    if (s === undefined || !s.isolated) return true;
    if (now < s.isolatedUntil) return false;
    if (s.trialSince !== 0 && now - s.trialSince < TRIAL_TIMEOUT_MS) return false;
    if (claim) s.trialSince = now;
    return true;
  }

  /** Traffic share of a broker relative to the fastest of `names`, in [minShare, 1]. */
  shareOf(name: string, names: readonly string[]): number {
    const ewma = this.states.get(name)?.ewma;
    if (ewma === undefined) return 1;
    let fastest = Infinity;
    for (const n of names) {
      const e = this.states.get(n)?.ewma;
      if (e !== undefined && e < fastest) fastest = e;
    }
    if (ewma <= 2 * fastest + this.slack) return 1;
    return Math.max(this.minShare, (fastest + this.slack) / ewma);
  }

  select(tp: TopicPublishInfo, lastBrokerName: string | undefined, _attempt = 0): MessageQueue {
    const now = this.host.now();
    const queues = tp.queues;
    const n = queues.length;
    const avoidLast = lastBrokerName !== undefined && tp.brokerNames.some((b) => b !== lastBrokerName);
    const start = tp.sendWhichQueue.incrementAndGet();
    let fallback: MessageQueue | undefined;
    for (let i = 0; i < n; i++) {
      const mq = queues[(start + i) % n] as MessageQueue;
      if (avoidLast && mq.brokerName === lastBrokerName) continue;
      if (!this.admissible(mq.brokerName, now, false)) continue;
      if (this.host.random() < this.shareOf(mq.brokerName, tp.brokerNames)) return this.take(mq, now);
      fallback ??= mq;
    }
    if (fallback !== undefined) return this.take(fallback, now);
    // Everything admissible is excluded: use the broker whose isolation ends first.
    let best: BrokerState | undefined;
    for (const b of tp.brokerNames) {
      if (avoidLast && b === lastBrokerName) continue;
      const s = this.states.get(b);
      if (s !== undefined && (best === undefined || s.isolatedUntil < best.isolatedUntil)) best = s;
    }
    if (best !== undefined) {
      for (let i = 0; i < n; i++) {
        const mq = queues[(start + i) % n] as MessageQueue;
        if (mq.brokerName === best.name) return mq;
      }
    }
    return tp.selectAvoiding(avoidLast ? lastBrokerName : undefined);
  }

  private take(mq: MessageQueue, now: number): MessageQueue {
    this.admissible(mq.brokerName, now, true);
    return mq;
  }

  onSuccess(brokerName: string, latencyMs: number): void {
    const s = this.state(brokerName);
    s.ewma = s.ewma === undefined ? latencyMs : s.ewma + this.alpha * (latencyMs - s.ewma);
    s.failures = 0;
    s.trialSince = 0;
    if (s.isolated) this.recover(s);
  }

  onFailure(brokerName: string, _latencyMs: number, kind: FailureKind, error?: unknown): void {
    if (kind === 'rejected' || kind === 'client') return;
    const s = this.state(brokerName);
    const now = this.host.now();
    // Sends that were already in flight when the broker was isolated fail too; they are the
    // same blip and must not escalate the isolation (64 concurrent failures are not 64 strikes).
    if (s.isolated && now < s.isolatedUntil && s.trialSince === 0) return;
    s.failures++;
    s.trialSince = 0;
    s.lastKind = kind;
    const until = now + this.isolationFor(s.failures);
    if (until > s.isolatedUntil || !s.isolated) s.isolatedUntil = until;
    if (!s.isolated) {
      s.isolated = true;
      const reason = error instanceof Error ? `${kind}: ${error.message}` : kind;
      this.host.logger.warn('broker isolated', { brokerName, reason, forMs: s.isolatedUntil - now });
      this.host.onIsolated({ brokerName, reason, untilMs: s.isolatedUntil });
    }
    this.scheduleProbe(s);
  }

  private recover(s: BrokerState): void {
    s.isolated = false;
    s.isolatedUntil = 0;
    s.trialSince = 0;
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

  /** One probe of an isolated broker; exposed for tests. */
  async probeOnce(s: BrokerState | string): Promise<boolean> {
    const st = typeof s === 'string' ? this.states.get(s) : s;
    if (st === undefined || !st.isolated) return false;
    if (!this.host.brokerKnown(st.name)) {
      this.states.delete(st.name);
      return false;
    }
    let ok = false;
    try {
      ok = await this.host.probe(st.name, this.probeTimeout);
    } catch {
      ok = false;
    }
    if (!st.isolated) return ok;
    if (ok && st.lastKind === 'transport') this.recover(st);
    else this.scheduleProbe(st);
    return ok;
  }

  health(): BrokerHealth[] {
    const names = [...this.states.keys()];
    return [...this.states.values()].map((s) => ({
      brokerName: s.name,
      isolated: s.isolated,
      ...(s.isolated ? { isolatedUntil: s.isolatedUntil } : {}),
      latencyMs: s.ewma ?? 0,
      failures: s.failures,
      reachable: !s.isolated,
      share: this.shareOf(s.name, names),
    }));
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
