/**
 * Found by the chaos run: a consumer process restarted while the NameServer was down exited at
 * once with code 0. A started push consumer had no ref'd handle of its own (timers unref'd; only
 * its connections held the process), so with nothing connected the process just ended.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/cli/chaos/processes.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

const CHILD = fileURLToPath(new URL('./fixtures/keep-alive-child.js', import.meta.url));

test('a push consumer started while its NameServer is down keeps the process alive until shutdown()', async () => {
  const deadNamesrv = `127.0.0.1:${await freePort()}`;
  const child = spawn(process.execPath, [CHILD, deadNamesrv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), CHILD_SAFETY_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(killer);
  assert.equal(out, 'started\nstill running\nshut down\n', `stderr: ${err}`);
  assert.equal(code, 0, 'and the process ends by itself once the consumer is shut down');
});
