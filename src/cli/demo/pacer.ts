/**
 * Sends at a steady rate with a bound on sends in flight. When every slot is taken (a hung broker
 * holds them until the send timeout) the sender falls behind; it catches up by at most
 * `maxBacklog` messages and counts the rest as skipped, so a long stall shows up as lost
 * throughput instead of an unbounded burst or an unbounded queue.
 */

export interface PacerOptions {
  /** Messages per second. */
  ratePerSec: number;
  /** Sends in flight at most. */
  maxInFlight: number;
  /** How long to keep sending. */
  durationMs: number;
  /** Messages owed beyond this are skipped instead of sent late. @default ratePerSec / 2 */
  maxBacklog?: number;
  /** Clock, for tests. @default performance.now */
  now?: () => number;
  /** Scheduling granularity. @default 5 */
  tickMs?: number;
}

export class PacedSender {
  issued = 0;
  completed = 0;
  skipped = 0;
  private inFlight = 0;
  private stopped = false;
  private readonly startedAt: number;
  private readonly now: () => number;
  private readonly maxBacklog: number;
  private timer: NodeJS.Timeout | undefined;
  private finish: (() => void) | undefined;

  constructor(
    private readonly options: PacerOptions,
    private readonly sendOne: (seq: number) => Promise<unknown>,
  ) {
    if (!(options.ratePerSec > 0)) throw new RangeError('ratePerSec must be positive');
    if (!(options.maxInFlight >= 1)) throw new RangeError('maxInFlight must be at least 1');
    this.now = options.now ?? (() => performance.now());
    this.maxBacklog = options.maxBacklog ?? Math.max(1, Math.ceil(options.ratePerSec / 2));
    this.startedAt = this.now();
  }

  get pending(): number {
    return this.inFlight;
  }

  /** Runs until the duration is over (or `stop()`), then waits for every send in flight. */
  run(): Promise<void> {
    return new Promise((resolve) => {
      this.finish = resolve;
      this.timer = setInterval(() => this.pump(), this.options.tickMs ?? 5);
      this.pump();
    });
  }

  /** Stops issuing sends; `run()` resolves once those in flight settle. */
  stop(): void {
    this.stopped = true;
    this.pump();
  }

  private pump(): void {
    const elapsed = this.now() - this.startedAt;
    if (!this.stopped) {
      const due = Math.floor((Math.min(elapsed, this.options.durationMs) * this.options.ratePerSec) / 1000);
      let owed = due - this.issued - this.skipped;
      if (owed > this.maxBacklog) {
        this.skipped += owed - this.maxBacklog;
        owed = this.maxBacklog;
      }
      while (owed > 0 && this.inFlight < this.options.maxInFlight) {
        owed -= 1;
        this.launch();
      }
      if (elapsed >= this.options.durationMs) this.stopped = true;
    }
    if (this.stopped) {
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      if (this.inFlight === 0 && this.finish) {
        const done = this.finish;
        this.finish = undefined;
        done();
      }
    }
  }

  private launch(): void {
    const seq = this.issued++;
    this.inFlight += 1;
    const settle = (): void => {
      this.inFlight -= 1;
      this.completed += 1;
      if (this.stopped) this.pump();
    };
    this.sendOne(seq).then(settle, settle);
  }
}
