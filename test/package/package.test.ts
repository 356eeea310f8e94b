/**
 * The package as npm ships it: packed once with `npm pack`, installed from the tarball into a
 * temporary project, then used with require(), import and TypeScript (`module: nodenext`).
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTRY_POINTS, writeConsumerProject, writeSubpathProject } from './consumer-project.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// The Node.js that runs the installed package; PACKAGE_TEST_NODE=/path/to/node tries another one.
const NODE = process.env.PACKAGE_TEST_NODE ?? process.execPath;

let work: string;
let project: string;
let packedFiles: string[];

/** Runs a command and returns its stdout; throws with its output when it fails. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: CHILD_SAFETY_LIMIT_MS });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

function node(args: string[], env?: NodeJS.ProcessEnv): string {
  return run(NODE, args, project, env);
}

/** Paths of every module file that loading `entry` evaluated, with require() or import. */
function filesRequired(entry: string): string[] {
  return JSON.parse(node(['loaded.cjs', entry])) as string[];
}

function filesImported(entry: string): string[] {
  const log = join(work, `loaded-${entry.replace(/\W/g, '_')}.log`);
  node(['--import', './record.mjs', 'loaded.mjs', entry], { ...process.env, LOADED_LOG: log });
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
}

/** Package-relative paths of the module files that loading `entry` evaluated. */
function loadedWithRequire(entry: string): string[] {
  return packageFiles(filesRequired(entry));
}

function loadedWithImport(entry: string): string[] {
  return packageFiles(filesImported(entry));
}

/** Which of the LZ4/ZSTD dependencies `files` include. */
function codecDependencies(files: string[]): string[] {
  const names = files.map((f) => /\/node_modules\/(lz4js|fzstd|@bokuweb\/zstd-wasm)\//.exec(f)?.[1]);
  return [...new Set(names.filter((n) => n !== undefined))].sort();
}

function packageFiles(paths: string[]): string[] {
  const base = join(project, 'node_modules', 'rocketmq-ts') + '/';
  return paths.filter((p) => p.startsWith(base)).map((p) => p.slice(base.length));
}

/** The package's `dependencies` (what an install of it brings along). */
function runtimeDependencies(): Record<string, string> {
  return (
    (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      }
    ).dependencies ?? {}
  );
}

before(() => {
  run(process.execPath, ['scripts/build.mjs', '--if-stale'], ROOT);
  work = mkdtempSync(join(tmpdir(), 'rocketmq-ts-package-'));
  const packed = JSON.parse(
    run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT),
  ) as { filename: string; files: { path: string }[] }[];
  const tarball = join(work, packed[0]!.filename);
  packedFiles = packed[0]!.files.map((f) => f.path);
  project = join(work, 'project');
  mkdirSync(project);
  writeConsumerProject(project, join(ROOT, 'node_modules', '@types'));
  // `npm install --offline` resolves each dependency's range from registry metadata in the npm
  // cache, which `npm ci` does not store (only tarballs): on a fresh machine it fails ENOTCACHED.
  // Tarballs packed from our own node_modules need no metadata, so the install stays offline.
  const dependencyTarballs = Object.keys(runtimeDependencies()).map((name) => {
    const [dep] = JSON.parse(
      run(
        'npm',
        ['pack', '--json', '--ignore-scripts', '--pack-destination', work, join(ROOT, 'node_modules', name)],
        ROOT,
      ),
    ) as { filename: string }[];
    return join(work, dep!.filename);
  });
  run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...dependencyTarballs],
    project,
  );
});

after(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships the license, every exports target and the CLI, but no source maps or build state', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, Record<string, string>>>;
      bin: Record<string, string>;
    };
    const targets = Object.values(pkg.exports).flatMap((e) =>
      typeof e === 'string' ? [e] : Object.values(e).flatMap((c) => Object.values(c)),
    );
    targets.push(...Object.values(pkg.bin));
    for (const t of targets) assert.ok(packedFiles.includes(t.replace(/^\.\//, '')), `${t} is packed`);
    assert.ok(packedFiles.includes('LICENSE'));
    assert.ok(packedFiles.includes('dist/cjs/package.json'));
    const unwanted = packedFiles.filter((f) => /\.map$|tsbuildinfo|build-stamp|^src\/|^test\//.test(f));
    assert.deepEqual(unwanted, []);
  });
});

describe('the published declarations', () => {
  it('show only the public surface: no member tagged @internal (stripInternal)', () => {
    const dts = packedFiles.filter((f) => f.endsWith('.d.ts'));
    assert.ok(dts.length > 0);
    const base = join(project, 'node_modules', 'rocketmq-ts');
    const tagged = dts.filter((f) => readFileSync(join(base, f), 'utf8').includes('@internal'));
    assert.deepEqual(tagged, []);
    // one member of each kind the tag hides, by name: the broker's machinery, a producer internal
    const broker = readFileSync(join(base, 'dist/server/broker/broker.d.ts'), 'utf8');
    assert.match(broker, /export declare class Broker\b/);
    assert.doesNotMatch(broker, /\bpullHold\b|\bget topics\(\)/);
    assert.doesNotMatch(readFileSync(join(base, 'dist/producer/producer.d.ts'), 'utf8'), /\bsendWith\(/);
  });
});

describe('the installed command', () => {
  it('runs through the bin link npm created', () => {
    const help = run(join(project, 'node_modules', '.bin', 'rocketmq-ts'), ['--help'], project);
    assert.match(help, /^\s+send\s/m);
  });
});

describe('a CommonJS application', () => {
  it('requires every entry point from a .cjs file and gets the same names as ESM', () => {
    const required = JSON.parse(node(['names.cjs'])) as Record<string, string[]>;
    const imported = JSON.parse(node(['names.mjs'])) as Record<string, string[]>;
    assert.deepEqual(Object.keys(required), ENTRY_POINTS);
    assert.deepEqual(required, imported);
    assert.ok(required['rocketmq-ts']!.includes('Producer'));
    assert.ok(required['rocketmq-ts/server']!.includes('EmbeddedCluster'));
    const internals = ['nextOpaque', 'FrameParser', 'encodeFrame', 'RequestCode', 'Broker', 'MessageStore'];
    assert.deepEqual(
      internals.filter((n) => required['rocketmq-ts']!.includes(n)),
      [],
      'internals stay out of the root',
    );
  });

  it('compiled from TypeScript (module nodenext, type commonjs) type-checks and sends a message', () => {
    const listed = run(process.execPath, [TSC, '-p', '.', '--listFiles'], project);
    // each side read the declarations of its own condition
    assert.match(listed, /node_modules\/rocketmq-ts\/dist\/cjs\/index\.d\.ts/);
    assert.match(listed, /node_modules\/rocketmq-ts\/dist\/index\.d\.ts/);
    const cjs = JSON.parse(node(['out/app.js'])) as Record<string, unknown>;
    assert.deepEqual(cjs, {
      commonjs: true,
      status: 'SEND_OK',
      invalidArgument: true,
      sendMsgTimeout: 3000,
      success: 0,
      opaque: 'number',
    });
    const esm = JSON.parse(node(['out/esm.mjs'])) as Record<string, unknown>;
    assert.deepEqual(esm, { commonjs: false, producer: true, cluster: 'function', sendMsgTimeout: 3000 });
  });
});

describe('a TypeScript application importing every subpath export', () => {
  it('type-checks under moduleResolution node10 (typesVersions) and nodenext (exports)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const specifiers = Object.keys(pkg.exports)
      .filter((sub) => sub !== './package.json')
      .map((sub) => `rocketmq-ts${sub.slice(1)}`);
    assert.ok(specifiers.includes('rocketmq-ts/server'));
    const configs = writeSubpathProject(project, join(ROOT, 'node_modules', '@types'), specifiers);
    for (const config of configs) {
      // tsc reports on stdout; run() puts it into the failure message (e.g. TS2307 for a subpath)
      const listed = run(process.execPath, [TSC, '-p', config, '--listFiles'], project);
      for (const sub of ['server', 'protocol', 'remoting', 'dashboard'])
        assert.match(
          listed,
          new RegExp(`rocketmq-ts/dist/(cjs/)?${sub}/index\\.d\\.ts`),
          `${config}: ${sub}`,
        );
    }
  });
});

describe('importing Producer from the root entry', () => {
  const server = /^dist\/(cjs\/)?server\//;

  it('loads neither the broker nor the store with import', () => {
    const root = loadedWithImport('rocketmq-ts');
    assert.ok(root.includes('dist/producer/producer.js'), 'the recorder sees package modules');
    assert.deepEqual(
      root.filter((f) => server.test(f) || f.startsWith('dist/cjs/')),
      [],
    );
    // the same recorder does see them when the server entry is imported
    const withServer = loadedWithImport('rocketmq-ts/server');
    assert.ok(withServer.includes('dist/server/broker/broker.js'));
    assert.ok(withServer.includes('dist/server/store/message-store.js'));
  });

  it('loads neither the broker nor the store with require', () => {
    const root = loadedWithRequire('rocketmq-ts');
    assert.ok(root.includes('dist/cjs/producer/producer.js'), 'the cache lists package modules');
    assert.deepEqual(
      root.filter((f) => server.test(f) || !f.startsWith('dist/cjs/')),
      [],
    );
    const withServer = loadedWithRequire('rocketmq-ts/server');
    assert.ok(withServer.includes('dist/cjs/server/broker/broker.js'));
    assert.ok(withServer.includes('dist/cjs/server/store/message-store.js'));
  });
});

describe('the LZ4 and ZSTD dependencies (lz4js, fzstd, @bokuweb/zstd-wasm)', () => {
  it('are loaded by no entry point, with import or require', () => {
    for (const entry of ENTRY_POINTS) {
      assert.deepEqual(codecDependencies(filesImported(entry)), [], `import ${entry}`);
      assert.deepEqual(codecDependencies(filesRequired(entry)), [], `require ${entry}`);
    }
  });

  it('are loaded on the first LZ4 or ZSTD body, which round-trips from CommonJS and ESM', () => {
    const cjs = JSON.parse(node(['codecs.cjs'])) as { before: string[]; after: string[] };
    // The WebAssembly encoder only where Node has no zstd of its own (before 22.15).
    const after = cjs.after.filter((n) => n !== '@bokuweb/zstd-wasm');
    assert.deepEqual({ ...cjs, after }, { before: [], LZ4: true, ZSTD: true, after: ['fzstd', 'lz4js'] });
    assert.deepEqual(JSON.parse(node(['codecs.mjs'])), { LZ4: true, ZSTD: true });
  });
});
