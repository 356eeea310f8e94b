/** `rocketmq-ts send` against an embedded cluster: what a script reads from its output. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { unique } from '../consumer/helpers.js';
import { killAll, runCli } from './run-cli.js';

test.after(killAll);

test('send --json with one message prints the msgId of the message the broker stored', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  try {
    const topic = unique('CliSend');
    const r = await runCli(['send', '--namesrv', cluster.namesrvAddr, '--topic', topic, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      count: number;
      ok: number;
      msgId?: string;
      offsetMsgId?: string;
      messageQueue?: { topic: string; brokerName: string; queueId: number };
      queueOffset?: number;
    };
    assert.equal(out.count, 1);
    assert.equal(out.ok, 1);
    assert.match(out.msgId ?? '', /^[0-9A-F]{32}$/);
    assert.equal(out.messageQueue?.topic, topic);
    const stored = await admin.viewMessage(out.msgId!, topic);
    assert.equal(stored.queueOffset, out.queueOffset);
    assert.equal(stored.offsetMsgId, out.offsetMsgId);

    // many messages: the summary alone, no single msgId
    const many = await runCli([
      'send',
      '--namesrv',
      cluster.namesrvAddr,
      '--topic',
      topic,
      '--count',
      '3',
      '--json',
    ]);
    assert.equal(many.code, 0, many.stderr);
    const summary = JSON.parse(many.stdout) as { ok: number; msgId?: string };
    assert.equal(summary.ok, 3);
    assert.equal(summary.msgId, undefined);
  } finally {
    await admin.close();
    await cluster.stop();
  }
});

test('send --message-group puts every message of the group on one queue with __SHARDINGKEY; a blank group exits 2 and sends nothing', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  try {
    const topic = unique('CliGroup');
    const queues = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await runCli([
        'send',
        '--namesrv',
        cluster.namesrvAddr,
        '--topic',
        topic,
        '--message-group',
        'order-42',
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as {
        msgId: string;
        messageQueue: { brokerName: string; queueId: number };
      };
      queues.add(`${out.messageQueue.brokerName}/${out.messageQueue.queueId}`);
      const stored = await admin.viewMessage(out.msgId, topic);
      assert.equal(stored.properties['__SHARDINGKEY'], 'order-42');
    }
    assert.equal(queues.size, 1, `one queue for the group: ${[...queues].join(', ')}`);

    const blank = await runCli([
      'send',
      '--namesrv',
      cluster.namesrvAddr,
      '--topic',
      topic,
      '--message-group',
      ' ',
    ]);
    assert.equal(blank.code, 2, blank.stderr);
    assert.match(blank.stderr, /messageGroup/);
    const badPriority = await runCli([
      'send',
      '--namesrv',
      cluster.namesrvAddr,
      '--topic',
      topic,
      '--priority',
      '-1',
    ]);
    assert.equal(badPriority.code, 2, badPriority.stderr);
  } finally {
    await admin.shutdown();
    await cluster.stop();
  }
});
