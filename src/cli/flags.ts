/** Flag value parsing shared by the demo and bench commands (all errors are InvalidArgumentError). */
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
