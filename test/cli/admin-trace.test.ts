/**
 * `admin producerConnection` and `admin queryMsgTraceById` against an embedded cluster: a traced
 * producer that is online, its send, and the consumption of a traced push consumer.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { FAST, unique } from '../consumer/helpers.js';
import { assertOneLineError, killAll, runCli } from './run-cli.js';

test.after(killAll);

/** Polls `read` until it resolves to something `done` accepts (the trace is written in the background). */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never saw ${what}`);
}

test('producerConnection lists the online producer; queryMsgTraceById shows the Pub and Sub records of a traced message', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  const topic = unique('CliTraced');
  const group = unique('PG_CLI_TRACED');
  const producer = new Producer({
    namesrvAddr: cluster.namesrvAddr,
    producerGroup: group,
    enableMsgTrace: true,
  });
  const consumer = new PushConsumer({
    namesrvAddr: cluster.namesrvAddr,
    consumerGroup: unique('CG_CLI_TRACED'),
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    enableMsgTrace: true,
    ...FAST,
  });
  try {
    await cluster.createTopic(topic, 2);
    await producer.start();
    const sent = await producer.send({ topic, body: 'traced', tags: 'TagA' });
    const n = ['-n', cluster.namesrvAddr];

    const conn = await runCli(['admin', 'producerConnection', ...n, '-g', group, '-t', topic, '--json']);
    assert.equal(conn.code, 0, conn.stderr);
    const listed = JSON.parse(conn.stdout) as { group: string; connections: Array<{ clientId: string }> };
    assert.equal(listed.group, group);
    assert.equal(listed.connections.length, 1);
    const table = await runCli(['admin', 'producerConnection', ...n, '-g', group, '-t', topic]);
    assert.match(table.stdout, /^#\s+#ClientId\s+#ClientAddr\s+#Language\s+#Version$/m);
    assert.match(
      table.stdout,
      new RegExp(`^0001\\s+${listed.connections[0]!.clientId.replace(/[.@]/g, '\\$&')}\\s`, 'm'),
    );
    assertOneLineError(
      await runCli(['admin', 'producerConnection', ...n, '-g', 'NoSuchGroup', '-t', topic]),
      1,
      /producer group NoSuchGroup is not online/,
    );

    await eventually(
      () => admin.messageTrace(sent.msgId),
      (r) => r.length > 0,
      'the Pub record',
    );
    const pub = await runCli(['admin', 'queryMsgTraceById', ...n, '-i', sent.msgId]);
    assert.equal(pub.code, 0, pub.stderr);
    assert.match(pub.stdout, /^#Type\s+#Group\s+#StoreHost\s+#Time\s+#CostTime\s+#Status$/m);
    assert.match(
      pub.stdout,
      new RegExp(`^Pub\\s+${group}\\s+127\\.0\\.0\\.1:\\d+\\s+.*\\d+ms\\s+success$`, 'm'),
    );

    consumer.subscribe(topic, '*');
    await consumer.start(() => undefined);
    await eventually(
      () => admin.messageTrace(sent.msgId),
      (r) => r.some((x) => x.type === 'SubAfter'),
      'the SubAfter record',
    );
    const all = await runCli(['admin', 'queryMsgTraceById', ...n, '-i', sent.msgId, '--json']);
    assert.equal(all.code, 0, all.stderr);
    const records = JSON.parse(all.stdout) as Array<{
      type: string;
      msgId?: string;
      topic?: string;
      success?: boolean;
    }>;
    const types = records.map((r) => r.type);
    assert.deepEqual([...new Set(types)].sort(), ['Pub', 'SubAfter', 'SubBefore']);
    const p = records.find((r) => r.type === 'Pub')!;
    assert.equal(p.msgId, sent.msgId);
    assert.equal(p.topic, topic);

    assertOneLineError(
      await runCli(['admin', 'queryMsgTraceById', ...n, '-i', '0A0000010000000000000000000000FF']),
      1,
      /no message found for trace of 0A0000010000000000000000000000FF/,
    );
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
    await admin.close();
    await cluster.stop();
  }
});
