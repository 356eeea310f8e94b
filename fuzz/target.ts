/**
 * What a fuzz target is: it generates a JSON-serializable input from a seeded Random (so a
 * failing input can be saved as a fixture and replayed without the generator), runs it against
 * the code under test and throws InvariantViolation when an invariant does not hold.
 */
import type { Random } from './random.js';

export interface FuzzTarget<I = unknown, C = unknown> {
  readonly name: string;
  /** One line for `--help` and the report. */
  readonly description: string;
  /** A case running longer than this is a hang. */
  readonly caseTimeoutMs: number;
  /** Starts what every case shares (servers, clients); called again after a failed case. */
  setup(): Promise<C>;
  generate(r: Random, ctx: C): I;
  run(input: I, ctx: C): Promise<void>;
  teardown(ctx: C): Promise<void>;
}

/** A broken invariant (as opposed to an error the code under test may legitimately throw). */
export class InvariantViolation extends Error {
  override readonly name = 'InvariantViolation';
}

export function violated(message: string, cause?: unknown): never {
  throw new InvariantViolation(message, cause === undefined ? undefined : { cause });
}

/** Human-readable class and message of anything thrown. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** A target with its context type erased, for lists of targets. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTarget = FuzzTarget<any, any>;
