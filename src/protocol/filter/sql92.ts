/**
 * RocketMQ's SQL92 message selector (`MessageSelector.bySql`), parsed and evaluated as the 4.9.x
 * broker does (`filter/…/parser/SelectorParser.jj` and `filter/…/expression/*`):
 *
 * - Grammar: `OR` < `AND` < `=`, `<>`, `IS [NOT] NULL` < `>`, `>=`, `<`, `<=`, `[NOT] BETWEEN x AND y`,
 *   `[NOT] IN ('a', …)` < unary `+`, `-`, `NOT`. So `NOT a = 1` means `(NOT a) = 1`; write
 *   `NOT (a = 1)`. Keywords are case-insensitive; strings are `'…'` with `''` for a quote;
 *   numbers are Java int/long (`10`, `10L`) or double (`1.5`, `.5`, `1E3`); `--` line and
 *   `/* *\/` block comments. There is no `!=` and no `LIKE`. Like Java's generated parser, tokens
 *   after a complete expression are ignored (`a = 1 b` is `a = 1`).
 * - Values: property values are strings; a comparison with a number converts the string to the
 *   number's Java type (`Integer.valueOf`, `Long.valueOf`, `Double.valueOf`) and a comparison with
 *   TRUE/FALSE uses `Boolean.valueOf`; `<`-style comparisons of two strings compare them as doubles.
 * - Three-valued logic: a missing property is null; a comparison with null is null (not false), so
 *   `a <> 'x'` and `NOT (a = 'x')` do not match a message without `a`. AND/OR follow SQL (FALSE AND
 *   null = FALSE, TRUE OR null = TRUE). A message matches only when the result is TRUE; a
 *   conversion that fails (`a > 5` with a = `abc`) makes the message not match, as the broker's
 *   filter catches the exception.
 * - Compile-time checks (each a {@link FilterExpressionError}): `<`-style operands must be numbers
 *   or properties, `= NULL` is illegal (use IS NULL), BETWEEN bounds must be ordered, IN needs a
 *   property on the left, and the whole expression must be boolean.
 */
import { InvalidArgumentError } from '../../errors.js';

/** A bad SQL92 expression; the broker answers SUBSCRIPTION_PARSE_FAILED (23). */
export class FilterExpressionError extends InvalidArgumentError {
  readonly expression: string;
  constructor(expression: string, message: string) {
    super('expression', `invalid SQL92 filter ${JSON.stringify(expression)}: ${message}`);
    this.expression = expression;
  }
}

/** Java's boxed numbers, kept apart because conversions depend on the type (Integer.valueOf…). */
export type JavaNumber =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'long'; readonly value: bigint }
  | { readonly kind: 'double'; readonly value: number };

/** A value during evaluation: Java null, Boolean, String or a number. */
export type SqlValue = null | boolean | string | JavaNumber;

/** How the evaluator reads a property: the message property's value, or undefined when absent. */
export type PropertyLookup = (name: string) => string | undefined;

type CmpOp = '>' | '>=' | '<' | '<=';
type Node =
  | { readonly t: 'const'; readonly v: SqlValue; readonly bool: boolean }
  | { readonly t: 'prop'; readonly name: string }
  | { readonly t: 'neg'; readonly e: Node }
  | { readonly t: 'not'; readonly e: Node }
  | { readonly t: 'cast'; readonly e: Node }
  | { readonly t: 'and' | 'or'; readonly l: Node; readonly r: Node }
  | { readonly t: 'eq'; readonly l: Node; readonly r: Node }
  | { readonly t: 'cmp'; readonly op: CmpOp; readonly l: Node; readonly r: Node }
  | { readonly t: 'in'; readonly e: Node; readonly list: ReadonlySet<string>; readonly not: boolean };

/** A compiled selector. */
export interface Sql92Expression {
  readonly expression: string;
  /** Java's result: TRUE, FALSE or null (unknown). Throws {@link Sql92EvaluationError}. */
  evaluate(get: PropertyLookup): SqlValue;
  /** The broker's decision: true only for TRUE; null, non-boolean or a failed conversion → false. */
  matches(get: PropertyLookup): boolean;
}

/** A Java runtime exception during evaluation (NumberFormatException, ClassCastException). */
export class Sql92EvaluationError extends Error {}

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const DOUBLE_MIN_VALUE = 5e-324;

const isNumber = (v: SqlValue): v is JavaNumber => v !== null && typeof v === 'object';
const int = (value: bigint): JavaNumber => ({ kind: 'int', value });
const long = (value: bigint): JavaNumber => ({ kind: 'long', value });
const double = (value: number): JavaNumber => ({ kind: 'double', value });

// ---------------------------------------------------------------------------------------------
// Java conversions

function javaIntegral(s: string, min: bigint, max: bigint): bigint {
  if (!/^[+-]?\d+$/.test(s)) throw new Sql92EvaluationError(`NumberFormatException: ${s}`);
  const v = BigInt(s);
  if (v < min || v > max) throw new Sql92EvaluationError(`NumberFormatException: ${s}`);
  return v;
}

/** Java `Double.valueOf(String)` for decimal text (hex floats are not supported here). */
function javaDouble(s: string): number {
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
function compareDouble(a: number, b: number): number {
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
function javaCompare(lv: SqlValue, rv: SqlValue): number {
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
function javaEquals(a: SqlValue, b: SqlValue): boolean {
  if (classOf(a) !== classOf(b)) return false;
  if (isNumber(a) && isNumber(b)) {
    if (a.kind === 'double' && b.kind === 'double')
      return Object.is(a.value, b.value) || (a.value === b.value && a.value !== 0);
    return a.value === b.value;
  }
  return a === b;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

function asBooleanResult(v: SqlValue): boolean | null {
  if (v === null || typeof v === 'boolean') return v;
  throw new Sql92EvaluationError('ClassCastException: not a Boolean');
}

function evaluate(node: Node, get: PropertyLookup): SqlValue {
  switch (node.t) {
    case 'const':
      return node.v;
    case 'prop':
      return get(node.name) ?? null;
    case 'neg': {
      const v = evaluate(node.e, get);
      if (!isNumber(v)) return null;
      if (v.kind === 'double') return double(-v.value);
      return v.kind === 'int' ? int(BigInt.asIntN(32, -v.value)) : long(BigInt.asIntN(64, -v.value));
    }
    case 'not': {
      const v = asBooleanResult(evaluate(node.e, get));
      return v === null ? null : !v;
    }
    case 'cast': {
      const v = evaluate(node.e, get);
      if (v === null) return null;
      return typeof v === 'boolean' ? v : false;
    }
    case 'and': {
      const l = asBooleanResult(evaluate(node.l, get));
      if (l === false) return false;
      const r = asBooleanResult(evaluate(node.r, get));
      if (r === false) return false;
      return l === null || r === null ? null : true;
    }
    case 'or': {
      const l = asBooleanResult(evaluate(node.l, get));
      if (l === true) return true;
      const r = asBooleanResult(evaluate(node.r, get));
      if (r === true) return true;
      return l === null || r === null ? null : false;
    }
    case 'eq': {
      const l = evaluate(node.l, get);
      const r = evaluate(node.r, get);
      if ((l === null) !== (r === null)) return l === null ? null : false;
      if (l === null || javaEquals(l, r)) return true;
      return javaCompare(l, r) === 0;
    }
    case 'cmp': {
      const l = evaluate(node.l, get);
      if (l === null) return null;
      const r = evaluate(node.r, get);
      if (r === null) return null;
      let c: number;
      if (typeof l === 'string' && typeof r === 'string') {
        // Java: strings are never ordered as text; both must read as doubles.
        c = compareDouble(javaDouble(l), javaDouble(r));
      } else c = javaCompare(l, r);
      return node.op === '>' ? c > 0 : node.op === '>=' ? c >= 0 : node.op === '<' ? c < 0 : c <= 0;
    }
    case 'in': {
      const v = evaluate(node.e, get);
      if (typeof v !== 'string') return null;
      return node.list.has(v) !== node.not;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Lexer (lazy, like JavaCC's token manager: only tokens the parser looks at are read)

type Kind =
  | 'NOT'
  | 'AND'
  | 'OR'
  | 'BETWEEN'
  | 'IN'
  | 'TRUE'
  | 'FALSE'
  | 'NULL'
  | 'IS'
  | 'DEC'
  | 'FLOAT'
  | 'STR'
  | 'ID'
  | '='
  | '<>'
  | '>'
  | '>='
  | '<'
  | '<='
  | '('
  | ')'
  | ','
  | '+'
  | '-'
  | 'EOF';

interface Token {
  readonly kind: Kind;
  readonly text: string;
  readonly pos: number;
}

const KEYWORDS = new Set(['NOT', 'AND', 'OR', 'BETWEEN', 'IN', 'TRUE', 'FALSE', 'NULL', 'IS']);
const OPERATORS = ['<>', '>=', '<=', '=', '>', '<', '(', ')', ',', '+', '-'] as const;
const DEC_RE = /0|[1-9][0-9]*[lL]?/y;
const FLOAT_RE = /[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+/y;
const ID_RE = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const STR_RE = /'(?:''|[^'])*'/y;
const LINE_COMMENT_RE = /--[^\n\r]*(?:\r\n|\n|\r)/y;
const BLOCK_COMMENT_RE = /\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\//y;

function matchAt(re: RegExp, text: string, pos: number): string | undefined {
  re.lastIndex = pos;
  return re.exec(text)?.[0];
}

class Lexer {
  private pos = 0;
  private readonly buffered: Token[] = [];
  constructor(
    private readonly text: string,
    private readonly fail: (msg: string) => never,
  ) {}

  peek(k = 0): Token {
    while (this.buffered.length <= k) this.buffered.push(this.read());
    return this.buffered[k]!;
  }

  next(): Token {
    const t = this.peek();
    this.buffered.shift();
    return t;
  }

  private read(): Token {
    const s = this.text;
    for (;;) {
      while (this.pos < s.length && ' \t\n\r\f'.includes(s[this.pos]!)) this.pos++;
      const comment = matchAt(LINE_COMMENT_RE, s, this.pos) ?? matchAt(BLOCK_COMMENT_RE, s, this.pos);
      if (comment === undefined) break;
      this.pos += comment.length;
    }
    const pos = this.pos;
    if (pos >= s.length) return { kind: 'EOF', text: '', pos };
    const take = (kind: Kind, text: string): Token => {
      this.pos += text.length;
      return { kind, text, pos };
    };
    const c = s[pos]!;
    if (/[0-9.]/.test(c)) {
      const dec = matchAt(DEC_RE, s, pos) ?? '';
      const flt = matchAt(FLOAT_RE, s, pos) ?? '';
      if (flt.length > dec.length) return take('FLOAT', flt);
      if (dec.length > 0) return take('DEC', dec);
    }
    const id = matchAt(ID_RE, s, pos);
    if (id !== undefined) {
      const upper = id.toUpperCase();
      return take(KEYWORDS.has(upper) ? (upper as Kind) : 'ID', id);
    }
    if (c === "'") {
      const str = matchAt(STR_RE, s, pos);
      if (str === undefined) this.fail(`unterminated string at ${pos}`);
      return take('STR', str);
    }
    for (const op of OPERATORS) if (s.startsWith(op, pos)) return take(op, op);
    return this.fail(`unexpected character ${JSON.stringify(c)} at ${pos}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Parser (the grammar of SelectorParser.jj, with the checks of ComparisonExpression's factories)

function isBooleanNode(n: Node): boolean {
  return n.t === 'const' ? n.bool : n.t !== 'prop' && n.t !== 'neg';
}

class Parser {
  private readonly lexer: Lexer;
  constructor(private readonly expression: string) {
    this.lexer = new Lexer(expression, (msg) => this.fail(msg));
  }

  fail(msg: string): never {
    throw new FilterExpressionError(this.expression, msg);
  }

  parse(): Node {
    // Like the generated parser, stop after the expression; the rest is not read.
    return this.asBoolean(this.or());
  }

  private expect(kind: Kind): Token {
    const t = this.lexer.next();
    if (t.kind !== kind)
      this.fail(`expected ${kind} at ${t.pos}, found ${t.kind === 'EOF' ? 'end' : t.text}`);
    return t;
  }

  private asBoolean(n: Node): Node {
    if (isBooleanNode(n)) return n;
    if (n.t === 'prop') return { t: 'cast', e: n };
    return this.fail('expression will not result in a boolean value');
  }

  private or(): Node {
    let left = this.and();
    while (this.lexer.peek().kind === 'OR') {
      this.lexer.next();
      const right = this.and();
      left = { t: 'or', l: this.asBoolean(left), r: this.asBoolean(right) };
    }
    return left;
  }

  private and(): Node {
    let left = this.equality();
    while (this.lexer.peek().kind === 'AND') {
      this.lexer.next();
      const right = this.equality();
      left = { t: 'and', l: this.asBoolean(left), r: this.asBoolean(right) };
    }
    return left;
  }

  private equality(): Node {
    let left = this.comparison();
    for (;;) {
      const k = this.lexer.peek().kind;
      if (k === '=' || k === '<>') {
        this.lexer.next();
        const eq = this.createEqual(left, this.comparison());
        left = k === '=' ? eq : { t: 'not', e: eq };
      } else if (k === 'IS') {
        this.lexer.next();
        const negated = this.lexer.peek().kind === 'NOT';
        if (negated) this.lexer.next();
        this.expect('NULL');
        const isNull: Node = { t: 'eq', l: left, r: NULL };
        left = negated ? { t: 'not', e: isNull } : isNull;
      } else return left;
    }
  }

  private comparison(): Node {
    let left = this.unary();
    for (;;) {
      const k = this.lexer.peek().kind;
      if (k === '>' || k === '>=' || k === '<' || k === '<=') {
        this.lexer.next();
        left = this.createCmp(k, left, this.unary());
      } else if (k === 'BETWEEN') {
        this.lexer.next();
        const [low, high] = this.bounds();
        left = this.createBetween(left, low, high);
      } else if (k === 'IN') {
        this.lexer.next();
        left = this.createIn(left, this.inList(), false);
      } else if (k === 'NOT' && this.lexer.peek(1).kind === 'BETWEEN') {
        this.lexer.next();
        this.lexer.next();
        const [low, high] = this.bounds();
        left = { t: 'or', l: this.createCmp('<', left, low), r: this.createCmp('>', left, high) };
      } else if (k === 'NOT' && this.lexer.peek(1).kind === 'IN') {
        this.lexer.next();
        this.lexer.next();
        left = this.createIn(left, this.inList(), true);
      } else return left;
    }
  }

  private bounds(): [Node, Node] {
    const low = this.unary();
    this.expect('AND');
    return [low, this.unary()];
  }

  private inList(): Set<string> {
    this.expect('(');
    const list = new Set<string>([this.stringLiteral()]);
    while (this.lexer.peek().kind === ',') {
      this.lexer.next();
      list.add(this.stringLiteral());
    }
    this.expect(')');
    return list;
  }

  private unary(): Node {
    const k = this.lexer.peek().kind;
    if (k === '+') {
      this.lexer.next();
      return this.unary();
    }
    if (k === '-') {
      this.lexer.next();
      return { t: 'neg', e: this.unary() };
    }
    if (k === 'NOT') {
      this.lexer.next();
      return { t: 'not', e: this.asBoolean(this.unary()) };
    }
    return this.primary();
  }

  private primary(): Node {
    const t = this.lexer.peek();
    switch (t.kind) {
      case 'STR':
        return { t: 'const', v: this.stringLiteral(), bool: false };
      case 'DEC':
        this.lexer.next();
        return { t: 'const', v: this.decimal(t.text), bool: false };
      case 'FLOAT':
        this.lexer.next();
        return { t: 'const', v: this.float(t.text), bool: false };
      case 'TRUE':
      case 'FALSE':
        this.lexer.next();
        return t.kind === 'TRUE' ? TRUE : FALSE;
      case 'NULL':
        this.lexer.next();
        return NULL;
      case 'ID':
        this.lexer.next();
        return { t: 'prop', name: t.text };
      case '(': {
        this.lexer.next();
        const inner = this.or();
        this.expect(')');
        return inner;
      }
      default:
        return this.fail(`unexpected ${t.kind === 'EOF' ? 'end' : JSON.stringify(t.text)} at ${t.pos}`);
    }
  }

  private stringLiteral(): string {
    return this.expect('STR').text.slice(1, -1).replaceAll("''", "'");
  }

  /** Java `ConstantExpression.createFromDecimal`: long range, Integer when it fits. */
  private decimal(text: string): JavaNumber {
    const digits = /[lL]$/.test(text) ? text.slice(0, -1) : text;
    const v = BigInt(digits);
    if (v > LONG_MAX) this.fail(`number ${text} is out of range`);
    return v <= INT_MAX ? int(v) : long(v);
  }

  /** Java `ConstantExpression.createFloat`: finite and not below Double.MIN_VALUE (so 0.0 is refused). */
  private float(text: string): JavaNumber {
    const v = Number(text);
    if (v > Number.MAX_VALUE) this.fail(`${text} is greater than ${Number.MAX_VALUE}`);
    if (v < DOUBLE_MIN_VALUE) this.fail(`${text} is less than 4.9E-324`);
    return double(v);
  }

  private checkLessThanOperand(n: Node): void {
    if ((n.t === 'const' && !isNumber(n.v)) || isBooleanNode(n)) this.fail('value cannot be compared');
  }

  private createCmp(op: CmpOp, l: Node, r: Node): Node {
    this.checkLessThanOperand(l);
    this.checkLessThanOperand(r);
    return { t: 'cmp', op, l, r };
  }

  private createEqual(l: Node, r: Node): Node {
    for (const n of [l, r]) if (n.t === 'const' && n.v === null) this.fail('NULL cannot be compared with =');
    if (l.t === 'const' && r.t === 'const' && l.bool && !r.bool)
      this.fail('TRUE/FALSE compared with a non-boolean');
    return { t: 'eq', l, r };
  }

  private createBetween(value: Node, low: Node, high: Node): Node {
    if (low.t === 'const' && high.t === 'const') {
      if (low.v === null || high.v === null) this.fail('BETWEEN bounds can not be null');
      let order: number;
      try {
        order = javaCompare(high.v, low.v);
      } catch {
        return this.fail('BETWEEN bounds cannot be compared');
      }
      if (order < 0) this.fail('BETWEEN left bound must be less than or equal to the right bound');
    }
    return { t: 'and', l: this.createCmp('>=', value, low), r: this.createCmp('<=', value, high) };
  }

  private createIn(left: Node, list: Set<string>, not: boolean): Node {
    if (left.t !== 'prop') this.fail('IN expects a property on its left');
    return { t: 'in', e: left, list, not };
  }
}

const TRUE: Node = { t: 'const', v: true, bool: true };
const FALSE: Node = { t: 'const', v: false, bool: true };
const NULL: Node = { t: 'const', v: null, bool: true };

/** Compiles a SQL92 selector. Throws {@link FilterExpressionError} on a bad expression. */
export function compileSql92(expression: string): Sql92Expression {
  const root = new Parser(expression).parse();
  return {
    expression,
    evaluate: (get) => evaluate(root, get),
    matches(get) {
      try {
        return evaluate(root, get) === true;
      } catch (err) {
        if (err instanceof Sql92EvaluationError) return false;
        throw err;
      }
    },
  };
}
