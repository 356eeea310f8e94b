/**
 * Hedged sends: when an attempt is overdue by far more than its broker's recent latency
 * (`hedgeDelayMultiplier` × the broker's p99, at least `hedgeDelayFloorMs`), the broker is
 * reported overdue to the fault strategy (which stops choosing it at once) and the same prepared
 * message — same UNIQ_KEY, so consumers can dedupe — is sent to another broker. The first success
 * wins; a later success of the other attempt is a duplicate: counted per broker and reported
 * through `onDuplicate`.
 *
 * Why: a hung broker otherwise holds every send already in flight to it for a whole attempt
 * timeout (about 1 s), so throughput collapses for that second. Hedging is skipped for oneway
 * sends (no answer to wait for), for the last attempt's budget-only case, and for sends pinned to
 * a queue (`queue`, `shardingKey`, `selector`: the send loop's `select`), where a second broker would break ordering.
 */
import type { BrokerHealth } from './fault/latency-fault-tolerance.js';

/** Hedging settings (resolved producer options). */
export interface HedgeSettings {
  /** Hedge delay = multiplier × the broker's recent p99. */
  multiplier: number;
  /** Lower bound of the hedge delay (ms). */
  floorMs: number;
}

/** Published by `producer.on('hedgedDuplicate')`: both attempts of one hedged send stored it. */
export interface HedgedDuplicateEvent {
  /** Topic as the caller wrote it. */
  topic: string;
  /** UNIQ_KEY(s) of the message (comma-joined for a batch): consumers dedupe on it. */
  msgId: string;
  /** Broker whose success came second (its copy is the duplicate). */
  brokerName: string;
  /** Broker whose success was returned to the caller. */
  winnerBrokerName: string;
}

/** Per-broker hedging counters, merged into `brokerHealth()`. */
export interface BrokerHedgeStats {
  /** Sends re-sent elsewhere because an attempt on this broker was overdue. */
  hedged: number;
  /** Duplicates stored on this broker (its success came after the other attempt's). */
  hedgedDuplicates: number;
}

/** Recent successful latencies of one broker; p99 recomputed every `RECOMPUTE` samples. */
class LatencyWindow {
  private readonly samples: number[] = [];
  private next = 0;
  private sinceCompute = 0;
  p99: number | undefined;

  add(ms: number): void {
    if (this.samples.length < WINDOW) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    if (++this.sinceCompute >= RECOMPUTE || this.p99 === undefined || ms > this.p99) {
      this.sinceCompute = 0;
      this.p99 = p99Of(this.samples);
    }
  }

  /** The p99 once the window holds enough answers to judge lateness by. */
  warmP99(): number | undefined {
    return this.samples.length >= WARM_SAMPLES ? this.p99 : undefined;
  }
}

/** Answers a broker must have given before its latency decides when a send is overdue. */
export const WARM_SAMPLES = 32;

/**
 * `sorted[floor(n × 0.99)]` without sorting: that index is at most 2 from the top in a window of
 * 256, so one pass keeping the largest three finds it (sorting a copy every 32 sends cost about
 * 0.5 µs per send). Exported for its test.
 */
export function p99Of(samples: readonly number[]): number | undefined {
  const n = samples.length;
  if (n === 0) return undefined;
  const fromTop = n - 1 - Math.min(n - 1, Math.floor(n * 0.99));
  let a = -Infinity; // largest
  let b = -Infinity;
  let c = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = samples[i] as number;
    if (v > c) {
      if (v > b) {
        c = b;
        if (v > a) {
          b = a;
          a = v;
        } else b = v;
      } else c = v;
    }
  }
  return fromTop === 0 ? a : fromTop === 1 ? b : c;
}

const WINDOW = 256;
/** Times an overdue check is postponed because this process itself was late. */
const MAX_REARMS = 3;
const RECOMPUTE = 32;

/** Outcome of a hedged race, for the caller to report the right broker. */
export interface HedgeOutcome<T> {
  value: T;
  /** True when the hedge attempt (not the primary) won. */
  hedgeWon: boolean;
}

/** What a duplicate report names: the prepared message's topic (as the caller wrote it) and UNIQ_KEY. */
export interface HedgedMessage {
  readonly userTopic: string;
  readonly msgId: string;
}

type HedgeStart<T> = () => { brokerName: string; promise: Promise<T> } | undefined;

/** What the shared overdue timer sees of a race. */
interface WaitingRace {
  /** Index in the hedger's slot table while waiting; -1 otherwise. */
  slot: number;
  dueAt: number;
  rearms: number;
  overdue(): void;
}

/** One send racing its hedge: settles its promise once, with the first success or the primary's error. */
class HedgedRace<T> implements WaitingRace {
  slot = -1;
  settled = false;
  pending = 1;
  primaryError: unknown;
  winner: string | undefined;
  rearms = 0;
  resolve!: (outcome: HedgeOutcome<T>) => void;
  reject!: (err: unknown) => void;

  constructor(
    private readonly hedger: SendHedger,
    readonly brokerName: string,
    readonly started: number,
    /** When the primary is overdue; moved on when this process itself was late. */
    public dueAt: number,
    private readonly hedge: HedgeStart<T>,
    private readonly message: HedgedMessage,
  ) {}

  overdue(): void {
    if (this.settled) return;
    const hedger = this.hedger;
    hedger.onOverdueOf(this.brokerName, Date.now() - this.started);
    const h = this.hedge();
    if (h === undefined) return;
    hedger.count(this.brokerName, 'hedged');
    this.pending++;
    h.promise.then(
      (value) => this.success(h.brokerName, value, true),
      () => this.failure(),
    );
  }

  success(from: string, value: T, hedgeWon: boolean): void {
    if (this.settled) {
      if (this.winner !== undefined && this.winner !== from) {
        this.hedger.count(from, 'hedgedDuplicates');
        this.hedger.duplicate({
          topic: this.message.userTopic,
          msgId: this.message.msgId,
          brokerName: from,
          winnerBrokerName: this.winner,
        });
      }
      return;
    }
    this.settled = true;
    this.winner = from;
    this.hedger.forget(this);
    this.resolve({ value, hedgeWon });
  }

  failure(): void {
    if (--this.pending > 0 || this.settled) return;
    this.settled = true;
    this.hedger.forget(this);
    this.reject(this.primaryError);
  }
}

function dueTick(hedger: SendHedger): void {
  hedger['checkDue']();
}

export class SendHedger {
  private readonly windows = new Map<string, LatencyWindow>();
  private readonly counters = new Map<string, BrokerHedgeStats>();
  /**
   * Races not yet overdue, in reused slots. One timer for all of them, armed for the earliest
   * due time: a timer per send cost more than the rest of the hedging together, and since the
   * delays are alike, later sends rarely move it.
   */
  private readonly waiting: Array<WaitingRace | undefined> = [];
  /** Free indexes of `waiting`. */
  private readonly freeSlots: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly settings: HedgeSettings,
    private readonly onOverdue: (brokerName: string, overdueMs: number) => void,
    private readonly onDuplicate: (event: HedgedDuplicateEvent) => void,
  ) {}

  /** Feeds the broker's latency window with a successful attempt. */
  record(brokerName: string, latencyMs: number): void {
    let w = this.windows.get(brokerName);
    if (w === undefined) this.windows.set(brokerName, (w = new LatencyWindow()));
    w.add(latencyMs);
  }

  /**
   * When an attempt on the broker is overdue. Until the broker has answered `WARM_SAMPLES` sends
   * the highest p99 of the brokers that have stands in; until one has, Infinity: no hedging.
   * Why: a producer's first sends (new connections, a topic created on first use, a JVM or a
   * machine still warming up) routinely take longer than the floor, and hedging them stored every
   * one of them twice; a broker that hangs from the very first send still costs no more than the
   * attempt cap, as without hedging.
   */
  delayFor(brokerName: string): number {
    let p99 = this.windows.get(brokerName)?.warmP99();
    if (p99 === undefined) {
      for (const w of this.windows.values()) {
        const other = w.warmP99();
        if (other !== undefined) p99 = Math.max(p99 ?? 0, other);
      }
    }
    if (p99 === undefined) return Infinity;
    return Math.max(this.settings.floorMs, this.settings.multiplier * p99);
  }

  /** Counters of one broker (zeros when it never hedged). */
  stats(brokerName: string): BrokerHedgeStats {
    return this.counters.get(brokerName) ?? { hedged: 0, hedgedDuplicates: 0 };
  }

  /** Every broker with counters. */
  brokers(): string[] {
    return [...this.counters.keys()];
  }

  /**
   * The fault strategy's health with these counters added (Producer.brokerHealth): a strategy
   * without per-broker state (none) still shows the brokers that hedged.
   */
  withStats(health: readonly BrokerHealth[]): Array<BrokerHealth & BrokerHedgeStats> {
    const out = health.map((h) => ({ ...h, ...this.stats(h.brokerName) }));
    for (const name of this.brokers()) {
      if (!out.some((h) => h.brokerName === name))
        out.push({
          brokerName: name,
          isolated: false,
          latencyMs: 0,
          failures: 0,
          reachable: true,
          ...this.stats(name),
        });
    }
    return out;
  }

  /** @internal for HedgedRace */
  count(brokerName: string, field: keyof BrokerHedgeStats): void {
    let c = this.counters.get(brokerName);
    if (c === undefined) this.counters.set(brokerName, (c = { hedged: 0, hedgedDuplicates: 0 }));
    c[field]++;
  }

  /** @internal for HedgedRace */
  onOverdueOf(brokerName: string, overdueMs: number): void {
    this.onOverdue(brokerName, overdueMs);
  }

  /** @internal for HedgedRace */
  duplicate(event: HedgedDuplicateEvent): void {
    this.onDuplicate(event);
  }

  /** @internal a settled race needs no overdue check. */
  forget(race: WaitingRace): void {
    this.unlist(race);
  }

  /**
   * A fixed table of slots rather than a Set: a Set's table is replaced as entries come and go,
   * and a replaced table that had reached the old generation keeps every race it listed (and
   * each send's whole object graph) alive until the next full GC. Measured: the Set cost about
   * as much as the rest of the send path's garbage.
   */
  private list(race: WaitingRace): void {
    const slot = this.freeSlots.pop() ?? this.waiting.length;
    this.waiting[slot] = race;
    race.slot = slot;
  }

  private unlist(race: WaitingRace): void {
    if (race.slot < 0) return;
    this.waiting[race.slot] = undefined;
    this.freeSlots.push(race.slot);
    race.slot = -1;
  }

  /**
   * Runs `primary` (already started on `brokerName`); if it is still pending after the broker's
   * hedge delay, reports the broker overdue and starts `hedge()` (undefined = no other broker:
   * keep waiting). The first success wins; when both fail, the primary's error is thrown (the
   * hedge attempt has recorded its own failure). `message` gives the event's topic and msgId.
   * A copy the broker stores after its attempt timed out is not seen, so not counted (as with
   * any retry).
   */
  race<T>(
    brokerName: string,
    primary: Promise<T>,
    hedge: HedgeStart<T>,
    message: HedgedMessage,
  ): Promise<HedgeOutcome<T>> {
    const delay = this.delayFor(brokerName);
    if (delay === Infinity) return primary.then((value) => ({ value, hedgeWon: false }));
    const now = Date.now();
    const race = new HedgedRace<T>(this, brokerName, now, now + delay, hedge, message);
    const promise = new Promise<HedgeOutcome<T>>((resolve, reject) => {
      race.resolve = resolve;
      race.reject = reject;
    });
    this.list(race);
    if (race.dueAt < this.timerAt) this.arm(race.dueAt, now);
    primary.then(
      (value) => race.success(brokerName, value, false),
      (err: unknown) => {
        race.primaryError = err;
        race.failure();
      },
    );
    return promise;
  }

  private arm(at: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(dueTick, Math.max(1, at - now), this);
    this.timer.unref();
  }

  /** Timer callback: judges every race that is due, then re-arms for the earliest of the rest. */
  private checkDue(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    let overdue: WaitingRace[] | undefined;
    let next = Infinity;
    for (let i = 0; i < this.waiting.length; i++) {
      const race = this.waiting[i];
      if (race === undefined) continue;
      if (race.dueAt > now) {
        if (race.dueAt < next) next = race.dueAt;
        continue;
      }
      // A timer that fires late means this process was not running (CPU starvation, a long
      // task): the answer may be waiting unread. Give the attempt the time we lost first.
      const lag = now - race.dueAt;
      if (lag > this.settings.floorMs / 2 && race.rearms++ < MAX_REARMS) {
        race.dueAt = now + lag;
        if (race.dueAt < next) next = race.dueAt;
        continue;
      }
      this.unlist(race);
      (overdue ??= []).push(race);
    }
    // Timers run before socket reads in a loop turn: read what has arrived, then judge.
    if (overdue !== undefined) setImmediate(judge, overdue);
    if (next < Infinity) this.arm(next, now);
  }
}

function judge(races: WaitingRace[]): void {
  for (const race of races) race.overdue();
}
