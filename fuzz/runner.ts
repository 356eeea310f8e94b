/**
 * Runs fuzz targets: case `i` of a run seeded `seed` is generated from `caseSeed(seed, i)`, so a
 * failure names one seed that replays it alone. Each case is bounded in time (a hang fails it),
 * uncaught exceptions and unhandled rejections during a case fail it, and the heap is sampled so
 * growth beyond `memoryLimitBytes` over the run fails it too.
 */
import { caseSeed, Random } from './random.js';
import { describeError, InvariantViolation, type AnyTarget } from './target.js';

export interface RunOptions {
  seed: number;
  /** Stop after this many cases. @default Infinity (then `durationMs` must be finite) */
  cases?: number;
  /** Stop after this long. @default Infinity */
  durationMs?: number;
  /** Heap growth over the run that counts as unbounded. @default 512 MiB */
  memoryLimitBytes?: number;
  /** Stop the target after this many failures. @default 3 */
  maxFailures?: number;
  log?: (line: string) => void;
}

export interface Failure {
  target: string;
  seed: number;
  caseIndex: number;
  caseSeed: number;
  input: unknown;
  error: string;
}

export interface RunResult {
  target: string;
  cases: number;
  elapsedMs: number;
  failures: Failure[];
}

const MEMORY_SAMPLE_EVERY = 100;

/** Runs one case of `target` with `input`, failing on a hang or an uncaught error meanwhile. */
export async function runCase<I, C>(
  target: { run(input: I, ctx: C): Promise<void>; caseTimeoutMs: number },
  input: I,
  ctx: C,
): Promise<void> {
  const stray: unknown[] = [];
  const onStray = (err: unknown): void => void stray.push(err);
  process.on('uncaughtException', onStray);
  process.on('unhandledRejection', onStray);
  let timer: NodeJS.Timeout | undefined;
  try {
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new InvariantViolation(`case did not finish within ${target.caseTimeoutMs} ms (hang)`)),
        target.caseTimeoutMs,
      );
    });
    await Promise.race([target.run(input, ctx), hang]);
    // Errors thrown from callbacks the case started surface on the next turns of the loop.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    clearTimeout(timer);
    process.removeListener('uncaughtException', onStray);
    process.removeListener('unhandledRejection', onStray);
  }
  if (stray.length > 0) {
    throw new InvariantViolation(`uncaught during the case: ${describeError(stray[0])}`, { cause: stray[0] });
  }
}

export async function runTarget(target: AnyTarget, options: RunOptions): Promise<RunResult> {
  const maxCases = options.cases ?? Infinity;
  const durationMs = options.durationMs ?? Infinity;
  const memoryLimit = options.memoryLimitBytes ?? 512 * 1024 * 1024;
  const maxFailures = options.maxFailures ?? 3;
  const log = options.log ?? (() => undefined);
  const failures: Failure[] = [];
  const started = Date.now();
  const heapAtStart = process.memoryUsage().heapUsed;
  let ctx = await target.setup();
  let i = 0;
  try {
    for (; i < maxCases && Date.now() - started < durationMs && failures.length < maxFailures; i++) {
      const s = caseSeed(options.seed, i);
      let input: unknown;
      try {
        input = target.generate(new Random(s), ctx);
        await runCase(target, input, ctx);
        if (i % MEMORY_SAMPLE_EVERY === MEMORY_SAMPLE_EVERY - 1) {
          const grown = process.memoryUsage().heapUsed - heapAtStart;
          if (grown > memoryLimit) {
            throw new InvariantViolation(
              `heap grew by ${Math.round(grown / 1048576)} MiB over ${i + 1} cases`,
            );
          }
        }
      } catch (err) {
        const failure: Failure = {
          target: target.name,
          seed: options.seed,
          caseIndex: i,
          caseSeed: s,
          input,
          error: describeError(err),
        };
        failures.push(failure);
        log(`FAIL ${target.name} seed=${options.seed} case=${i} caseSeed=${s}: ${failure.error}`);
        // The shared state may be what broke: start afresh.
        await target.teardown(ctx).catch(() => undefined);
        ctx = await target.setup();
      }
    }
  } finally {
    await target.teardown(ctx);
  }
  return { target: target.name, cases: i, elapsedMs: Date.now() - started, failures };
}

/** Replays a saved input (a fixture) once; throws what the case threw. */
export async function replay(target: AnyTarget, input: unknown): Promise<void> {
  const ctx: unknown = await target.setup();
  try {
    await runCase(target, input, ctx);
  } finally {
    await target.teardown(ctx);
  }
}
