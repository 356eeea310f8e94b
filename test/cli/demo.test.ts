import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'parse5';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

/** Spawns the CLI; kills it if it outlives `timeoutMs` (the test then fails on the exit code). */
function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env, CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<Finished>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done };
}

test.after(() => {
  for (const child of children) child.kill('SIGKILL');
});

test('a short demo run injects every fault, loses no acknowledged message and writes a well-formed report', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-test-'));
  try {
    const report = join(dir, 'run.html');
    const { done } = cli(['demo', '--duration', '5', '--rate', '120', '--json-summary', '--report', report], {
      TMPDIR: dir,
    });
    const { code, stdout, stderr } = await done;
    assert.equal(code, 0, `exit code; stderr:\n${stderr.slice(-3000)}`);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'only the JSON line on stdout');
    const summary = JSON.parse(lines[0]!);
    assert.equal(summary.ok, true);
    assert.equal(summary.runs.length, 1);
    const run = summary.runs[0];
    assert.equal(run.strategy, 'adaptive');
    assert.equal(run.faultsInjected, true);
    assert.deepEqual(run.brokers, ['broker-a', 'broker-b', 'broker-c']);
    assert.equal(run.verified, true);
    assert.equal(run.lost, 0, `lost: ${run.lostMsgIds.join(' ')}`);
    assert.ok(run.sent >= 500, `sent ${run.sent}`);
    assert.equal(run.acknowledged + run.failed, run.sent);
    assert.ok(run.consumed >= run.acknowledged, 'every acknowledged message read back');
    assert.deepEqual(
      run.phases.map((p: { name: string }) => p.name),
      [
        'warm-up',
        'slow',
        'recovered from slow',
        'busy',
        'recovered from busy',
        'hung',
        'recovered from hung',
        'killed',
        'restarted',
      ],
    );
    const killed = run.phases.find((p: { name: string }) => p.name === 'killed');
    // (a send acknowledged in the instant between the phase switch and the kill may count)
    assert.ok(killed.share['broker-b'] < 0.05, 'a killed broker acknowledges (next to) nothing');
    const warmup = run.phases[0];
    assert.ok(warmup.share['broker-b'] > 0.1, 'the target broker takes traffic before the faults');
    assert.deepEqual(Object.keys(run.recoveryMs), ['slow', 'busy', 'hung', 'killed']);
    assert.match(stderr, /Summary \(adaptive\)/);

    const html = await readFile(report, 'utf8');
    const errors: string[] = [];
    parse(html, { onParseError: (e) => errors.push(e.code) });
    assert.deepEqual(errors, []);
    assert.equal((html.match(/<svg\b/g) ?? []).length, 3);

    // the cluster removed its data directory (it lives under TMPDIR)
    const left = (await readdir(dir)).filter((f) => f !== 'run.html');
    assert.deepEqual(left, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C stops the demo cleanly and removes the data directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-int-'));
  try {
    const { child, done } = cli(['demo', '--duration', '60', '--rate', '50', '--plain'], { TMPDIR: dir });
    // wait until it is sending, then interrupt
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer): void => {
        if (/acked [1-9]/.test(d.toString())) {
          child.stdout!.off('data', onData);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.on('close', () => reject(new Error('demo exited before sending')));
    });
    child.kill('SIGINT');
    const { code, stdout } = await done;
    assert.equal(code, 130);
    assert.match(stdout, /Interrupted: messages were not read back/);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
