/**
 * The one timeout mechanism of the client: a Deadline is an absolute instant on an injectable
 * clock, created once per operation (a send, a route lookup, a refresh) and passed down, so the
 * route lookup, the connect and every attempt draw from the same budget. Tests inject a clock
 * instead of relying on wall time with slack.
 */
import { raceTimeout } from '../remoting/pool.js';

/** Milliseconds since some epoch; `Date.now` in production. */
export type Clock = () => number;

export class Deadline {
  private constructor(
    /** The instant (on `clock`) the budget runs out. */
    readonly at: number,
    readonly clock: Clock,
  ) {}

  /** A deadline `ms` from now. */
  static after(ms: number, clock: Clock = Date.now): Deadline {
    return new Deadline(clock() + ms, clock);
  }

  /** Milliseconds left, never negative. */
  remaining(): number {
    return Math.max(0, this.at - this.clock());
  }

  expired(): boolean {
    return this.clock() >= this.at;
  }

  /** This deadline, or an earlier one `ms` from now when that comes first (e.g. one request of a longer operation). */
  cap(ms: number): Deadline {
    const at = this.clock() + ms;
    return at < this.at ? new Deadline(at, this.clock) : this;
  }

  /** `promise`, or a rejection with `onTimeout()` when the deadline passes first (remoting `raceTimeout`). */
  race<T>(promise: Promise<T>, onTimeout: () => Error): Promise<T> {
    return raceTimeout(promise, this.remaining(), onTimeout);
  }
}
