/**
 * The one AbortSignal mechanism of the package: every call that waits takes `{ signal }`
 * (`CallOptions`) and uses these helpers, so an aborted call always rejects with the same
 * AbortError (errors/abort.ts) and never leaves a listener on the caller's signal. It lives in
 * remoting/, the lowest layer that waits (a request's response, a connect), so that every layer
 * above can use it; `raceTimeout` (pool.ts) is its timer twin.
 *
 * Listeners: an application may pass one long-lived signal to thousands of calls, so the calls
 * waiting on one signal share one listener (`whenAborted`), and each call leaves when it
 * settles; `events.getEventListeners(signal, 'abort')` is back to what it was once the calls
 * are done (test/remoting/abort.test.ts).
 */
import { InvalidArgumentError } from '../errors.js';
import { rejectUnknownKeys } from '../options.js';
import { abortErrorOf, type AbortError } from '../errors/abort.js';

/** The per-call options every call that waits accepts. */
export interface CallOptions {
  /**
   * Gives up the call: it rejects with `AbortError` (`code` 'ABORT_ERR', `cause` the signal's
   * `reason`) and leaves nothing of it in flight in the client. Already aborted: it rejects at
   * once and sends nothing.
   */
  signal?: AbortSignal | undefined;
}

/** `value` as an optional AbortSignal; InvalidArgumentError naming `field` otherwise. */
export function checkSignal(field: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal))
    throw new InvalidArgumentError(
      field,
      `must be an AbortSignal (e.g. AbortController#signal), got ${describe(value)}`,
    );
  return value;
}

const CALL_OPTION_NAMES: readonly string[] = ['signal'];

/**
 * The signal of per-call options (undefined = none), checked: InvalidArgumentError for a bad
 * one, and for a key CallOptions does not have unless `checkKeys` is false (options that extend
 * CallOptions check their own keys).
 */
export function signalOf(options: CallOptions | undefined, checkKeys = true): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object')
    throw new InvalidArgumentError('options', `must be an object, got ${describe(options)}`);
  if (checkKeys) rejectUnknownKeys(options, CALL_OPTION_NAMES);
  return checkSignal('signal', options.signal);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return typeof value;
}

/** Throws the AbortError of `signal` when it has aborted already. */
export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted === true) throw abortErrorOf(signal, what);
}

/**
 * The callers waiting on each signal. One listener per signal, however many calls wait on it:
 * a signal shared by a thousand concurrent sends carries one listener, not a thousand (Node
 * warns past ten), and removing a caller is a Set delete.
 */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

function fanOut(this: AbortSignal): void {
  const callers = waiting.get(this);
  waiting.delete(this);
  if (callers !== undefined) for (const call of callers) call();
}

/**
 * Calls `onAbort(error)` once when `signal` aborts; the returned function removes it (call it
 * when the work settles). A signal aborted already calls `onAbort` at once.
 */
export function whenAborted(
  signal: AbortSignal,
  onAbort: (error: AbortError) => void,
  what?: string,
): () => void {
  if (signal.aborted) {
    onAbort(abortErrorOf(signal, what));
    return noop;
  }
  const call = (): void => onAbort(abortErrorOf(signal, what));
  let callers = waiting.get(signal);
  if (callers === undefined) {
    callers = new Set();
    waiting.set(signal, callers);
    signal.addEventListener('abort', fanOut, { once: true });
  }
  callers.add(call);
  return () => {
    const current = waiting.get(signal);
    if (current === undefined || !current.delete(call) || current.size > 0) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', fanOut);
  };
}

function noop(): void {}

/**
 * `promise`, or a rejection with the AbortError of `signal` when it aborts first; the listener
 * is removed when either happens. Without a signal, `promise` itself (no cost). What `promise`
 * stands for keeps running: callers that own state (a request entry, a permit) remove it
 * themselves through `whenAborted`; this is for waits that hold nothing.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  what?: string,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(noop);
    return Promise.reject(abortErrorOf(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const dispose = whenAborted(
      signal,
      (err) => {
        promise.catch(noop);
        reject(err);
      },
      what,
    );
    promise.then(
      (value) => {
        dispose();
        resolve(value);
      },
      (err: unknown) => {
        dispose();
        reject(err);
      },
    );
  });
}
