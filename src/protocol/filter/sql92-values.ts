/**
 * Values of the SQL92 evaluator and Java's conversions between them
 * (`ComparisonExpression.__compare` with string conversion on, as `SelectorParser` sets it).
 */

/** Java's boxed numbers, kept apart because conversions depend on the type (Integer.valueOf…). */
export type JavaNumber =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'long'; readonly value: bigint }
  | { readonly kind: 'double'; readonly value: number };

/** A value during evaluation: Java null, Boolean, String or a number. */
export type SqlValue = null | boolean | string | JavaNumber;

/** A Java runtime exception during evaluation (NumberFormatException, ClassCastException). */
export class Sql92EvaluationError extends Error {}

const INT_MIN = -(2n ** 31n);
export const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;
export const DOUBLE_MIN_VALUE = 5e-324;

export const isNumber = (v: SqlValue): v is JavaNumber => v !== null && typeof v === 'object';
export const int = (value: bigint): JavaNumber => ({ kind: 'int', value });
export const long = (value: bigint): JavaNumber => ({ kind: 'long', value });
export const double = (value: number): JavaNumber => ({ kind: 'double', value });

// ---------------------------------------------------------------------------------------------
// Java conversions

function javaIntegral(s: string, min: bigint, max: bigint): bigint {
  if (!/^[+-]?\d+$/.test(s)) throw new Sql92EvaluationError(`NumberFormatException: ${s}`);
  const v = BigInt(s);
  if (v < min || v > max) throw new Sql92EvaluationError(`NumberFormatException: ${s}`);
  return v;
}

/** Java `Double.valueOf(String)` for decimal text (hex floats are not supported here). */
export function javaDouble(s: string): number {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  const m = /^([+-]?)(NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?$/.exec(t);
  if (!m) throw new Sql92EvaluationError(`NumberFormatException: ${s}`);
  const body = m[2]!;
  const v = body === 'NaN' ? NaN : body === 'Infinity' ? Infinity : Number(body);
  return m[1] === '-' ? -v : v;
}

function toDouble(n: JavaNumber): number {
  return n.kind === 'double' ? n.value : Number(n.value);
}

/** Java `Double.compare`: -0.0 < 0.0, NaN above everything and equal to itself. */
export function compareDouble(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
  if (a === 0 && b === 0) return Object.is(a, -0) === Object.is(b, -0) ? 0 : Object.is(a, -0) ? -1 : 1;
  return 0;
}

function compareSame(a: SqlValue, b: SqlValue): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  const x = a as JavaNumber;
  const y = b as JavaNumber;
  if (x.kind === 'double' || y.kind === 'double') return compareDouble(toDouble(x), toDouble(y));
  return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
}

function classOf(v: SqlValue): 'boolean' | 'string' | 'int' | 'long' | 'double' {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return (v as JavaNumber).kind;
}

/** Java `ComparisonExpression.__compare` with string conversion on (the parser's default). */
export function javaCompare(lv: SqlValue, rv: SqlValue): number {
  const lc = classOf(lv);
  const rc = classOf(rv);
  if (lc === rc) return compareSame(lv, rv);
  switch (lc) {
    case 'boolean':
      // Java casts the Boolean to String here and fails.
      if (rc === 'string') throw new Sql92EvaluationError('ClassCastException');
      return -1;
    case 'int':
    case 'long':
      if (rc === 'string') return compareSame(lv, parseAs(lc, rv as string));
      if (rc === 'boolean') return -1;
      return compareSame(lv, rv);
    case 'double':
      if (rc === 'string') return compareSame(lv, double(javaDouble(rv as string)));
      if (rc === 'boolean') return -1;
      return compareSame(lv, rv);
    case 'string':
      if (rc === 'boolean') return compareSame((lv as string).toLowerCase() === 'true', rv);
      return compareSame(parseAs(rc as JavaNumber['kind'], lv as string), rv);
  }
}

function parseAs(kind: 'int' | 'long' | 'double', s: string): JavaNumber {
  if (kind === 'int') return int(javaIntegral(s, INT_MIN, INT_MAX));
  if (kind === 'long') return long(javaIntegral(s, LONG_MIN, LONG_MAX));
  return double(javaDouble(s));
}

/** Java `Object.equals` between two values (same class and value). */
export function javaEquals(a: SqlValue, b: SqlValue): boolean {
  if (classOf(a) !== classOf(b)) return false;
  if (isNumber(a) && isNumber(b)) {
    if (a.kind === 'double' && b.kind === 'double')
      return Object.is(a.value, b.value) || (a.value === b.value && a.value !== 0);
    return a.value === b.value;
  }
  return a === b;
}
