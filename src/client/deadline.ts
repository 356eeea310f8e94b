/**
 * The one timeout mechanism of the client: a Deadline is an absolute instant on an injectable
 * clock, created once per operation (a send, a route lookup, a refresh) and passed down, so the
 * route lookup, the connect and every attempt draw from the same budget. Tests inject a clock
 * instead of relying on wall time with slack.
 *
 * A deadline may also carry the caller's AbortSignal (remoting/abort.ts), so that a call that
 * hands its deadline down (Admin's NameServer requests) is given up by either. Work shared by
 * several callers (a route lookup) runs on `withoutSignal()`: one caller's abort is its own.
 */
import { raceAbort } from '../remoting/abort.js';
import { raceTimeout } from '../remoting/pool.js';

/** Milliseconds since some epoch; `Date.now` in production. */
export type Clock = () => number;

export class Deadline {
  private constructor(
    /** The instant (on `clock`) the budget runs out. */
    readonly at: number,
    readonly clock: Clock,
    /** The caller's signal: the operation ends when it aborts too. */
    readonly signal: AbortSignal | undefined = undefined,
  ) {}

  /** A deadline `ms` from now, ended early by `signal` when given. */
  static after(ms: number, clock: Clock = Date.now, signal?: AbortSignal): Deadline {
    return new Deadline(clock() + ms, clock, signal);
  }

  /** The same instant without the signal, for work other callers share. */
  withoutSignal(): Deadline {
    return this.signal === undefined ? this : new Deadline(this.at, this.clock);
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
    return at < this.at ? new Deadline(at, this.clock, this.signal) : this;
  }

  /**
   * `promise`, or a rejection with `onTimeout()` when the deadline passes first (remoting
   * `raceTimeout`), or with AbortError when the signal aborts first.
   */
  race<T>(promise: Promise<T>, onTimeout: () => Error): Promise<T> {
    return raceAbort(raceTimeout(promise, this.remaining(), onTimeout), this.signal);
  }
}
