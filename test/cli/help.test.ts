import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { commands } from '../../src/cli/commands/index.js';
import { BENCH_FLAGS, benchCommand } from '../../src/cli/commands/bench.js';
import { DEMO_FLAGS, demoCommand } from '../../src/cli/commands/demo.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('every registered command has a help text naming its path, printed by <path> --help with exit 0', async () => {
  assert.ok(commands.length >= 2);
  const paths = new Set<string>();
  for (const command of commands) {
    const path = command.path.join(' ');
    assert.ok(!paths.has(path), `duplicate command path ${path}`);
    paths.add(path);
    assert.ok(command.summary.trim().length > 0, `${path}: empty summary`);
    assert.ok(command.help.trim().length > 0, `${path}: empty help`);
    assert.ok(command.help.includes(path), `${path}: help does not mention "${path}"`);
  }
  // one child per command, in parallel; each exits by itself
  await Promise.all(
    commands.map(async (command) => {
      const { stdout } = await run(process.execPath, [MAIN, ...command.path, '--help'], { timeout: 20_000 });
      assert.equal(stdout.trim(), command.help.trim(), `${command.path.join(' ')} --help`);
    }),
  );
});

test('the demo and bench help texts mention every flag they parse', () => {
  for (const [command, flags] of [
    [demoCommand, DEMO_FLAGS],
    [benchCommand, BENCH_FLAGS],
  ] as const) {
    for (const flag of Object.keys(flags)) {
      assert.match(
        command.help,
        new RegExp(`--${flag}\\b`),
        `${command.path.join(' ')} help lacks --${flag}`,
      );
    }
  }
});

test('bad flag values are rejected with the flag named', async () => {
  await assert.rejects(
    execFileExit([MAIN, 'demo', '--rate', 'fast']),
    (err: { code?: number; stderr?: string }) => err.code === 1 && /--rate/.test(err.stderr ?? ''),
  );
  await assert.rejects(
    execFileExit([MAIN, 'bench', '--duration', 'forever']),
    (err: { code?: number; stderr?: string }) => err.code === 1 && /--duration/.test(err.stderr ?? ''),
  );
});

function execFileExit(args: string[]): Promise<unknown> {
  return run(process.execPath, args, { timeout: 20_000 });
}
