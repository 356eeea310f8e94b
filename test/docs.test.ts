import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

/** Repository root: this file runs as build/test/docs.test.js. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Section numbers with a heading in a docs file: `## 3.` gives 3, `### 3.5 …` gives 3.5. */
function sections(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  return new Set([...text.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1] as string));
}

describe('documentation cited by source comments', () => {
  it('every cited section of docs/protocol.md and docs/architecture.md exists', () => {
    const known = { 'protocol.md': sections('protocol.md'), 'architecture.md': sections('architecture.md') };
    const missing: string[] = [];
    for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'test'))]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(protocol\.md|architecture\.md) ((?:§[\d.]+(?:[–,-] ?)?)+)/g)) {
        const doc = m[1] as keyof typeof known;
        for (const s of (m[2] as string).matchAll(/§(\d+(?:\.\d+)?)/g)) {
          if (!known[doc].has(s[1] as string)) missing.push(`${file}: ${doc} §${s[1]}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });
});
