/** Bad input a new user hit: each gets one clear error line (and a hint), exit 2, no stack trace. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commands } from '../../src/cli/commands/index.js';
import {
  STACK_FRAME,
  assertOneLineError,
  closedPort,
  killAll,
  listening,
  portOf,
  runCli,
  runEach,
} from './run-cli.js';

test.after(killAll);

test('an unknown option is named, with the closest real one suggested', async () => {
  assertOneLineError(
    await runCli(['send', '--namesrv', '127.0.0.1:9876', '--topc', 'T']),
    2,
    /--topc: unknown option; did you mean --topic\?/,
  );
  assertOneLineError(await runCli(['route', '--bogus']), 2, /--bogus: unknown option$/);
});

test('every command refuses an unknown option with one line and exit 2', async () => {
  await runEach(
    commands.map((c) => [...c.path, '--no-such-flag']),
    (_args, r) => assertOneLineError(r, 2, /--no-such-flag: unknown option/),
  );
});

test('an extra positional argument is refused, naming it', async () => {
  assertOneLineError(
    await runCli(['send', '--namesrv', '127.0.0.1:9876', '--topic', 'T', 'hello']),
    2,
    /"hello": unexpected argument/,
  );
  assertOneLineError(await runCli(['topic', 'create', 'T']), 2, /"T": unexpected argument/);
});

test('a negative number after a flag is its value, judged by that flag', async () => {
  assertOneLineError(
    await runCli(['send', '--namesrv', '127.0.0.1:9876', '--topic', 'T', '--timeout', '-5']),
    2,
    /--timeout: must be an integer in 1\.\.600000, got -5/,
  );
  assertOneLineError(await runCli(['demo', '--rate', '-10']), 2, /--rate: expected an integer .*got "-10"/);
});

test('a flag without its value and a value for a switch are refused', async () => {
  assertOneLineError(
    await runCli(['send', '--namesrv', '127.0.0.1:9876', '--topic', '--json']),
    2,
    /--topic: needs a value/,
  );
  assertOneLineError(await runCli(['cluster-info', '--json=yes']), 2, /--json: takes no value, got "yes"/);
  assertOneLineError(await runCli(['route', '--topic', 'T']), 2, /--namesrv: is required/);
});

test('topic --help lists its sub-commands; topic alone asks for one', async () => {
  const help = await runCli(['topic', '--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /Usage: rocketmq-ts topic <sub-command>/);
  assert.match(help.stdout, /topic create +Create or update a topic/);
  assert.equal(help.stderr, '');
  assertOneLineError(await runCli(['topic']), 2, /'topic' needs a sub-command: create/);
});

test('no command at all lists the commands in the hint', async () => {
  const r = await runCli([]);
  assertOneLineError(r, 2, /^error: no command given$/);
  assert.match(r.stderr, /Commands: namesrv, .*topic create, .*send/);
});

test('an unknown command suggests the closest name', async () => {
  assertOneLineError(await runCli(['sned']), 2, /unknown command 'sned'; did you mean 'send'\?/);
  assertOneLineError(
    await runCli(['topci', 'create', '--topic', 'T']),
    2,
    /unknown command 'topci create'; did you mean 'topic create'\?/,
  );
  assertOneLineError(await runCli(['topic', 'delete']), 2, /unknown command 'topic delete'/);
  assertOneLineError(await runCli(['frobnicate']), 2, /unknown command 'frobnicate'$/);
});

test('fault --error-rate without --error-code, or a malformed fault, is refused before anything is sent', async () => {
  // nothing listens on the broker port: a connect attempt would fail with ERR_CONNECT and exit 1
  const port = await closedPort();
  assertOneLineError(
    await runCli(['fault', '--broker', `127.0.0.1:${port}`, '--error-rate', '0.5']),
    2,
    /--error-rate: needs --error-code/,
  );
  // the broker's own checks of the fault spec name the flag, not the spec field
  assertOneLineError(
    await runCli(['fault', '--broker', `127.0.0.1:${port}`, '--error-code', '2', '--error-rate', '5']),
    2,
    /^error: --error-rate: must be in \[0, 1\], got 5$/,
  );
  assertOneLineError(
    await runCli(['fault', '--broker', `127.0.0.1:${port}`, '--latency', 'soon']),
    2,
    /^error: --latency: /,
  );
});

test('a port in use is named with how to pick another, for namesrv, broker and cluster', async () => {
  const taken = await listening();
  const dir = await mkdtemp(join(tmpdir(), 'cli-port-'));
  try {
    const port = String(portOf(taken));
    const inUse = (flag: string): RegExp =>
      new RegExp(
        `${flag}: port ${port} on 127\\.0\\.0\\.1 is already in use; pick another with ${flag} P \\(0 picks a free one\\)`,
      );
    assertOneLineError(await runCli(['namesrv', '--port', port]), 2, inUse('--port'));
    assertOneLineError(
      await runCli([
        'broker',
        '--namesrv',
        `127.0.0.1:${await closedPort()}`,
        '--data-dir',
        join(dir, 'b'),
        '--port',
        port,
      ]),
      2,
      inUse('--port'),
    );
    assertOneLineError(
      await runCli(['cluster', '--brokers', '1', '--namesrv-port', port], { TMPDIR: dir }),
      2,
      inUse('--namesrv-port'),
    );
    // the cluster removed the temp data dir it had made; the broker keeps the one it was given
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f !== 'b'),
      [],
    );
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  }
});

test('a failure that is not bad input exits 1 with one line; --verbose and NODE_DEBUG=rocketmq add the stack', async () => {
  const addr = `127.0.0.1:${await closedPort()}`;
  const quiet = await runCli(['cluster-info', '--namesrv', addr]);
  assertOneLineError(
    quiet,
    1,
    new RegExp(
      `^error \\[ERR_NAMESRV_UNREACHABLE\\]: cannot reach the NameServer at ${addr}: connect to ${addr} failed`,
    ),
  );
  assert.match(quiet.stderr, /Is a NameServer listening at/);
  for (const [args, env] of [
    [['cluster-info', '--namesrv', addr, '--verbose'], {}],
    [['cluster-info', '--namesrv', addr], { NODE_DEBUG: 'rocketmq' }],
  ] as const) {
    const loud = await runCli(args, env);
    assert.equal(loud.code, 1);
    assert.match(loud.stderr, /^error \[ERR_NAMESRV_UNREACHABLE\]/m);
    assert.match(loud.stderr, STACK_FRAME, 'stack trace on request');
  }
});
