/**
 * `rocketmq-ts admin <command>` against an embedded cluster with traffic: the numbers the CLI
 * prints (tables and --json) match what was sent and consumed; bad input is one error line.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { harness, unique, waitFor } from '../consumer/helpers.js';
import { assertOneLineError, killAll, runCli } from './run-cli.js';

test.after(killAll);

const N = 12;

/** `['-n', A, command, ...]` or `[command, '-n', A, ...]` → `admin command -n A ...`. */
function adminArgs(args: string[]): string[] {
  return args[0] === '-n' ? ['admin', args[2]!, args[0], args[1]!, ...args.slice(3)] : ['admin', ...args];
}

async function json(args: string[]): Promise<unknown> {
  const r = await runCli([...adminArgs(args), '--json']);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown;
}

async function text(args: string[]): Promise<string> {
  const r = await runCli(adminArgs(args));
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('admin commands on an embedded cluster with a producer and a push consumer', async () => {
  const h = await harness({ brokers: 2 });
  const n = ['-n', h.cluster.namesrvAddr];
  try {
    const topic = unique('CliT');
    const group = unique('CliG');
    const created = await text([
      ...n,
      'updateTopic',
      '-t',
      topic,
      '-c',
      'DefaultCluster',
      '-r',
      '2',
      '-w',
      '2',
    ]);
    assert.equal(created.match(/create topic to .* success\./g)?.length, 2);
    assert.match(created, /readQueueNums=2, writeQueueNums=2, perm=RW-/);

    const got: ConsumerMessage[] = [];
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      got.push(m);
    });
    const sent = [];
    for (let i = 0; i < N; i++) sent.push(await h.producer.send({ topic, body: `b${i}`, keys: `key${i}` }));
    await waitFor(() => new Set(got.map((m) => m.msgId)).size === N, 'consumed');

    const cluster = (await json(['clusterList', ...n])) as Array<{
      brokerName: string;
      stats: { version: string };
    }>;
    assert.equal(cluster.length, 2);
    assert.match(await text(['clusterList', ...n]), /#Cluster Name\s+#Broker Name\s+#BID\s+#Addr/);
    const brokerStatus = await text(['brokerStatus', ...n, '-b', h.cluster.brokers[0]!.addr]);
    assert.match(brokerStatus, /^brokerVersionDesc\s+: V/m);

    assert.ok(((await json(['topicList', ...n])) as string[]).includes(topic));
    const routeTable = await text(['topicRoute', ...n, '-t', topic, '-l']);
    assert.match(routeTable, /^Total:\s+2\s+4\s+4/m);
    const status = (await json(['topicStatus', ...n, '-t', topic])) as {
      queues: Array<{ maxOffset: number }>;
    };
    assert.equal(
      status.queues.reduce((s, q) => s + q.maxOffset, 0),
      N,
    );
    assert.match(
      await text(['topicStatus', ...n, '-t', topic]),
      /#Broker Name\s+#QID\s+#Min Offset\s+#Max Offset/,
    );

    // Lag reaches 0 once the consumer commits; the table's Diff Total says the same.
    let progress = (await json(['consumerProgress', ...n, '-g', group])) as {
      totalLag: number;
      queues: Array<{ consumerOffset: number }>;
    };
    const deadline = Date.now() + 10_000;
    while (progress.totalLag > 0 || progress.queues.reduce((s, q) => s + q.consumerOffset, 0) < N) {
      if (Date.now() > deadline) assert.fail('lag did not reach 0');
      await new Promise((r) => setTimeout(r, 200));
      progress = (await json(['consumerProgress', ...n, '-g', group])) as typeof progress;
    }
    assert.match(await text(['consumerProgress', ...n, '-g', group]), /^Diff Total: 0$/m);
    const all = (await json(['consumerProgress', ...n])) as Array<{ group: string; members: number }>;
    assert.equal(all.find((g) => g.group === group)?.members, 1);

    const conn = await text(['consumerConnection', ...n, '-g', group]);
    assert.match(conn, /^MessageModel: CLUSTERING$/m);
    assert.match(conn, new RegExp(`^${topic}\\s+\\*$`, 'm'));
    const statusInfo = (await json(['consumerStatus', ...n, '-g', group])) as Array<{ clientId: string }>;
    assert.equal(statusInfo.length, 1);

    const byKey = (await json(['queryMsgByKey', ...n, '-t', topic, '-k', 'key3'])) as Array<{
      msgId: string;
      body: string;
    }>;
    assert.equal(byKey[0]?.body, 'b3', 'bodies print as text in --json');
    assert.deepEqual(
      byKey.map((m) => m.msgId),
      [sent[3]!.msgId],
    );
    const byId = await text(['queryMsgById', ...n, '-i', sent[2]!.offsetMsgId]);
    assert.match(byId, /^Message Body:\s+b2$/m);
    const one = (await json(['queryMsgById', ...n, '-i', sent[2]!.offsetMsgId])) as {
      queueId: number;
      queueOffset: number;
    };
    const brokerName = (await json(['queryMsgById', ...n, '-i', sent[2]!.offsetMsgId])) as {
      storeHost: string;
    };
    const b = h.cluster.brokers.find((x) => x.addr === brokerName.storeHost)!;
    const byOffset = await text([
      ...n,
      'queryMsgByOffset',
      '-t',
      topic,
      '-b',
      b.name,
      '-i',
      String(one.queueId),
      '-o',
      String(one.queueOffset),
    ]);
    assert.match(byOffset, new RegExp(`^OffsetID:\\s+${sent[2]!.offsetMsgId}$`, 'm'));

    // Reset while the member runs: forced by default, as in mqadmin; refused with -f false.
    assertOneLineError(
      await runCli(['admin', 'resetOffsetByTime', ...n, '-g', group, '-t', topic, '-s', '0', '-f', 'false']),
      1,
      /live member/,
    );
    const before = got.length;
    const reset = (await json(['resetOffsetByTime', ...n, '-g', group, '-t', topic, '-s', '0'])) as Array<{
      offset: number;
    }>;
    assert.equal(reset.length, 4);
    await waitFor(() => got.length >= before + N, 'reconsumed after reset');

    // Subscription groups and broker config.
    const sg = unique('CliSub');
    assert.match(
      await text(['updateSubGroup', ...n, '-g', sg, '-c', 'DefaultCluster', '-r', '5']),
      /retryMaxTimes=5/,
    );
    assert.match(
      await text(['deleteSubGroup', ...n, '-g', sg, '-c', 'DefaultCluster']),
      /delete subscription group/,
    );
    const addr = h.cluster.brokers[0]!.addr;
    await text(['updateBrokerConfig', ...n, '-b', addr, '-k', 'maxMessageSize', '-v', '2222222']);
    assert.match(await text(['getBrokerConfig', ...n, '-b', addr]), /^maxMessageSize\s+=\s+2222222$/m);

    assert.match(
      await text(['deleteTopic', ...n, '-t', topic, '-c', 'DefaultCluster']),
      /from NameServer success/,
    );
    assertOneLineError(await runCli(['admin', 'topicStatus', ...n, '-t', topic]), 1, /ERR_TOPIC_NOT_FOUND/);
  } finally {
    await h.close();
  }
});

test('admin commands reject bad input with one error line naming the flag', async () => {
  assertOneLineError(await runCli(['admin', 'topicStatus', '-n', '127.0.0.1:1']), 2, /--topic/);
  assertOneLineError(await runCli(['admin', 'topicList'], { NAMESRV_ADDR: '' }), 2, /--namesrv/);
  assertOneLineError(await runCli(['admin', 'updateTopic', '-n', '127.0.0.1:1', '-t', 'T']), 2, /--broker/);
  assertOneLineError(
    await runCli([
      'admin',
      'resetOffsetByTime',
      '-n',
      '127.0.0.1:1',
      '-g',
      'G',
      '-t',
      'T',
      '-s',
      'yesterday',
    ]),
    2,
    /--timestamp/,
  );
  assertOneLineError(
    await runCli(['admin', 'updateTopic', '-n', '127.0.0.1:1', '-t', 'T', '-c', 'C', '-o', 'maybe']),
    2,
    /--order/,
  );
});
