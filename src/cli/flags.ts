/** Flag parsing shared by every CLI command (all errors are InvalidArgumentError). */
import { parseArgs } from 'node:util';
import { InvalidArgumentError } from '../errors.js';

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

export type FlagKind = 'string' | 'boolean';
export type FlagValues<T extends Readonly<Record<string, FlagKind>>> = {
  [K in keyof T]?: T[K] extends 'boolean' ? boolean : string;
};

/** `node:util` parseArgs in strict mode (unknown flags throw), each flag given by its kind. */
export function parseFlags<T extends Readonly<Record<string, FlagKind>>>(
  argv: string[],
  flags: T,
): FlagValues<T> {
  const options: Record<string, { type: FlagKind }> = {};
  for (const [name, type] of Object.entries(flags)) options[name] = { type };
  return parseArgs({ args: argv, options, strict: true }).values as FlagValues<T>;
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
  if (!Number.isInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(flag, `must be an integer in ${min}..${max}, got ${raw}`);
  return n;
}

/** A TCP port flag (0 picks a free one), `fallback` when absent. */
export function parsePort(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(flag, `must be a port number 0..65535, got ${raw}`);
  return n;
}
