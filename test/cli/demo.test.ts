import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'parse5';
import { killAll, startCli } from './run-cli.js';

test.after(killAll);

test('a short demo run injects every fault, loses no acknowledged message and writes a well-formed report', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-test-'));
  try {
    const report = join(dir, 'run.html');
    const { done } = startCli(
      ['demo', '--duration', '5', '--rate', '120', '--json-summary', '--report', report],
      {
        TMPDIR: dir,
      },
    );
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
    const causes = Object.values(run.duplicateCauses ?? {}) as number[];
    assert.equal(
      causes.reduce((a, b) => a + b, 0),
      run.duplicates,
      'every duplicate counted and explained',
    );
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
    // one member of the consumer group was killed and restarted during the schedule
    assert.match(html, /consumer 2 killed \(SIGKILL\) after \d+ deliveries/);
    assert.match(html, /consumer 2 restarted/);

    // the cluster removed its data directory (it lives under TMPDIR)
    const left = (await readdir(dir)).filter((f) => f !== 'run.html');
    assert.deepEqual(left, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C after the first fault stops the demo cleanly and reports only the phases that ran', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'demo-int-'));
  try {
    // 30 s schedule: warm-up 0-3 s, slow 3-6.6 s, recovered from slow 6.6-9.8 s, busy from 9.8 s
    const { child, done } = startCli(
      ['demo', '--duration', '30', '--rate', '50', '--plain', '--json-summary'],
      {
        TMPDIR: dir,
      },
    );
    // interrupt once the slow fault is over (the live lines go to stderr with --json-summary)
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer): void => {
        if (/s recovered from slow +\] acked/.test(d.toString())) {
          child.stderr!.off('data', onData);
          resolve();
        }
      };
      child.stderr!.on('data', onData);
      child.on('close', () => reject(new Error('demo exited before the slow fault ended')));
    });
    child.kill('SIGINT');
    const { code, stdout, stderr } = await done;
    assert.equal(code, 130, stderr.slice(-3000));
    assert.match(stderr, /Interrupted: messages were not read back/);
    const run = JSON.parse(stdout.trim()).runs[0] as {
      phases: Array<{ name: string; endMs: number }>;
      recoveryMs: Record<string, number | null>;
    };
    const names = run.phases.map((p) => p.name);
    assert.deepEqual(names.slice(0, 3), ['warm-up', 'slow', 'recovered from slow']);
    assert.ok(!names.includes('killed') && !names.includes('restarted'), `phases: ${names.join(', ')}`);
    const stoppedAt = run.phases.at(-1)!.endMs;
    assert.ok(stoppedAt < 30_000, `the last phase ends where the run stopped, not at ${stoppedAt}`);
    // recovery is reported for the faults that ended, and only for those
    const ended = run.phases
      .filter((p) => ['slow', 'busy', 'hung'].includes(p.name) && p.endMs < stoppedAt)
      .map((p) => p.name);
    assert.deepEqual(Object.keys(run.recoveryMs), ended);
    assert.ok(ended.includes('slow'));
    // the human output: no live line at the planned end, no phase that never ran
    assert.doesNotMatch(stderr, /\[ 30\.0s/);
    assert.doesNotMatch(stderr, /restarted|killed/);
    const back = /traffic back to broker-b \(>= 50% of its fair share\) after: (.*)$/m.exec(stderr);
    assert.deepEqual(
      back?.[1]?.split(', ').map((x) => x.split(' ')[0]),
      ended,
    );
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
