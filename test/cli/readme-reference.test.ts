import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { commands } from '../../src/cli/commands/index.js';
import { GLOBAL_FLAGS } from '../../src/cli/flags.js';
import { mentionedFlags, cliReferenceSection, referenceRows } from './cli-reference.js';

const GLOBALS = Object.keys(GLOBAL_FLAGS).map((f) => `--${f}`);

test('the CLI reference in docs/admin-cli.md has one row per command listing every flag its --help lists', () => {
  const section = cliReferenceSection();
  const rows = referenceRows(section);
  assert.deepEqual(
    rows.map((r) => r.path).sort(),
    commands.map((c) => c.path.join(' ')).sort(),
    'one row per command',
  );
  for (const command of commands) {
    const path = command.path.join(' ');
    const row = rows.find((r) => r.path === path)!;
    const expected = [...mentionedFlags(command.help)].filter((f) => !GLOBALS.includes(f)).sort();
    assert.deepEqual([...row.flags].sort(), expected, `docs/admin-cli.md row of ${path}`);
  }
  // the flags every command takes are described once, next to the table
  for (const flag of GLOBALS)
    assert.ok(section.includes(`\`${flag}\``), `docs/admin-cli.md CLI reference lacks ${flag}`);
});

test('the CLI reference row parser reads escaped pipes and multi-word commands', () => {
  const rows = referenceRows(
    '| command | what |\n|---|---|\n| `topic create --namesrv A [--perm 6\\|4]` | x |\n| `demo` | y |\n',
  );
  assert.deepEqual(
    rows.map((r) => [r.path, [...r.flags]]),
    [
      ['topic create', ['--namesrv', '--perm']],
      ['demo', []],
    ],
  );
});
