/**
 * The caller gave up: the `signal` of a per-call `{ signal }` option aborted. Shaped like the
 * platform's own AbortError (`fetch`, `events.once`, `timers/promises`: `name` 'AbortError',
 * `code` 'ABORT_ERR'), so code written for those catches this one too, and still a
 * RocketMQError, so `instanceof RocketMQError` holds for every failure of this package.
 * Never retriable: the caller asked for the call to stop.
 */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';

export class AbortError extends RocketMQError {
  constructor(message = 'the operation was aborted', options: Omit<RocketMQErrorOptions, 'retriable'> = {}) {
    super('ABORT_ERR', message, { ...options, retriable: false });
    // new.target.name would give the same text; said explicitly because callers compare it.
    this.name = 'AbortError';
  }
}

/** The AbortError of `signal`: its `reason` (an AbortError of the platform by default) as `cause`. */
export function abortErrorOf(signal: AbortSignal, what?: string): AbortError {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? reason.message : reason === undefined ? undefined : String(reason);
  const head = what === undefined ? 'the operation was aborted' : `${what} was aborted`;
  return new AbortError(
    why === undefined || why === 'This operation was aborted' ? head : `${head}: ${why}`,
    {
      cause: reason,
    },
  );
}
