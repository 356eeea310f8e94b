import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError, FilterExpressionError } from '../../../src/errors.js';
import { compileSql92, Sql92EvaluationError, type SqlValue } from '../../../src/protocol/filter/sql92.js';

type Expected = true | false | null | 'throws' | 'parse-error';

/**
 * Expression, message properties, and what the 4.9.7 jar's `SqlFilter.compile(expr).evaluate(ctx)`
 * returned for them on this machine (`'throws'`: evaluation threw, which the broker treats as no
 * match; `'parse-error'`: compile threw MQFilterException).
 */
const ROWS: ReadonlyArray<readonly [string, Record<string, string>, Expected]> = [
  ['a = 1', { a: '1' }, true],
  ['a = 1', { a: '2' }, false],
  ['a = 1', {}, null],
  ['a = 1', { a: 'abc' }, 'throws'],
  ['a = 1', { a: '1.0' }, 'throws'],
  ['a = 1.0', { a: '1' }, true],
  ["a = 'x'", { a: 'x' }, true],
  ["a = 'x'", { a: 'X' }, false],
  ["a = 'x'", {}, null],
  ["a <> 'x'", { a: 'y' }, true],
  ["a <> 'x'", { a: 'x' }, false],
  ["a <> 'x'", {}, null],
  ['a <> 1', { a: 'abc' }, 'throws'],
  ['a > 5', { a: '7' }, true],
  ['a > 5', { a: '5' }, false],
  ['a >= 5', { a: '5' }, true],
  ['a < 5', { a: '-3' }, true],
  ['a <= 5', { a: '6' }, false],
  ['a > 5', {}, null],
  ['a > 5', { a: 'abc' }, 'throws'],
  ['a > 5', { a: '5.5' }, 'throws'],
  ['a > 5.0', { a: '5.5' }, true],
  ['a > 5L', { a: '7' }, true],
  ['a > 2147483648', { a: '3000000000' }, true],
  ['a > 5', { a: '3000000000' }, 'throws'],
  ['a > -1', { a: '0' }, true],
  ['a < -2.5', { a: '-3' }, true],
  ["a > 'x'", { a: 'y' }, 'parse-error'],
  ['a > TRUE', { a: '1' }, 'parse-error'],
  ['a > b', { a: '10', b: '9' }, true],
  ['a > b', { a: 'x', b: '9' }, 'throws'],
  ['a > b', { a: '10' }, null],
  ['a = b', { a: '1', b: '1.0' }, false],
  ['a = b', { a: 'x', b: 'x' }, true],
  ['a BETWEEN 1 AND 3', { a: '2' }, true],
  ['a BETWEEN 1 AND 3', { a: '3' }, true],
  ['a BETWEEN 1 AND 3', { a: '4' }, false],
  ['a BETWEEN 1 AND 3', {}, null],
  ['a BETWEEN 3 AND 1', { a: '2' }, 'parse-error'],
  ['a NOT BETWEEN 1 AND 3', { a: '4' }, true],
  ['a NOT BETWEEN 1 AND 3', { a: '2' }, false],
  ['a NOT BETWEEN 1 AND 3', {}, null],
  ['a BETWEEN 0.5 AND 1', { a: '0.75' }, 'throws'],
  ["a BETWEEN 'a' AND 'z'", { a: 'm' }, 'parse-error'],
  ["a IN ('x', 'y')", { a: 'y' }, true],
  ["a IN ('x', 'y')", { a: 'z' }, false],
  ["a IN ('x', 'y')", {}, null],
  ["a NOT IN ('x', 'y')", { a: 'z' }, true],
  ["a NOT IN ('x', 'y')", { a: 'x' }, false],
  ["a NOT IN ('x', 'y')", {}, null],
  ["a IN ('1')", { a: '1' }, true],
  ['a IN (1)', { a: '1' }, 'parse-error'],
  ["'x' IN ('x')", {}, 'parse-error'],
  ['a IS NULL', {}, true],
  ['a IS NULL', { a: '1' }, false],
  ['a IS NOT NULL', { a: '1' }, true],
  ['a IS NOT NULL', {}, false],
  ['a = NULL', {}, 'parse-error'],
  ['5 IS NULL', {}, false],
  ['a = 1 AND b = 2', { a: '1', b: '2' }, true],
  ['a = 1 AND b = 2', { a: '1' }, null],
  ['a = 1 AND b = 2', { a: '2' }, false],
  ['a = 1 OR b = 2', { b: '2' }, true],
  ['a = 1 OR b = 2', { a: '3' }, null],
  ['a = 1 OR b = 2', { a: '3', b: '3' }, false],
  ['a = 1 OR b = 2 AND c = 3', { a: '1' }, true],
  ['a = 1 OR b = 2 AND c = 3', { b: '2' }, null],
  ['(a = 1 OR b = 2) AND c = 3', { a: '1' }, null],
  ['NOT (a = 1)', { a: '2' }, true],
  ['NOT (a = 1)', {}, null],
  ['NOT a = 1', { a: '1' }, false],
  ['NOT a BETWEEN 1 AND 2', { a: '1' }, 'parse-error'],
  ["NOT a IN ('x')", { a: 'x' }, 'parse-error'],
  ["not (a = 1) and B = 'y'", { a: '2', B: 'y' }, true],
  ['TRUE', {}, true],
  ['FALSE', {}, false],
  ['NULL', {}, null],
  ['a', { a: 'true' }, false],
  ['a', {}, null],
  ['1', {}, 'parse-error'],
  ["'x'", {}, 'parse-error'],
  ['TRUE = 1', {}, 'parse-error'],
  ['1 = TRUE', {}, false],
  ['a = TRUE', { a: 'true' }, true],
  ['a = TRUE', { a: 'TRUE' }, true],
  ['a = FALSE', { a: 'yes' }, true],
  ["TAGS = 'TagA'", { TAGS: 'TagA' }, true],
  ["TAGS IN ('TagA', 'TagB') AND price > 10.5", { TAGS: 'TagB', price: '11' }, true],
  ['a != 1', { a: '1' }, 'parse-error'],
  ['a = 1 xyz', { a: '1' }, true],
  ['a = 05', { a: '5' }, false],
  ['a = 1 #', { a: '1' }, 'parse-error'],
  ['a = 1 -- comment\n AND b = 2', { a: '1', b: '2' }, true],
  ['a /* c */ = 1', { a: '1' }, true],
  ['a = 1 /* unterminated', { a: '1' }, 'parse-error'],
  ["a = 'it''s'", { a: "it's" }, true],
  ["a = 'x", { a: 'x' }, 'parse-error'],
  ['-a > 1', { a: '5' }, null],
  ['a > --1', { a: '0' }, false],
  ['a > 0.0', { a: '1' }, 'parse-error'],
  ['a > 1E400', { a: '1' }, 'parse-error'],
  ['a > .5', { a: '1' }, true],
  ['a > 5E-1', { a: '1' }, true],
  ['a > 9223372036854775808', { a: '1' }, 'parse-error'],
  ['a > 9223372036854775807', { a: '1' }, false],
  ['a = 2147483648', { a: '2147483648' }, true],
  ['a > b', { a: 'NaN', b: '1' }, true],
  ['a > 1', { a: ' 2' }, 'throws'],
  ['a > 1.0', { a: ' 2' }, true],
  ['a >', { a: '1' }, 'parse-error'],
  ['a BETWEEN 1', { a: '1' }, 'parse-error'],
  ['a IN ()', { a: '1' }, 'parse-error'],
  ['(a = 1', { a: '1' }, 'parse-error'],
  ['', {}, 'parse-error'],
  ['a IS b', { a: '1' }, 'parse-error'],
];

function lookup(props: Record<string, string>): (name: string) => string | undefined {
  return (name) => (Object.hasOwn(props, name) ? props[name] : undefined);
}

function outcome(expr: string, props: Record<string, string>): Expected | SqlValue {
  let compiled;
  try {
    compiled = compileSql92(expr);
  } catch (err) {
    assert.ok(err instanceof FilterExpressionError, `${expr}: ${String(err)}`);
    return 'parse-error';
  }
  try {
    return compiled.evaluate(lookup(props));
  } catch (err) {
    assert.ok(err instanceof Sql92EvaluationError, `${expr}: ${String(err)}`);
    return 'throws';
  }
}

describe('SQL92 filter: evaluation table checked against the Java 4.9.7 filter', () => {
  for (const [expr, props, expected] of ROWS) {
    it(`${JSON.stringify(expr)} with ${JSON.stringify(props)} → ${String(expected)}`, () => {
      assert.equal(outcome(expr, props), expected);
      if (expected !== 'parse-error') {
        // The broker delivers only on TRUE; null, FALSE and a failed conversion filter the message out.
        assert.equal(compileSql92(expr).matches(lookup(props)), expected === true);
      }
    });
  }
});

describe('SQL92 filter: errors', () => {
  it('reports a bad expression as an InvalidArgumentError naming the expression', () => {
    assert.throws(
      () => compileSql92('a > '),
      (e: unknown) =>
        e instanceof FilterExpressionError &&
        e instanceof InvalidArgumentError &&
        e.expression === 'a > ' &&
        e.field === 'expression',
    );
  });

  it('keeps the expression text on the compiled selector', () => {
    assert.equal(compileSql92("TAGS = 'a'").expression, "TAGS = 'a'");
  });
});
