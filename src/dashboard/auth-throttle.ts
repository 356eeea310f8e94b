/**
 * Throttling of failed basic-auth attempts, per client address: after `maxFailures` wrong
 * credentials in a row, the address is locked out for `lockoutMs`, doubling with every further
 * failure (up to MAX_LOCKOUT_MS). While locked out every request of that address gets 429 with
 * `Retry-After`, right credentials included, so guessing costs time whatever the guesses are. A
 * success clears the address. A request without credentials (a browser's first try, before it
 * prompts) is not a failure. The table is bounded: the oldest entries go first.
 */

/** The longest lockout, however many failures. */
export const MAX_LOCKOUT_MS = 15 * 60_000;
/** Addresses remembered; past it the least recently failed are forgotten. */
const MAX_TRACKED = 10_000;

interface Failures {
  count: number;
  lockedUntil: number;
}

export class AuthThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly maxFailures: number,
    private readonly lockoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds `address` must wait (for `Retry-After`), or 0 when it may try. */
  retryAfter(address: string): number {
    const f = this.failures.get(address);
    const wait = f ? f.lockedUntil - this.now() : 0;
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  failed(address: string): void {
    const f = this.failures.get(address) ?? { count: 0, lockedUntil: 0 };
    f.count++;
    if (f.count >= this.maxFailures)
      f.lockedUntil =
        this.now() + Math.min(MAX_LOCKOUT_MS, this.lockoutMs * 2 ** (f.count - this.maxFailures));
    // re-inserted last: the Map's order is "least recently failed first"
    this.failures.delete(address);
    this.failures.set(address, f);
    if (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
  }

  succeeded(address: string): void {
    this.failures.delete(address);
  }

  /** Addresses with failures on record (tests). */
  get tracked(): number {
    return this.failures.size;
  }
}
