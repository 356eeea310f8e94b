/**
 * `npm run fuzz -- [--minutes N] [--seed S] [--target name[,name]] [--cases N] [--save dir]`:
 * runs every target (or the named ones) for its share of the time. A failure prints its seed and
 * case seed and is saved as a fixture (test/fixtures/fuzz/ unless --save), which `npm test`
 * replays; the process exits 1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTarget, type Failure } from './runner.js';
import { TARGETS } from './targets/index.js';

const USAGE = `usage: npm run fuzz -- [--minutes N] [--seed S] [--target name[,name]] [--cases N] [--save dir]
targets:
${TARGETS.map((t) => `  ${t.name.padEnd(16)} ${t.description}`).join('\n')}`;

function fixtureFile(dir: string, f: Failure): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${f.target}-${f.caseSeed}.json`);
  const fixture = {
    target: f.target,
    seed: f.seed,
    caseIndex: f.caseIndex,
    caseSeed: f.caseSeed,
    error: f.error,
    input: f.input,
  };
  writeFileSync(file, JSON.stringify(fixture, null, 2) + '\n');
  return file;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '1' },
      seed: { type: 'string' },
      target: { type: 'string' },
      cases: { type: 'string' },
      save: { type: 'string', default: 'test/fixtures/fuzz' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const minutes = Number(values.minutes);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 0x100000000) : Number(values.seed);
  const cases = values.cases === undefined ? undefined : Number(values.cases);
  const names = values.target?.split(',');
  const targets = names === undefined ? TARGETS : TARGETS.filter((t) => names.includes(t.name));
  if (
    !(minutes > 0) ||
    !Number.isInteger(seed) ||
    targets.length === 0 ||
    (cases !== undefined && !(cases > 0))
  ) {
    console.error(USAGE);
    return 2;
  }
  console.log(`fuzz seed=${seed} minutes=${minutes} targets=${targets.map((t) => t.name).join(',')}`);
  const share = (minutes * 60_000) / targets.length;
  let failed = 0;
  for (const target of targets) {
    const result = await runTarget(target, {
      seed,
      durationMs: share,
      cases,
      log: (line) => console.log(line),
    });
    const rate = result.cases / Math.max(0.001, result.elapsedMs / 1000);
    console.log(
      `${target.name.padEnd(16)} ${String(result.cases).padStart(8)} cases ${rate.toFixed(0).padStart(7)}/s  ${result.failures.length} failures`,
    );
    for (const f of result.failures) console.log(`  saved ${fixtureFile(values.save, f)}`);
    failed += result.failures.length;
  }
  if (failed > 0)
    console.log(`replay: npm run fuzz -- --seed ${seed} --target <name>; fixtures are replayed by npm test`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
