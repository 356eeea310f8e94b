/**
 * A broker background job (delayed delivery, transaction check-back): runs on an unref'd
 * interval, never overlaps itself, does nothing while the broker stops, and logs a failed run
 * instead of throwing (the next run retries).
 */
import type { Logger } from '../../observability/logger.js';

export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly owner: { readonly stopping: boolean; readonly logger: Logger },
    private readonly failureMessage: string,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer; resolves when the run under way (if any) has finished. Never rejects. */
  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return this.current ?? Promise.resolve();
  }

  /** One run now; resolves at once when a run is already under way. */
  run(): Promise<void> {
    if (this.current || this.owner.stopping) return Promise.resolve();
    // The work starts on a microtask, so `current` is set before it can finish.
    const run = Promise.resolve()
      .then(() => this.work())
      .catch((err: unknown) => {
        if (!this.owner.stopping) this.owner.logger.warn(this.failureMessage, { error: err });
      })
      .finally(() => {
        this.current = undefined;
      });
    this.current = run;
    return run;
  }
}
