import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { intFlag, parseFlags } from '../../src/cli/flags.js';
import { closest, editDistance } from '../../src/cli/suggest.js';

const FLAGS = {
  timeout: { type: 'string' },
  topic: { type: 'string' },
  size: { type: 'string', default: '128' },
  json: { type: 'boolean' },
} as const;

/** Asserts `fn` throws an InvalidArgumentError naming `field` with a message matching `pattern`. */
function refused(fn: () => unknown, field: string, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InvalidArgumentError, String(err));
    assert.equal(err.field, field);
    assert.match(err.message, pattern);
    return true;
  });
}

test('flags parse into values, defaults fill the absent ones, the global flags are always known', () => {
  assert.deepEqual(parseFlags(['--topic', 'T', '--json', '--verbose'], FLAGS), {
    help: undefined,
    verbose: true,
    timeout: undefined,
    topic: 'T',
    size: '128',
    json: true,
  });
  assert.equal(parseFlags(['-h'], FLAGS).help, true);
  assert.equal(parseFlags(['--topic=--odd'], FLAGS).topic, '--odd', 'an inline value may start with a dash');
});

test('a negative number after a string flag is its value, left to the flag rule to judge', () => {
  const values = parseFlags(['--timeout', '-5', '--size', '-0.5'], FLAGS);
  assert.equal(values.timeout, '-5');
  assert.equal(values.size, '-0.5');
  refused(() => intFlag('--timeout', values.timeout, 3000, 1, 600_000), '--timeout', /got -5/);
  assert.equal(intFlag('--offset', '-5', 0, -10, 10), -5, 'a rule allowing negatives accepts it');
});

test('unknown options, positionals, missing values and values for switches are refused naming the token', () => {
  refused(() => parseFlags(['--tpoic', 'T'], FLAGS), '--tpoic', /unknown option; did you mean --topic\?/);
  refused(() => parseFlags(['--constructor'], FLAGS), '--constructor', /unknown option$/);
  refused(() => parseFlags(['-x'], FLAGS), '-x', /unknown option/);
  refused(() => parseFlags(['--topic', 'T', 'extra'], FLAGS), '"extra"', /unexpected argument/);
  refused(() => parseFlags(['--', 'extra'], FLAGS), '"extra"', /unexpected argument/);
  refused(() => parseFlags(['--timeout'], FLAGS), '--timeout', /needs a value/);
  refused(() => parseFlags(['--topic', '--json'], FLAGS), '--topic', /needs a value/);
  refused(() => parseFlags(['--json=false'], FLAGS), '--json', /takes no value/);
});

test('suggestions: transpositions count once, far-off names get none, a unique prefix is enough', () => {
  assert.equal(editDistance('sned', 'send'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(closest('sned', ['send', 'route', 'demo']), 'send');
  assert.equal(closest('clusterinfo', ['cluster', 'cluster-info']), 'cluster-info');
  assert.equal(closest('frobnicate', ['send', 'route', 'demo']), undefined);
  assert.equal(closest('concur', ['count', 'concurrency']), 'concurrency');
  assert.equal(closest('co', ['count', 'concurrency']), undefined);
});
