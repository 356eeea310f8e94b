/**
 * Validation of caller input, shared by every options object (producer, consumer, broker, store,
 * NameServer, remoting) and by message fields. It sits beside `errors.ts`, below every layer, so
 * all of them can import it. Every check throws `InvalidArgumentError` whose `field` is the name
 * the caller wrote; unknown keys are rejected at runtime because JavaScript callers have no
 * types to catch `sendMsgTimeOut` for them.
 *
 * Typical validator:
 * ```ts
 * const NAMES = keyList<MyOptions>({ group: true, timeoutMs: true, logger: true });
 * export function validateMyOptions(input: Partial<MyOptions> = {}): MyOptions {
 *   const o = withDefaults(DEFAULT_MY_OPTIONS, input, NAMES); // unknown keys throw here
 *   checkString('group', o.group, { pattern: /^[a-z]+$/ });
 *   checkInt('timeoutMs', o.timeoutMs, 1);
 *   checkLogger('logger', o.logger);
 *   return o;
 * }
 * ```
 */
import { InvalidArgumentError } from './errors.js';
import type { Logger } from './observability/logger.js';

/** Java's `Integer.MAX_VALUE`: the upper bound of an option Java holds in an `int`. */
export const MAX_INT = 2 ** 31 - 1;

/**
 * Every key of `T` (optional ones included), checked complete by the compiler: a key missing
 * from `keys`, or one `T` does not have, is a compile error. Use it when the defaults object does
 * not list every option (required or default-less ones).
 */
export function keyList<T>(keys: Readonly<Record<keyof Required<T>, true>>): readonly string[] {
  return Object.freeze(Object.keys(keys));
}

/** A copy of `o` without the keys whose value is `undefined`, so spreading it keeps defaults. */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), so `tgas` is
 * one edit from `tags`. Case differences count as one edit each.
 */
export function editDistance(a: string, b: string): number {
  const n = b.length;
  let twoBack: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (twoBack[j - 2] as number) + 1);
      row.push(d);
    }
    twoBack = prev;
    prev = row;
  }
  return prev[n] as number;
}

/**
 * The known name closest to `name`, or undefined when none is close enough to be a likely typo
 * (at most a third of the longer name's length in edits, minimum 2, so `delayLevel` still finds
 * `delayTimeLevel`). A difference of case only always wins: `sendMsgTimeOut` → `sendMsgTimeout`.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    if (other === lower) return candidate;
    const d = editDistance(lower, other);
    const limit = Math.max(2, Math.floor(Math.max(name.length, candidate.length) / 3));
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Throws for the first own key of `input` that is not in `known`, naming it and the closest
 * known name. `prefix` is prepended to the reported field (`messages[2].`).
 */
export function rejectUnknownKeys(
  input: object,
  known: readonly string[],
  what = 'option',
  prefix = '',
): void {
  // for-in over own keys: Object.keys would allocate an array on every send (messages are checked too).
  for (const key in input) {
    if (!Object.prototype.hasOwnProperty.call(input, key) || known.includes(key)) continue;
    const hint = closestName(key, known);
    throw new InvalidArgumentError(
      prefix + key,
      `is not a known ${what}` + (hint === undefined ? '' : `; did you mean ${prefix + hint}?`),
    );
  }
}

/** Throws unless `value` is a non-null, non-array object. */
export function checkObject(field: string, value: unknown): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InvalidArgumentError(field, 'must be an object');
}

/**
 * `defaults` overlaid with the defined values of `input`, after rejecting `input`'s unknown keys
 * (`known` defaults to the keys of `defaults`). The values themselves are not checked.
 */
export function withDefaults<T extends object>(
  defaults: Readonly<Partial<T>>,
  input: unknown,
  known: readonly string[] = Object.keys(defaults),
): T {
  if (input === undefined) return { ...defaults } as T;
  checkObject('options', input);
  rejectUnknownKeys(input, known);
  return { ...defaults, ...stripUndefined(input) } as T;
}

/** An integer in `[min, max]` (safe-integer bounds by default). */
export function checkInt(
  field: string,
  value: unknown,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new InvalidArgumentError(field, `must be an integer ${range}, got ${String(value)}`);
  }
  return value;
}

/** A finite number > `min` (exclusive), for durations that need not be whole. */
export function checkPositive(field: string, value: unknown, min = 0): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= min)
    throw new InvalidArgumentError(field, `must be a number > ${min}, got ${String(value)}`);
  return value;
}

/** A finite number in `[0, 1]`: a fraction or share. */
export function checkFraction(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new InvalidArgumentError(field, `must be a number in [0, 1], got ${String(value)}`);
  return value;
}

export function checkBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidArgumentError(field, `must be a boolean, got ${typeof value}`);
  return value;
}

/** One of `allowed`. */
export function checkEnum<T extends string | number>(
  field: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (!allowed.includes(value as T)) {
    throw new InvalidArgumentError(
      field,
      `must be one of ${allowed.map((a) => String(a)).join(', ')}, got ${String(value)}`,
    );
  }
  return value as T;
}

export interface StringRules {
  /** Accept `''`. @default false */
  allowEmpty?: boolean;
  /** Longest accepted length in UTF-16 units. @default unlimited */
  maxLength?: number;
  /** Must match. @default none */
  pattern?: RegExp;
}

export function checkString(field: string, value: unknown, rules: StringRules = {}): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(field, 'must be a string');
  if (value.length === 0 && rules.allowEmpty !== true)
    throw new InvalidArgumentError(field, 'must be a non-empty string');
  if (rules.maxLength !== undefined && value.length > rules.maxLength)
    throw new InvalidArgumentError(field, `longer than ${rules.maxLength} characters`);
  if (rules.pattern !== undefined && !rules.pattern.test(value))
    throw new InvalidArgumentError(field, `must match ${rules.pattern.source}`);
  return value;
}

/** An object with the named methods (a Logger, a hook). */
export function checkMethods<T>(field: string, value: unknown, methods: readonly string[], what: string): T {
  if (
    value === null ||
    typeof value !== 'object' ||
    methods.some((m) => typeof (value as Record<string, unknown>)[m] !== 'function')
  ) {
    throw new InvalidArgumentError(field, `must implement ${what}`);
  }
  return value as T;
}

/** A Logger: `debug`, `info`, `warn` and `error` methods. */
export function checkLogger(field: string, value: unknown): Logger {
  return checkMethods<Logger>(field, value, ['debug', 'info', 'warn', 'error'], 'Logger');
}
