/** Flag parsing shared by every CLI command (all errors are InvalidArgumentError naming the flag). */
import { parseArgs } from 'node:util';
import { InvalidArgumentError } from '../errors.js';
import type { LatencyFaultStrategyName } from '../producer/options.js';
import { closest } from './suggest.js';

/** `30`, `30s`, `500ms`, `2m` → milliseconds (a bare number means seconds). */
export function parseDuration(flag: string, raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(raw);
  if (!m) throw new InvalidArgumentError(flag, `expected a duration like 30, 30s, 500ms or 2m, got "${raw}"`);
  const n = Number(m[1]);
  const ms = m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
  if (!(ms > 0)) throw new InvalidArgumentError(flag, 'must be positive');
  return ms;
}

export function parsePositiveInt(flag: string, raw: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new InvalidArgumentError(flag, `expected an integer in 1..${max}, got "${raw}"`);
  }
  return n;
}

/** `--namesrv`, else NAMESRV_ADDR (as Java's tools): required, checked as `parseNamesrv` checks it. */
export function namesrvFlag(raw: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const namesrv = raw ?? env['NAMESRV_ADDR'];
  if (!namesrv) throw new InvalidArgumentError('--namesrv', 'is required (or set NAMESRV_ADDR)');
  return parseNamesrv('--namesrv', namesrv);
}

/** `host:port` (several separated by `;`). */
export function parseNamesrv(flag: string, raw: string): string {
  if (!/^[^:;\s]+:\d{1,5}(;[^:;\s]+:\d{1,5})*$/.test(raw)) {
    throw new InvalidArgumentError(flag, `expected HOST:PORT[;HOST:PORT], got "${raw}"`);
  }
  return raw;
}

export function oneOf<T extends string>(flag: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new InvalidArgumentError(flag, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** The producer's latency fault strategies, in the order `demo --compare` runs them. */
export const STRATEGIES: readonly LatencyFaultStrategyName[] = Object.freeze([
  'adaptive',
  'java-4.9',
  'java-5',
]);

/** One flag a command declares: its kind, an optional default and an optional one-letter alias. */
export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly default?: string | boolean;
  readonly short?: string;
}
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** Flags every command takes besides its own (`main` acts on them; commands may read `verbose`). */
export const GLOBAL_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean' },
} as const satisfies FlagSpecs;

type ValueOf<S extends FlagSpec> = S['type'] extends 'boolean' ? boolean : string;
/** Parsed values: a flag with a default is always present, the others may be absent. */
export type FlagValues<T extends FlagSpecs> = {
  [K in keyof T]: T[K] extends { default: string | boolean } ? ValueOf<T[K]> : ValueOf<T[K]> | undefined;
};

/**
 * Parses `argv` against the command's flags plus GLOBAL_FLAGS. Unknown options (with the closest
 * declared one suggested), positional arguments, a missing value and a value given to a boolean
 * flag are refused. A negative number after a string flag is its value (`--timeout -5`), so the
 * flag's own rule judges it; node's strict mode would call it ambiguous instead.
 */
export function parseFlags<T extends FlagSpecs>(
  argv: readonly string[],
  flags: T,
): FlagValues<T & typeof GLOBAL_FLAGS> {
  const specs: FlagSpecs = { ...GLOBAL_FLAGS, ...flags };
  const { tokens } = parseArgs({
    args: [...argv],
    options: specs as Record<string, { type: 'string' | 'boolean'; short?: string }>,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.default;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      throw new InvalidArgumentError(
        `"${token.value}"`,
        'unexpected argument; this command takes only --options (a value with spaces needs quotes)',
      );
    }
    if (token.kind === 'option-terminator') continue;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
    if (!spec) {
      const guess = closest(token.name, Object.keys(specs));
      throw new InvalidArgumentError(
        token.rawName,
        `unknown option${guess === undefined ? '' : `; did you mean --${guess}?`}`,
      );
    }
    const flag = `--${token.name}`;
    if (spec.type === 'boolean') {
      if (token.value !== undefined)
        throw new InvalidArgumentError(flag, `takes no value, got "${token.value}"`);
      values[token.name] = true;
      continue;
    }
    const value = token.value;
    // "--topic --json" would take "--json" as the topic: an option-like value must be inline
    // (--topic=--json); negative numbers are values (no flag name starts with a digit)
    if (value === undefined || (!token.inlineValue && value.startsWith('-') && !/^-\d/.test(value))) {
      throw new InvalidArgumentError(flag, 'needs a value');
    }
    values[token.name] = value;
  }
  return values as FlagValues<T & typeof GLOBAL_FLAGS>;
}

/** The value of a mandatory flag; `InvalidArgumentError(flag, 'is required')` when absent or empty. */
export function requiredFlag(flag: string, raw: string | undefined): string {
  if (!raw) throw new InvalidArgumentError(flag, 'is required');
  return raw;
}

/** An optional integer flag in `min..max`, `fallback` when absent. */
export function intFlag(
  flag: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(flag, `must be an integer in ${min}..${max}, got ${raw}`);
  return n;
}

/** A TCP port flag (0 picks a free one), `fallback` when absent. */
export function parsePort(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(flag, `must be a port number 0..65535, got ${raw}`);
  return n;
}
