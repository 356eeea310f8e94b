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

function parseNumber(raw: string, kind: 'int' | 'long', name: string, what: string): number {
  // Fast path for the canonical decimal every Java peer writes (hot on the send path).
  const fast = Number(raw);
  if (Number.isSafeInteger(fast) && String(fast) === raw) {
    if (kind === 'long' || (fast >= -2147483648 && fast <= 2147483647)) return fast;
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

function toWire(kind: Kind, value: unknown): string {
  if (kind === 'string') return value as string;
  if (kind === 'bool') return value ? 'true' : 'false';
  return String(value);
}

/** Builds a codec; `what` names the header in error messages. */
export function defineHeader<S extends HeaderSpec>(what: string, spec: S): HeaderCodec<S> {
  // One object shape for every field keeps the encode/decode loops monomorphic (send hot path).
  const entries = Object.entries(spec).map(([name, f]) => ({
    name,
    key: f.key ?? name,
    kind: f.kind,
    required: f.required,
    defaultValue: f.defaultValue,
  }));
  return {
    spec,
    encode(h) {
      const src = h as Record<string, unknown>;
      const out: Record<string, string> = {};
      for (const e of entries) {
        let v = src[e.name];
        if (v === undefined || v === null) v = e.defaultValue;
        if (v === undefined || v === null) continue;
        out[e.key] = toWire(e.kind, v);
      }
      return out;
    },
    decode(ext) {
      const out: Record<string, unknown> = {};
      for (const e of entries) {
        const raw = ext?.[e.key];
        if (raw === undefined || raw === null) {
          if (e.required) throw new ProtocolError(`${what}: missing required field ${e.key}`);
          continue;
        }
        switch (e.kind) {
          case 'string':
            out[e.name] = raw;
            break;
          case 'bool':
            // Java Boolean.parseBoolean: anything but "true" (any case) is false.
            out[e.name] = raw.toLowerCase() === 'true';
            break;
          default:
            out[e.name] = parseNumber(raw, e.kind, e.key, what);
        }
      }
      return out as HeaderOf<S>;
    },
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
