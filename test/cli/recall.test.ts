/**
 * `rocketmq-ts send --deliver-after` prints the recallHandle and `rocketmq-ts recall` cancels the
 * message with it, against an embedded cluster with recall on; bad and refused handles.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { unique } from '../consumer/helpers.js';
import { killAll, runCli } from './run-cli.js';

test.after(killAll);

test('send --deliver-after prints a recallHandle; recall with it prints the msgId', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { recallMessageEnable: true } });
  try {
    const topic = unique('CliRecall');
    await cluster.createTopic(topic, 1);
    const ns = ['--namesrv', cluster.namesrvAddr, '--topic', topic];
    const sent = await runCli(['send', ...ns, '--deliver-after', '600000', '--json']);
    assert.equal(sent.code, 0, sent.stderr);
    const out = JSON.parse(sent.stdout) as { msgId?: string; recallHandle?: string };
    assert.ok(out.recallHandle, sent.stdout);
    // the plain (non --json) SendResult shows it too
    const plain = await runCli(['send', ...ns, '--deliver-after', '600000']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /"recallHandle": "[A-Za-z0-9_-]+=*"/);

    const recalled = await runCli(['recall', ...ns, '--handle', out.recallHandle, '--json']);
    assert.equal(recalled.code, 0, recalled.stderr);
    assert.deepEqual(JSON.parse(recalled.stdout), { msgId: out.msgId });
    const text = await runCli(['recall', ...ns, '--handle', out.recallHandle]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(
      text.stdout.trim(),
      `recalled ${out.msgId}`,
      'a second recall of the same message is accepted (Java too)',
    );

    const bad = await runCli(['recall', ...ns, '--handle', 'garbage!']);
    assert.equal(bad.code, 2, 'bad input');
    assert.match(bad.stderr, /recallHandle.*recall handle is invalid/);
    const missing = await runCli(['recall', ...ns]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--handle/);
  } finally {
    await cluster.stop();
  }
});

test('recall against a broker with recall off exits 1 naming recallMessageEnable', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  try {
    const topic = unique('CliRecallOff');
    await cluster.createTopic(topic, 1);
    const ns = ['--namesrv', cluster.namesrvAddr, '--topic', topic];
    const sent = await runCli(['send', ...ns, '--deliver-after', '600000', '--json']);
    assert.equal(sent.code, 0, sent.stderr);
    const { recallHandle } = JSON.parse(sent.stdout) as { recallHandle: string };
    const r = await runCli(['recall', ...ns, '--handle', recallHandle]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /recallMessageEnable=true/);
  } finally {
    await cluster.stop();
  }
});
