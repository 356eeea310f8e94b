/**
 * Every file under examples/ runs to completion against an embedded cluster, as a reader would
 * run it: its own Node process, the package imported by name (resolve-hook.ts), the NameServer
 * address in NAMESRV_ADDR. An example that throws, exits non-zero or never exits fails here.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

/** build/ (this file runs as build/test/examples/examples.test.js). */
const BUILD = fileURLToPath(new URL('../../', import.meta.url));
const REGISTER = fileURLToPath(new URL('./register.js', import.meta.url));

/** Repository root. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The examples: every examples/**\/*.ts source, with the file it compiles to under build/ (listed
 * from the sources, so a stale build output of a deleted example is not run).
 */
export function examples(dir = join(ROOT, 'examples')): Array<{ source: string; compiled: string }> {
  const out: Array<{ source: string; compiled: string }> = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...examples(p));
    else if (name.endsWith('.ts')) {
      const source = relative(ROOT, p);
      out.push({ source, compiled: join(BUILD, source.replace(/\.ts$/, '.js')) });
    }
  }
  return out;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Runs one example; a hang guard (not a speed check) kills it after `limitMs`. */
function runExample(file: string, namesrvAddr: string, limitMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER, file], {
      env: { ...process.env, NAMESRV_ADDR: namesrvAddr },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: limitMs,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

describe('examples/ run against an embedded cluster', () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
  });
  after(async () => {
    await cluster.stop();
  });

  const all = examples();
  it('there are examples to run', () => {
    assert.ok(all.length >= 10, `${all.length} examples`);
  });
  for (const { source: name, compiled } of all) {
    it(`${name} exits 0 by itself`, async () => {
      const run = await runExample(compiled, cluster.namesrvAddr, CHILD_SAFETY_LIMIT_MS);
      assert.equal(run.signal, null, `${name} did not exit by itself:\n${run.output}`);
      assert.equal(run.code, 0, `${name} failed:\n${run.output}`);
    });
  }
});
