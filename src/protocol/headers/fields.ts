/**
 * Declarative custom-header fields. A header is a table of fields (name → wire key, type,
 * required); from it come `encode` (typed object → extFields, every value a string, absent
 * fields omitted: Java `makeCustomHeaderToNet`) and `decode` (extFields → typed object,
 * ProtocolError on a missing required field or a malformed number: Java `decodeCommandCustomHeader`).
 */
import { ProtocolError } from '../../errors.js';

type Kind = 'string' | 'int' | 'long' | 'bool';
type KindType<K extends Kind> = K extends 'string' ? string : K extends 'bool' ? boolean : number;

export interface FieldSpec<K extends Kind = Kind, R extends boolean = boolean> {
  readonly kind: K;
  readonly required: R;
  /** Wire key when it differs from the field name (V2 send header `a`…`n`, `MSG_REGION`). */
  readonly key?: string;
  /** Written by `encode` when the field is absent (Java primitive fields are always sent). */
  readonly defaultValue?: KindType<K>;
}

export type HeaderSpec = Readonly<Record<string, FieldSpec>>;

type RequiredKeys<S extends HeaderSpec> = {
  [K in keyof S]: S[K] extends FieldSpec<Kind, true> ? K : never;
}[keyof S];
type OptionalKeys<S extends HeaderSpec> = Exclude<keyof S, RequiredKeys<S>>;
type TypeOf<F> = F extends FieldSpec<infer K, boolean> ? KindType<K> : never;

/** The typed header a spec describes: required fields mandatory, the others optional. */
export type HeaderOf<S extends HeaderSpec> = { [K in RequiredKeys<S>]: TypeOf<S[K]> } & {
  [K in OptionalKeys<S>]?: TypeOf<S[K]> | undefined;
};

function field<K extends Kind>(kind: K) {
  return {
    required: (key?: string): FieldSpec<K, true> => ({ kind, required: true, ...(key ? { key } : {}) }),
    optional: (key?: string): FieldSpec<K, false> => ({ kind, required: false, ...(key ? { key } : {}) }),
    /** Optional in TS but always on the wire (Java primitives), `value` when absent. */
    withDefault: (value: KindType<K>, key?: string): FieldSpec<K, false> => ({
      kind,
      required: false,
      defaultValue: value,
      ...(key ? { key } : {}),
    }),
  };
}

export const F = {
  string: field('string'),
  int: field('int'),
  long: field('long'),
  bool: field('bool'),
};

export interface HeaderCodec<S extends HeaderSpec> {
  readonly spec: S;
  encode(h: HeaderOf<S>): Record<string, string>;
  decode(ext: Readonly<Record<string, string>> | undefined): HeaderOf<S>;
}

const INT_RE = /^[+-]?\d{1,20}$/;

/** `-?[0-9]{1,16}`, checked without allocating (Number() alone accepts '', ' 1', '0x1', '1e3'). */
function isPlainDecimal(raw: string): boolean {
  const n = raw.length;
  let i = n > 0 && raw.charCodeAt(0) === 45 ? 1 : 0;
  if (n - i < 1 || n - i > 16) return false;
  for (; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function parseNumber(raw: string, kind: 'int' | 'long', name: string, what: string): number {
  // Fast path for the plain decimal every Java peer writes (hot on the send path).
  if (isPlainDecimal(raw)) {
    const fast = Number(raw);
    if (kind === 'long' ? Number.isSafeInteger(fast) : fast >= -2147483648 && fast <= 2147483647) return fast;
  }
  const s = raw.trim();
  if (!INT_RE.test(s))
    throw new ProtocolError(`${what}: field ${name} is not a number: ${JSON.stringify(raw)}`);
  const v = Number(s);
  if (kind === 'int' ? v < -2147483648 || v > 2147483647 : !Number.isSafeInteger(v)) {
    throw new ProtocolError(`${what}: field ${name} out of range: ${raw}`);
  }
  return v;
}

interface Entry {
  name: string;
  key: string;
  kind: Kind;
  required: boolean;
  defaultValue: unknown;
}

/** A property access for any string: names and keys reach the generated code only as JSON literals. */
const prop = (name: string): string => `[${JSON.stringify(name)}]`;

/*
 * encode/decode are compiled once per declaration into straight-line code (one named property
 * access per field) instead of looping over the field table: the send path runs them for every
 * message, and the generic loop's keyed accesses cost about as much as the rest of the send loop
 * together. The generated code is built only from the static field table.
 */

function compileEncode(entries: readonly Entry[]): (h: object) => Record<string, string> {
  const body = ['const o = {};', 'let v;'];
  entries.forEach((e, i) => {
    body.push(`v = h${prop(e.name)};`);
    if (e.defaultValue !== undefined) body.push(`if (v === undefined || v === null) v = defaults[${i}];`);
    const wire = e.kind === 'string' ? 'v' : e.kind === 'bool' ? "(v ? 'true' : 'false')" : 'String(v)';
    body.push(`if (v !== undefined && v !== null) o${prop(e.key)} = ${wire};`);
  });
  body.push('return o;');
  const factory = new Function('defaults', `return function encode(h) {\n${body.join('\n')}\n};`);
  return factory(entries.map((e) => e.defaultValue)) as (h: object) => Record<string, string>;
}

function compileDecode(
  entries: readonly Entry[],
  what: string,
): (ext: Readonly<Record<string, string>> | undefined) => Record<string, unknown> {
  const body = ['if (ext === undefined || ext === null) ext = {};', 'const o = {};', 'let raw;'];
  entries.forEach((e, i) => {
    // Java Boolean.parseBoolean: anything but "true" (any case) is false.
    const read =
      e.kind === 'string' ? 'raw' : e.kind === 'bool' ? "raw.toLowerCase() === 'true'" : `num(raw, ${i})`;
    body.push(`raw = ext${prop(e.key)};`);
    body.push(
      `if (raw === undefined || raw === null) { ${e.required ? `throw missing(${i});` : ''} } else o${prop(e.name)} = ${read};`,
    );
  });
  body.push('return o;');
  const missing = (i: number): ProtocolError =>
    new ProtocolError(`${what}: missing required field ${entries[i]!.key}`);
  const num = (raw: string, i: number): number => {
    const e = entries[i]!;
    return parseNumber(raw, e.kind as 'int' | 'long', e.key, what);
  };
  const factory = new Function('missing', 'num', `return function decode(ext) {\n${body.join('\n')}\n};`);
  return factory(missing, num) as (
    ext: Readonly<Record<string, string>> | undefined,
  ) => Record<string, unknown>;
}

/** Builds a codec; `what` names the header in error messages. */
export function defineHeader<S extends HeaderSpec>(what: string, spec: S): HeaderCodec<S> {
  const entries: Entry[] = Object.entries(spec).map(([name, f]) => ({
    name,
    key: f.key ?? name,
    kind: f.kind,
    required: f.required,
    defaultValue: f.defaultValue,
  }));
  return {
    spec,
    encode: compileEncode(entries),
    decode: compileDecode(entries, what) as HeaderCodec<S>['decode'],
  };
}

/** One declaration per request code: the code, its Java name and its request header codec. */
export interface RequestDeclaration<S extends HeaderSpec> extends HeaderCodec<S> {
  readonly code: number;
  readonly name: string;
}

export function declareRequest<S extends HeaderSpec>(
  code: number,
  name: string,
  spec: S,
): RequestDeclaration<S> {
  return { code, name, ...defineHeader(name, spec) };
}

type Relaxed<S extends HeaderSpec, K extends keyof S> = {
  readonly [P in keyof S]: P extends K
    ? S[P] extends FieldSpec<infer Kd, boolean>
      ? FieldSpec<Kd, false>
      : never
    : S[P];
};

/**
 * The same request with `names` optional when decoding: for a receiver (our broker) that accepts
 * requests from clients that leave out fields Java always sends. Encoding is unchanged.
 */
export function withOptionalFields<S extends HeaderSpec, K extends keyof S & string>(
  decl: RequestDeclaration<S>,
  ...names: K[]
): RequestDeclaration<Relaxed<S, K>> {
  const spec: Record<string, FieldSpec> = { ...decl.spec };
  for (const name of names) spec[name] = { ...decl.spec[name]!, required: false };
  return declareRequest(decl.code, decl.name, spec as Relaxed<S, K>);
}

/**
 * Decodes a request header as a Java server does: an empty value counts as absent, and a missing
 * required field is `the custom field <key> is null` (Java `decodeCommandCustomHeader`).
 * ProtocolError for missing or malformed fields.
 */
export function decodeRequestHeader<S extends HeaderSpec>(
  codec: HeaderCodec<S>,
  ext: Readonly<Record<string, string>> | undefined,
): HeaderOf<S> {
  const present: Record<string, string> = {};
  for (const [k, v] of Object.entries(ext ?? {})) if (v !== '') present[k] = v;
  for (const [name, f] of Object.entries(codec.spec)) {
    const key = f.key ?? name;
    if (f.required && present[key] === undefined)
      throw new ProtocolError(`the custom field <${key}> is null`);
  }
  return codec.decode(present);
}

/** Reads a JSON body that must be an object; ProtocolError otherwise. */
export function expectObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ProtocolError(`${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

export function expectArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new ProtocolError(`${what} is not a JSON array`);
  return value;
}

export function jsonString(value: unknown, what: string, fallback?: string): string {
  if (typeof value === 'string') return value;
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  throw new ProtocolError(`${what} is not a string`);
}

export function jsonNumber(value: unknown, what: string, fallback?: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && INT_RE.test(value)) return Number(value);
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  throw new ProtocolError(`${what} is not a number`);
}

export function jsonBool(value: unknown, what: string, fallback?: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  throw new ProtocolError(`${what} is not a boolean`);
}

/** Body bytes of a JSON document we write (standard JSON, UTF-8). */
export function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
