/**
 * A short deterministic run of every fuzz target (fixed seed, a few hundred cases in all; the
 * long run is `npm run fuzz`), and the replay of every saved failing input under
 * test/fixtures/fuzz/ (each one a bug that was found and fixed).
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { replay, runTarget } from '../../fuzz/runner.js';
import { TARGETS } from '../../fuzz/targets/index.js';

const SEED = 20261201;
/** Cases per target: pure codecs are fast; socket targets cost ~20 ms a case. */
const CASES: Record<string, number> = { broker: 40, namesrv: 30, acl: 150, clients: 10 };
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/fuzz/', import.meta.url));

describe('fuzz targets, short deterministic run', () => {
  for (const target of TARGETS) {
    it(`${target.name}: ${CASES[target.name] ?? 2000} seeded cases break no invariant`, async () => {
      const result = await runTarget(target, {
        seed: SEED,
        cases: CASES[target.name] ?? 2000,
        maxFailures: 1,
      });
      assert.deepEqual(
        result.failures,
        [],
        `replay with: npm run fuzz -- --seed ${SEED} --target ${target.name}`,
      );
      assert.equal(result.cases, CASES[target.name] ?? 2000);
    });
  }
});

describe('fuzz regression fixtures', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
  it('there are fixtures and each names a known target', () => {
    assert.ok(files.length > 0);
    for (const f of files) {
      const fixture = JSON.parse(readFileSync(FIXTURES + f, 'utf8')) as { target: string };
      assert.ok(
        TARGETS.some((t) => t.name === fixture.target),
        f,
      );
    }
  });
  for (const f of files) {
    const fixture = JSON.parse(readFileSync(FIXTURES + f, 'utf8')) as {
      target: string;
      /** What was wrong, written when the bug is fixed; a freshly saved failure has only `error`. */
      bug?: string;
      error?: string;
      input: unknown;
    };
    it(`${f}: ${fixture.bug ?? fixture.error}`, async () => {
      const target = TARGETS.find((t) => t.name === fixture.target);
      assert.ok(target);
      await replay(target, fixture.input);
    });
  }
});
