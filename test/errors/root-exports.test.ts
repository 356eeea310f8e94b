/**
 * Every error class an application can meet is importable from the package root. The source is
 * walked for `class X extends Y` (transitively down from RocketMQError), so a class declared in
 * a module, exported or not, is found; only the embedded servers (`server/`), the CLI (`cli/`)
 * and the protocol's internal codec errors (which extend plain Error and are caught inside the
 * package) are out of scope.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import * as root from '../../src/index.js';
import { RocketMQError } from '../../src/errors.js';

/** Repository root: this file runs as build/test/errors/root-exports.test.js. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = join(ROOT, 'src');
const OUT_OF_SCOPE = ['server/', 'cli/'];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Class name → [base name, file] for every class declared in the in-scope sources. */
function declaredClasses(): Map<string, { base: string; file: string }> {
  const out = new Map<string, { base: string; file: string }>();
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file).split('\\').join('/');
    if (OUT_OF_SCOPE.some((p) => rel.startsWith(p))) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/\bclass (\w+) extends (\w+)/g))
      out.set(m[1] as string, { base: m[2] as string, file: rel });
  }
  return out;
}

function extendsRocketMQError(name: string, classes: Map<string, { base: string }>): boolean {
  for (let n: string | undefined = name, hops = 0; n !== undefined && hops < 20; hops++) {
    if (n === 'RocketMQError') return true;
    n = classes.get(n)?.base;
  }
  return false;
}

describe('public errors', () => {
  it('every class extending RocketMQError outside server/ and cli/ is exported from the package root', () => {
    const classes = declaredClasses();
    const errors = [...classes.keys()].filter((n) => extendsRocketMQError(n, classes));
    // The walk itself must see the families, or an empty list would pass.
    assert.ok(errors.length >= 30, `only ${errors.length} error classes found`);
    const exported = root as Record<string, unknown>;
    const missing = errors.filter((n) => {
      const value = exported[n];
      return (
        value !== RocketMQError &&
        (typeof value !== 'function' || !(value.prototype instanceof RocketMQError))
      );
    });
    assert.deepEqual(
      missing.map((n) => `${n} (${classes.get(n)?.file})`),
      [],
      'export these from src/index.ts',
    );
  });

  it('declares every public error class in src/errors/, the one errors module', () => {
    const classes = declaredClasses();
    const elsewhere = [...classes]
      .filter(([n, c]) => extendsRocketMQError(n, classes) && !c.file.startsWith('errors/'))
      .map(([n, c]) => `${n} (${c.file})`);
    assert.deepEqual(elsewhere, []);
  });

  it('has one class per error name: no duplicate declarations', () => {
    const seen = new Map<string, string[]>();
    for (const file of sources(SRC)) {
      const rel = relative(SRC, file);
      for (const m of readFileSync(file, 'utf8').matchAll(/\bclass (\w+Error) extends/g))
        seen.set(m[1] as string, [...(seen.get(m[1] as string) ?? []), rel]);
    }
    const dupes = [...seen].filter(([, files]) => files.length > 1).map(([n, f]) => `${n}: ${f.join(', ')}`);
    assert.deepEqual(dupes, []);
  });

  it('the merged topic and broker errors keep their fields and retriable flags per caller', () => {
    const admin = new root.TopicNotFoundError('T');
    assert.equal(admin.topic, 'T');
    assert.equal(admin.code, 'ERR_TOPIC_NOT_FOUND');
    assert.equal(admin.retriable, false);
    assert.match(admin.message, /topic T does not exist/);
    const lookup = new root.TopicNotFoundError('T', 'the NameServer does not know the topic', {
      retriable: true,
    });
    assert.equal(lookup.retriable, true);
    assert.match(lookup.message, /no route for topic T: the NameServer does not know the topic/);
    const broker = new root.BrokerNotFoundError('b1', 'has no master address in the route', {
      retriable: true,
    });
    assert.equal(broker.broker, 'b1');
    assert.equal(broker.retriable, true);
    assert.match(new root.BrokerNotFoundError('b1').message, /no broker or cluster named b1 is registered/);
  });
});
