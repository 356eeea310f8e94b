import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { commands } from '../../src/cli/commands/index.js';
import { GLOBAL_FLAGS } from '../../src/cli/flags.js';
import { mentionedFlags } from './cli-reference.js';
import { assertOneLineError, killAll, runCli, runEach } from './run-cli.js';

test.after(killAll);

test('every registered command has a help text naming its path, printed by <path> --help and -h with exit 0', async () => {
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
  const runs = commands.flatMap((command) => ['--help', '-h'].map((flag) => [...command.path, flag]));
  await runEach(runs, (args, r) => {
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    const command = commands.find((c) => c.path.join(' ') === args.slice(0, -1).join(' '))!;
    assert.equal(r.stdout.trim(), command.help.trim(), args.join(' '));
  });
});

test('each help text lists exactly the flags its command declares (and maybe the global ones)', () => {
  const globals = Object.keys(GLOBAL_FLAGS).map((f) => `--${f}`);
  for (const command of commands) {
    const path = command.path.join(' ');
    const listed = mentionedFlags(command.help);
    const declared = Object.keys(command.flags).map((f) => `--${f}`);
    for (const flag of declared) assert.ok(listed.has(flag), `${path} --help lacks ${flag}`);
    for (const flag of listed)
      assert.ok(declared.includes(flag) || globals.includes(flag), `${path} --help lists undeclared ${flag}`);
  }
});

test('bad flag values are rejected with the flag named', async () => {
  assertOneLineError(await runCli(['demo', '--rate', 'fast']), 2, /--rate/);
  assertOneLineError(await runCli(['bench', '--duration', 'forever']), 2, /--duration/);
});
