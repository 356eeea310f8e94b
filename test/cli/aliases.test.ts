/**
 * The first rocketmq-ts names of three mqadmin commands still work: `topic create`, `cluster-info`
 * and `route` print what `admin updateTopic`, `admin clusterList` and `admin topicRoute -l` print,
 * and their `--json` keeps the NameServer-body shape they always printed.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { unique } from '../consumer/helpers.js';
import { killAll, runCli } from './run-cli.js';

test.after(killAll);

async function ok(args: string[]): Promise<string> {
  const r = await runCli(args);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('topic create, cluster-info and route are their admin twins with compatible --json', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const ns = cluster.namesrvAddr;
  try {
    const topic = unique('CliAlias');
    const created = await ok(['topic', 'create', '--namesrv', ns, '--topic', topic, '--queues', '3']);
    assert.equal(created.match(/^create topic to 127\.0\.0\.1:\d+ success\.$/gm)?.length, 2);
    assert.match(created, /readQueueNums=3, writeQueueNums=3, perm=RW-/);
    for (const b of cluster.brokers) assert.equal(b.broker.topics.get(topic)?.readQueueNums, 3);

    const only = unique('CliAliasC');
    const inCluster = await ok([
      'topic',
      'create',
      '--namesrv',
      ns,
      '--topic',
      only,
      '--cluster',
      'DefaultCluster',
    ]);
    assert.equal(inCluster.match(/success\./g)?.length, 2);

    const twinList = await ok(['admin', 'clusterList', '-n', ns]);
    const aliasList = await ok(['cluster-info', '--namesrv', ns]);
    const header = (s: string) => s.split('\n')[0];
    assert.equal(header(aliasList), header(twinList));
    assert.equal(aliasList.trim().split('\n').length, 3, 'a header and one row per broker');
    const info = JSON.parse(await ok(['cluster-info', '--namesrv', ns, '--json'])) as {
      clusterAddrTable: Record<string, string[]>;
      brokerAddrTable: Record<string, { brokerAddrs: Record<string, string> }>;
    };
    assert.deepEqual(info.clusterAddrTable, { DefaultCluster: ['broker-a', 'broker-b'] });
    assert.equal(info.brokerAddrTable['broker-a']?.brokerAddrs['0'], cluster.brokers[0]!.addr);

    const aliasRoute = await ok(['route', '--namesrv', ns, '--topic', topic]);
    assert.equal(aliasRoute, await ok(['admin', 'topicRoute', '-n', ns, '-t', topic, '-l']));
    assert.match(aliasRoute, /^Total:\s+2\s+6\s+6/m);
    const route = JSON.parse(await ok(['route', '--namesrv', ns, '--topic', topic, '--json'])) as {
      brokerDatas: Array<{ brokerName: string; brokerAddrs: Record<string, string> }>;
      queueDatas: Array<{ brokerName: string; readQueueNums: number; perm: number }>;
    };
    assert.deepEqual(route.brokerDatas.map((b) => b.brokerName).sort(), ['broker-a', 'broker-b']);
    assert.deepEqual(
      route.queueDatas.map((q) => [q.readQueueNums, q.perm]),
      [
        [3, 6],
        [3, 6],
      ],
    );
  } finally {
    await cluster.stop();
  }
});
