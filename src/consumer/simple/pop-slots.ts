/**
 * The bound on POP requests in flight of one SimpleConsumer (`maxInFlightPops`): a `receive` that
 * would send one more waits for a slot, abortable by its signal. A slot is held until the POP is
 * answered, also when its `receive` was aborted and the POP parked (parked-pops.ts), so the bound is
 * on requests the broker holds, not on callers.
 */
import { raceAbort } from '../../remoting/abort.js';

export class PopSlots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  get inFlight(): number {
    return this.used;
  }

  /** Takes a slot, waiting for one when all are taken (AbortError when `signal` aborts first). */
  async acquire(signal: AbortSignal | undefined): Promise<void> {
    if (this.used < this.max) {
      this.used++;
      return;
    }
    let granted!: () => void;
    const slot = new Promise<void>((resolve) => (granted = resolve));
    this.waiting.push(granted);
    try {
      await raceAbort(slot, signal, 'receive');
    } catch (err) {
      const i = this.waiting.indexOf(granted);
      if (i >= 0) this.waiting.splice(i, 1);
      else this.release(); // granted just as the abort came: hand it on
      throw err;
    }
  }

  /** The slot taken for `pop` is freed when it settles. */
  holdUntilSettled(pop: Promise<unknown>): void {
    pop.then(
      () => this.release(),
      () => this.release(),
    );
  }

  /** Frees a slot, or hands it straight to the next waiter. */
  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.used--;
  }
}
