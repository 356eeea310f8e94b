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
    // Sorting 256 numbers every 32 sends keeps the p99 fresh at negligible cost per send.
    if (++this.sinceCompute >= RECOMPUTE || this.p99 === undefined || ms > this.p99) {
      this.sinceCompute = 0;
      const sorted = [...this.samples].sort((a, b) => a - b);
      this.p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
    }
  }
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

export class SendHedger {
  private readonly windows = new Map<string, LatencyWindow>();
  private readonly counters = new Map<string, BrokerHedgeStats>();

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
   * When an attempt on the broker is overdue. Before the broker has answered anything the p99 of
   * the other brokers stands in; with no sample at all, only the floor.
   */
  delayFor(brokerName: string): number {
    let p99 = this.windows.get(brokerName)?.p99;
    if (p99 === undefined) {
      for (const w of this.windows.values()) if (w.p99 !== undefined) p99 = Math.max(p99 ?? 0, w.p99);
    }
    return Math.max(this.settings.floorMs, this.settings.multiplier * (p99 ?? 0));
  }

  /** Counters of one broker (zeros when it never hedged). */
  stats(brokerName: string): BrokerHedgeStats {
    return this.counters.get(brokerName) ?? { hedged: 0, hedgedDuplicates: 0 };
  }

  /** Every broker with counters. */
  brokers(): string[] {
    return [...this.counters.keys()];
  }

  private count(brokerName: string, field: keyof BrokerHedgeStats): void {
    let c = this.counters.get(brokerName);
    if (c === undefined) this.counters.set(brokerName, (c = { hedged: 0, hedgedDuplicates: 0 }));
    c[field]++;
  }

  /**
   * Runs `primary` (already started on `brokerName`); if it is still pending after the broker's
   * hedge delay, reports the broker overdue and starts `hedge()` (undefined = no other broker:
   * keep waiting). The first success wins; when both fail, the primary's error is thrown (the
   * hedge attempt has recorded its own failure). `describe` gives the event's topic and msgId.
   * A copy the broker stores after its attempt timed out is not seen, so not counted (as with
   * any retry).
   */
  race<T>(
    brokerName: string,
    primary: Promise<T>,
    hedge: () => { brokerName: string; promise: Promise<T> } | undefined,
    describe: { topic: string; msgId: string },
  ): Promise<HedgeOutcome<T>> {
    const delay = this.delayFor(brokerName);
    const started = Date.now();
    return new Promise<HedgeOutcome<T>>((resolve, reject) => {
      let settled = false;
      let pending = 1;
      let primaryError: unknown;
      let winner: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      let dueAt = 0;
      let rearms = 0;
      const arm = (ms: number): void => {
        dueAt = Date.now() + ms;
        timer = setTimeout(onDue, ms);
        timer.unref();
      };
      const onDue = (): void => {
        if (settled) return;
        // A timer that fires late means this process was not running (CPU starvation, a long
        // task): the answer may be waiting unread. Give the attempt the time we lost first.
        const lag = Date.now() - dueAt;
        if (lag > this.settings.floorMs / 2 && rearms++ < MAX_REARMS) {
          arm(lag);
          return;
        }
        // Timers run before socket reads in a loop turn: read what has arrived, then judge.
        setImmediate(overdue);
      };
      const overdue = (): void => {
        if (settled) return;
        this.onOverdue(brokerName, Date.now() - started);
        const h = hedge();
        if (h === undefined) return;
        this.count(brokerName, 'hedged');
        pending++;
        h.promise.then(
          (value) => success(h.brokerName, value, true),
          () => failure(),
        );
      };
      arm(delay);
      const success = (from: string, value: T, hedgeWon: boolean): void => {
        if (settled) {
          if (winner !== undefined && winner !== from) {
            this.count(from, 'hedgedDuplicates');
            this.onDuplicate({ ...describe, brokerName: from, winnerBrokerName: winner });
          }
          return;
        }
        settled = true;
        winner = from;
        clearTimeout(timer);
        resolve({ value, hedgeWon });
      };
      const failure = (): void => {
        if (--pending > 0 || settled) return;
        settled = true;
        clearTimeout(timer);
        reject(primaryError);
      };
      primary.then(
        (value) => success(brokerName, value, false),
        (err: unknown) => {
          primaryError = err;
          failure();
        },
      );
    });
  }
}
