/**
 * A broker background job (delayed delivery, transaction check-back): runs on an unref'd
 * interval, never overlaps itself, does nothing while the broker stops, and logs a failed run
 * instead of throwing (the next run retries).
 */
import type { Logger } from '../../observability/logger.js';

export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly owner: { readonly stopping: boolean; readonly logger: Logger },
    private readonly failureMessage: string,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One run now; resolves at once when a run is already under way. */
  async run(): Promise<void> {
    if (this.busy || this.owner.stopping) return;
    this.busy = true;
    try {
      await this.work();
    } catch (err) {
      if (!this.owner.stopping) this.owner.logger.warn(this.failureMessage, { error: err });
    } finally {
      this.busy = false;
    }
  }
}
