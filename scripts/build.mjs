// Builds the package's dist/: ESM (tsconfig.build.json) into dist/, CommonJS (tsconfig.cjs.json,
// everything but the CLI) into dist/cjs/ with a package.json that marks it as CommonJS.
//   node scripts/build.mjs             clean build (prepack: npm pack and npm publish)
//   node scripts/build.mjs --if-stale  incremental build, skipped when dist/ is newer than every
//                                      input (npm run cli, test/package)
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestMtime } from './newest-mtime.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Written last, so an interrupted build is never taken for a finished one, and dated when the
// build started, so a source saved during the build still makes dist/ stale.
const stamp = join(dist, '.build-stamp');
const inputs = ['src', 'tsconfig.base.json', 'tsconfig.build.json', 'tsconfig.cjs.json', 'scripts/build.mjs'];

function isStale() {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return true;
  }
  return inputs.some((p) => newestMtime(join(root, p)) > built);
}

function tsc(project) {
  const bin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // tsc reports on stdout; keep it off ours so `npm run cli -- ... --json` prints only JSON.
  const child = spawn(process.execPath, [bin, '-p', join(root, project)], { stdio: ['ignore', 2, 2] });
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/**
 * Removes from `out` (dist/ or dist/cjs/) the outputs whose source under src/ is gone: an
 * incremental tsc build leaves them, and a module deleted or moved must not stay importable.
 */
function pruneOrphans(out, rel = '') {
  for (const entry of readdirSync(join(out, rel), { withFileTypes: true })) {
    const path = join(rel, entry.name);
    if (entry.isDirectory()) {
      if (rel === '' && entry.name === 'cjs') continue;
      if (!existsSync(join(root, 'src', path))) rmSync(join(out, path), { recursive: true, force: true });
      else pruneOrphans(out, path);
      continue;
    }
    const m = /^(.*?)\.(js|d\.ts)(\.map)?$/.exec(entry.name);
    if (m && !existsSync(join(root, 'src', rel, `${m[1]}.ts`))) rmSync(join(out, path), { force: true });
  }
}

const ifStale = process.argv.includes('--if-stale');
// Without a stamp, dist/ (if any) was not made by this script: build it clean.
let clean = !ifStale;
try {
  statSync(stamp);
} catch {
  clean = true;
}
if (clean || isStale()) {
  const started = new Date();
  // A clean build drops outputs of deleted sources, which an incremental one would leave behind.
  if (clean) rmSync(dist, { recursive: true, force: true });
  // Two independent compilations: run them side by side.
  const codes = await Promise.all([tsc('tsconfig.build.json'), tsc('tsconfig.cjs.json')]);
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) process.exit(failed);
  if (!clean) for (const out of [dist, join(dist, 'cjs')]) pruneOrphans(out);
  mkdirSync(join(dist, 'cjs'), { recursive: true });
  writeFileSync(join(dist, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}
