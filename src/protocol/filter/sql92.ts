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
import { FilterExpressionError } from '../../errors.js';
import { Lexer, type Kind, type Token } from './sql92-lexer.js';
import {
  DOUBLE_MIN_VALUE,
  INT_MAX,
  LONG_MAX,
  Sql92EvaluationError,
  compareDouble,
  double,
  int,
  isNumber,
  javaCompare,
  javaDouble,
  javaEquals,
  long,
  type JavaNumber,
  type SqlValue,
} from './sql92-values.js';

export { Sql92EvaluationError, type JavaNumber, type SqlValue };

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
