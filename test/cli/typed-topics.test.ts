/**
 * Typed topics from the shell: `admin updateTopic --message-type FIFO --attributes ...` and the
 * `topic create` alias create typed topics on an embedded cluster; `admin topicList --types`
 * and `-c` print the types; bad values are one error line naming the flag.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { unique } from '../consumer/helpers.js';
import { assertOneLineError, killAll, runCli } from './run-cli.js';

test.after(killAll);

test('admin updateTopic --message-type FIFO --attributes, topic create --message-type, topicList --types', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const n = cluster.namesrvAddr;
  const admin = new Admin({ namesrvAddr: n });
  try {
    const fifo = unique('CliFifo');
    const delay = unique('CliDelay');
    const made = await runCli([
      'admin',
      'updateTopic',
      '-n',
      n,
      '-t',
      fifo,
      '-c',
      'DefaultCluster',
      '--message-type',
      'FIFO',
      '--attributes',
      '+reserve.time=60',
    ]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /order=true, attributes=\{\+message\.type=FIFO, \+reserve\.time=60\}\]/);
    const configs = await admin.topicConfig(fifo);
    assert.deepEqual(
      configs.map((c) => [c.messageType, c.order, c.attributes['reserve.time']]),
      [
        ['FIFO', true, '60'],
        ['FIFO', true, '60'],
      ],
    );

    // Removal with Java's text form (inline, since a value may not start with - otherwise).
    const removed = await runCli([
      'admin',
      'updateTopic',
      '-n',
      n,
      '-t',
      fifo,
      '-b',
      'broker-a',
      '--attributes=-reserve.time',
    ]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual((await admin.topicConfig(fifo))[0]?.attributes, { 'message.type': 'FIFO' });

    const alias = await runCli([
      'topic',
      'create',
      '--namesrv',
      n,
      '--topic',
      delay,
      '--message-type',
      'DELAY',
    ]);
    assert.equal(alias.code, 0, alias.stderr);

    const listed = await runCli(['admin', 'topicList', '-n', n, '--types', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const entries = JSON.parse(listed.stdout) as Array<{
      topic: string;
      messageType: string;
      brokers: string[];
    }>;
    assert.deepEqual(
      entries
        .filter((e) => e.topic === fifo || e.topic === delay)
        .map((e) => [e.topic, e.messageType, e.brokers]),
      [
        [fifo, 'FIFO', ['broker-a', 'broker-b']],
        [delay, 'DELAY', ['broker-a', 'broker-b']],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    const table = await runCli(['admin', 'topicList', '-n', n, '--types']);
    assert.match(table.stdout, new RegExp(`^${fifo}\\s+FIFO\\s+broker-a,broker-b$`, 'm'));
    const clusterMode = await runCli(['admin', 'topicList', '-n', n, '-c']);
    assert.match(clusterMode.stdout, /#Cluster Name\s+#Topic\s+#Message Type\s+#Consumer Group/);
    assert.match(clusterMode.stdout, new RegExp(`^DefaultCluster\\s+${delay}\\s+DELAY`, 'm'));

    // The broker's refusal reaches the shell as one line with Java's remark.
    const refused = await runCli([
      'admin',
      'updateTopic',
      '-n',
      n,
      '-t',
      fifo,
      '-b',
      'broker-a',
      '-a',
      '+x.y=1',
    ]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /unsupported key: x\.y/);
  } finally {
    await admin.close();
    await cluster.stop();
  }
});

test('typed topic flags: a bad --message-type or --attributes is one error line before any request', async () => {
  const base = ['admin', 'updateTopic', '-n', '127.0.0.1:1', '-t', 'T', '-c', 'C'];
  assertOneLineError(await runCli([...base, '--message-type', 'ORDERED']), 2, /--message-type.*FIFO/);
  assertOneLineError(await runCli([...base, '--attributes', 'k=v']), 2, /attributes/);
  assertOneLineError(await runCli([...base, '-a', '+k=v,+k=w']), 2, /given twice/);
});
