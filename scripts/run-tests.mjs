// Runs every *.test.js under the given directory with node:test; Node 20's --test takes no globs.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const [dir = 'build/test', ...args] = process.argv.slice(2);
// `--exclude <name>`: skip subdirectories of that name (the topology scenarios have their own script).
const excluded = new Set();
const rest = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--exclude') excluded.add(args[++i]);
  else rest.push(args[i]);
}
const files = [];
(function walk(d) {
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) {
      if (!excluded.has(name)) walk(p);
    } else if (name.endsWith('.test.js')) files.push(p);
  }
})(dir);
if (files.length === 0) {
  console.error(`no test files under ${dir}`);
  process.exit(1);
}
const extra = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === '--concurrency') extra.push(`--test-concurrency=${rest[++i]}`);
  else extra.push(rest[i]);
}
const result = spawnSync(process.execPath, ['--test', ...extra, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
