import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

/** Repository root: this file runs as build/test/docs.test.js. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Source files (.ts, .mjs) under `dir`, recursively. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts') || name.endsWith('.mjs')) out.push(p);
  }
  return out;
}

/** Section numbers with a heading in a docs file: `## 3.` gives 3, `### 3.5 …` gives 3.5. */
function sections(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  return new Set([...text.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1] as string));
}

/** The trees whose comments cite docs/: the library, its tests, benchmarks, interop tests, fuzzers. */
const CITING_TREES = ['src', 'test', 'bench', 'interop-test', 'fuzz', 'scripts'];

/**
 * Every docs citation in `text`: `docs/producer.md §3.2`, `protocol.md §6.2, §7`, `docs/screenshots/`.
 * A file name ending in .md without `docs/` counts when it stands alone (not in another path or a URL).
 */
export function docCitations(text: string): Array<{ path: string; sections: string[] }> {
  const out: Array<{ path: string; sections: string[] }> = [];
  const cite =
    /(?<![\w/.-])(?:docs\/([\w./-]*[\w/])|([a-z][\w-]*\.md))((?:,? ?(?:and )?§[\d.]*\d(?:[–-]§?[\d.]*\d)?)*)/g;
  for (const m of text.matchAll(cite)) {
    const path = m[1] ?? m[2]!;
    if (m[1] === undefined && path === 'README.md') continue;
    const sections = [...(m[3] ?? '').matchAll(/(\d+(?:\.\d+)*)/g)].map((s) => s[1]!);
    out.push({ path, sections });
  }
  return out;
}

describe('documentation cited by source comments', () => {
  it('reads docs/ paths, bare guide names and § ranges out of a comment', () => {
    assert.deepEqual(
      docCitations(
        'see docs/consumers.md §1.4, §2 and protocol.md §4.3–§4.4; docs/screenshots/ ' +
          'interop/README.md http://rocketmq.apache.org/docs/faq/ and README.md',
      ),
      [
        { path: 'consumers.md', sections: ['1.4', '2'] },
        { path: 'protocol.md', sections: ['4.3', '4.4'] },
        { path: 'screenshots/', sections: [] },
      ],
    );
  });

  it('every docs/ file and § section cited in src/, test/, bench/, interop-test/, fuzz/ and scripts/ exists', () => {
    const known = new Map<string, Set<string>>();
    const missing: string[] = [];
    for (const tree of CITING_TREES) {
      for (const file of sources(join(ROOT, tree))) {
        const where = relative(ROOT, file);
        for (const { path, sections: cited } of docCitations(readFileSync(file, 'utf8'))) {
          if (!existsSync(join(ROOT, 'docs', path))) {
            missing.push(`${where}: docs/${path} does not exist`);
            continue;
          }
          if (cited.length === 0) continue;
          if (!known.has(path)) known.set(path, sections(path));
          for (const s of cited)
            if (!known.get(path)!.has(s)) missing.push(`${where}: docs/${path} has no §${s}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });
});

/** The marker that exempts the next fenced block from being an examples/ file (a signature sketch). */
const FRAGMENT_MARKER = '<!-- fragment -->';
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'cjs', 'tsx']);

/** Fenced TypeScript/JavaScript blocks of a Markdown text, with their line and whether marked a fragment. */
export function codeBlocks(markdown: string): Array<{ line: number; code: string; fragment: boolean }> {
  const lines = markdown.split('\n');
  const out: Array<{ line: number; code: string; fragment: boolean }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    // A block ends at a bare fence; a fence with a language inside a block means a stray fence.
    const close = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (close < 0 || !/^```\s*$/.test(lines[close]!))
      throw new Error(`line ${i + 1}: the block opened here is not closed by a bare fence`);
    if (CODE_LANGUAGES.has(open[1]!)) {
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      out.push({
        line: i + 1,
        code: lines.slice(i + 1, close).join('\n') + '\n',
        fragment: before >= 0 && lines[before]!.trim() === FRAGMENT_MARKER,
      });
    }
    i = close;
  }
  return out;
}

/** Every file under examples/ by its content. */
function exampleFiles(dir = join(ROOT, 'examples')): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sources(dir)) out.set(readFileSync(file, 'utf8'), relative(ROOT, file));
  return out;
}

describe('code blocks in README.md and docs/*.md are examples/ files', () => {
  it('finds fenced blocks, their language and the fragment marker', () => {
    const md = 'x\n```ts\na();\n```\n\n<!-- fragment -->\n\n```js\nb();\n```\n```sh\nnpm test\n```\n';
    assert.deepEqual(codeBlocks(md), [
      { line: 2, code: 'a();\n', fragment: false },
      { line: 8, code: 'b();\n', fragment: true },
    ]);
    assert.throws(
      () => codeBlocks('```\nstray\n\n```ts\na();\n```\n'),
      /line 1: .* not closed by a bare fence/,
    );
    assert.throws(() => codeBlocks('```ts\na();\n'), /line 1/);
  });

  it('every TypeScript/JavaScript block equals a file under examples/ or is marked a fragment', () => {
    const examples = exampleFiles();
    const docs = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((n) => n.endsWith('.md'))
        .map((n) => `docs/${n}`),
    ];
    const stray: string[] = [];
    let shown = 0;
    let fragments = 0;
    for (const doc of docs) {
      for (const block of codeBlocks(readFileSync(join(ROOT, doc), 'utf8'))) {
        if (block.fragment) fragments++;
        else if (examples.has(block.code)) shown++;
        else stray.push(`${doc}:${block.line} is neither an examples/ file nor marked ${FRAGMENT_MARKER}`);
      }
    }
    assert.deepEqual(stray, []);
    assert.ok(shown >= 10, `${shown} examples shown`);
    assert.ok(fragments <= 3, `${fragments} fragments: at most a few signature sketches`);
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
