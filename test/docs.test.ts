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

/** Members of `export interface <name>` in `file` with their TSDoc comment ('' when none). */
function interfaceMembers(file: string, name: string): Array<{ member: string; doc: string }> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`export interface ${name} `);
  assert.ok(start >= 0, `${name} in ${file}`);
  const open = text.indexOf('{\n', start);
  const close = text.indexOf('\n}\n', open);
  const body = text.slice(open + 1, close);
  // Top-level members sit at two spaces; their comment, if any, ends on the line before.
  return [
    ...body.matchAll(/(?:(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)\n)?^ {2}(?:readonly )?([A-Za-z]\w*)\??:/gm),
  ].map((m) => ({ member: m[2] as string, doc: m[1] ?? '' }));
}

describe('option interfaces document their defaults', () => {
  const interfaces: Array<[file: string, name: string, required: string[]]> = [
    ['src/consumer/push/options.ts', 'PushConsumerOptions', ['consumerGroup']],
    ['src/producer/options.ts', 'ProducerOptions', []],
    ['src/producer/transaction-producer.ts', 'TransactionProducerOptions', ['checkListener']],
    ['src/client/connection-options.ts', 'ClientConnectionOptions', []],
  ];
  for (const [file, name, required] of interfaces) {
    it(`every optional member of ${name} has a TSDoc comment with @default`, () => {
      const members = interfaceMembers(file, name);
      assert.ok(members.length > 0);
      const undocumented = members
        .filter((m) => !required.includes(m.member) && !/@default\b/.test(m.doc))
        .map((m) => m.member);
      assert.deepEqual(undocumented, []);
    });
  }
});
