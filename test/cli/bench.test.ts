import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('bench --json on the embedded cluster prints exactly one JSON line with the figures', async () => {
  const { stdout, stderr } = await run(
    process.execPath,
    [MAIN, 'bench', '--duration', '1500ms', '--concurrency', '4', '--size', '64', '--batch', '2', '--json'],
    { timeout: CHILD_SAFETY_LIMIT_MS },
  );
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, 'only the JSON line on stdout');
  const result = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(result).sort(), [
    'concurrency',
    'errors',
    'mbPerSec',
    'msgsPerSec',
    'p50Ms',
    'p99Ms',
    'sent',
    'size',
  ]);
  assert.equal(result.concurrency, 4);
  assert.equal(result.size, 64);
  assert.equal(result.errors, 0);
  assert.ok(result.sent > 0 && result.sent % 2 === 0, `batches of 2: sent ${result.sent}`);
  assert.ok(result.p99Ms >= result.p50Ms && result.p50Ms > 0);
  assert.match(stderr, /msgs\/s/, 'progress goes to stderr');
});
