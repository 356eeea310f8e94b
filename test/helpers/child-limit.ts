/**
 * The one time limit tests put on a child process (a CLI run, a fixture, npm pack): a safety net
 * that ends a child that hangs, so the suite fails instead of stalling. It is never a speed
 * check: a loaded 2-core machine running the whole suite must stay far below it, so it is
 * minutes, not seconds (a 20 s limit once killed `cluster --help` there). Tests wait for what a
 * child prints or for its exit, never for a duration.
 */
export const CHILD_SAFETY_LIMIT_MS = 600_000;

/** What to add to a failure message when a child was ended by the safety limit. */
export function killedBySafetyLimit(signal: NodeJS.Signals | null, killedByUs: boolean): string {
  return killedByUs
    ? `\n[killed with ${signal ?? 'a signal'} by the test's ${CHILD_SAFETY_LIMIT_MS} ms safety limit: the child hung]`
    : '';
}
