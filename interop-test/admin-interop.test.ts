/**
 * The Admin client and Apache `mqadmin` read the same numbers, both ways round: our Admin against
 * a real Apache RocketMQ cluster (clusterInfo, createTopic, topicStats, consumerProgress compared
 * with clusterList / topicRoute / topicStatus / consumerProgress), and mqadmin against our
 * embedded cluster (topicStatus, consumerProgress, brokerStatus, queryMsgByKey compared with the
 * Admin client). Same numbers, not the same formatting. One broker per cluster to stay short.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import type { ConsumerProgress, TopicStats } from '../src/admin/types.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import { Producer } from '../src/producer/producer.js';
import { parseFastjson } from '../src/protocol/fastjson.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { INTEROP_VERSIONS, runMqadmin, type TopicRouteResult } from './java.js';
import { RealCluster } from './real-cluster.js';

const N = 10;

/** Rows of an mqadmin table whose first cell is `first`, split on blanks. */
function rowsStartingWith(stdout: string, first: string): string[][] {
  return stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((cells) => cells[0] === first);
}

async function mqadmin(version: string, args: string[]): Promise<string> {
  const r = await runMqadmin(version, args);
  assert.equal(r.code, 0, `mqadmin ${args.join(' ')}:\n${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** Our producer sends N keyed messages; our push consumer consumes them and commits; then it stops. */
async function traffic(namesrvAddr: string, topic: string, group: string): Promise<void> {
  const producer = new Producer({ producerGroup: `${group}_P`, namesrvAddr });
  await producer.start();
  const consumer = new PushConsumer({
    consumerGroup: group,
    namesrvAddr,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    persistConsumerOffsetInterval: 200,
    rebalanceInterval: 1000,
  });
  try {
    const seen = new Set<string>();
    consumer.subscribe(topic, '*');
    await consumer.start((m) => {
      seen.add(m.msgId);
    });
    for (let i = 0; i < N; i++) await producer.send({ topic, body: `admin-${i}`, keys: `akey${i}` });
    const deadline = Date.now() + 60_000;
    while (seen.size < N) {
      if (Date.now() > deadline) assert.fail(`consumed ${seen.size} of ${N}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    // Shutdown persists the offsets, so both tools read the same committed numbers afterwards.
    await consumer.shutdown();
    await producer.shutdown();
  }
}

function assertProgressMatches(stdout: string, ours: ConsumerProgress, topic: string): void {
  const rows = rowsStartingWith(stdout, topic);
  const mine = ours.queues.filter((q) => q.topic === topic);
  assert.equal(rows.length, mine.length, stdout);
  for (const q of mine) {
    const row = rows.find((r) => r[1] === q.brokerName && r[2] === String(q.queueId));
    assert.ok(row, `mqadmin has no row for ${q.brokerName}/${q.queueId}:\n${stdout}`);
    assert.equal(Number(row[3]), q.brokerOffset, `broker offset ${q.brokerName}/${q.queueId}`);
    assert.equal(Number(row[4]), q.consumerOffset, `consumer offset ${q.brokerName}/${q.queueId}`);
  }
  const total = /Diff Total:\s*(\d+)/.exec(stdout);
  assert.equal(Number(total?.[1]), ours.totalLag, stdout);
}

function assertTopicStatusMatches(stdout: string, ours: TopicStats): void {
  for (const q of ours.queues) {
    const row = rowsStartingWith(stdout, q.brokerName).find((r) => r[1] === String(q.queueId));
    assert.ok(row, `mqadmin topicStatus has no row for ${q.brokerName}/${q.queueId}:\n${stdout}`);
    assert.equal(Number(row[2]), q.minOffset);
    assert.equal(Number(row[3]), q.maxOffset);
  }
}

describe('Admin and mqadmin agree', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(`Admin against real RocketMQ ${version}`, { timeout: 300_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let admin: Admin;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
      const topic = `admin_ts_${run}`;
      const group = `admin_ts_g_${run}`;

      before(async () => {
        cluster = await RealCluster.start({ version, brokers: ['broker-a'] });
        admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
      });
      after(async () => {
        await admin?.close();
        await cluster?.stop();
      });

      it('clusterInfo and createTopic match clusterList and topicRoute', async () => {
        const info = await admin.clusterInfo();
        // A 4.9.7 broker answers GET_BROKER_RUNTIME_INFO with SYSTEM_ERROR (NoSuchElementException
        // from its empty stats list) until its first stats sample, a few seconds after start.
        const runtimeStats = async (address: string) => {
          for (let i = 0; ; i++) {
            try {
              return await admin.brokerRuntimeStats(address);
            } catch (err) {
              if (i >= 20) throw err;
              await new Promise((r) => setTimeout(r, 1000));
            }
          }
        };
        const stats = await Promise.all(info.brokers.map((b) => runtimeStats(b.address)));
        // mqadmin prints an empty row when its own runtime-info request times out (a loaded CI
        // machine): ask it again, a few times, rather than compare against a blank.
        let list = '';
        for (let i = 0; i < 3; i++) {
          list = await mqadmin(version, ['clusterList', '-n', cluster.namesrvAddr]);
          if (stats.every((s) => list.includes(s.version))) break;
        }
        info.brokers.forEach((b, i) => {
          assert.ok(list.includes(b.address), list);
          assert.ok(list.includes(stats[i]!.version), `${stats[i]!.version} in\n${list}`);
        });
        const written = await admin.createTopic({
          topic,
          readQueues: 3,
          writeQueues: 3,
          cluster: 'DefaultCluster',
        });
        assert.equal(written.length, 1);
        const out = await mqadmin(version, ['topicRoute', '-n', cluster.namesrvAddr, '-t', topic]);
        const route = parseFastjson(
          out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1),
        ) as TopicRouteResult;
        assert.deepEqual(
          route.queueDatas.map((q) => [q.brokerName, q.readQueueNums, q.writeQueueNums, q.perm]),
          [['broker-a', 3, 3, 6]],
        );
      });

      it('topicStats and consumerProgress match topicStatus and consumerProgress', async () => {
        await traffic(cluster.namesrvAddr, topic, group);
        const stats = await admin.topicStats(topic);
        assert.equal(
          stats.queues.reduce((s, q) => s + q.maxOffset, 0),
          N,
        );
        assertTopicStatusMatches(
          await mqadmin(version, ['topicStatus', '-n', cluster.namesrvAddr, '-t', topic]),
          stats,
        );
        const progress = await admin.consumerProgress(group, topic);
        assert.equal(progress.totalLag, 0);
        assertProgressMatches(
          await mqadmin(version, ['consumerProgress', '-n', cluster.namesrvAddr, '-g', group]),
          progress,
          topic,
        );
      });
    });

    describe(`mqadmin ${version} against the embedded cluster`, { timeout: 300_000, concurrency: 1 }, () => {
      let cluster: EmbeddedCluster;
      let admin: Admin;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
      const topic = `admin_emb_${run}`;
      const group = `admin_emb_g_${run}`;

      before(async () => {
        cluster = await EmbeddedCluster.start({ brokers: 1 });
        admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
        await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
        await traffic(cluster.namesrvAddr, topic, group);
      });
      after(async () => {
        await admin?.close();
        await cluster?.stop();
      });

      it('topicStatus, consumerProgress, brokerStatus and queryMsgByKey read what Admin reads', async () => {
        const n = cluster.namesrvAddr;
        assertTopicStatusMatches(
          await mqadmin(version, ['topicStatus', '-n', n, '-t', topic]),
          await admin.topicStats(topic),
        );
        assertProgressMatches(
          await mqadmin(version, ['consumerProgress', '-n', n, '-g', group]),
          await admin.consumerProgress(group, topic),
          topic,
        );
        const addr = cluster.brokers[0]!.addr;
        const status = await mqadmin(version, ['brokerStatus', '-n', n, '-b', addr]);
        const stats = await admin.brokerRuntimeStats(addr);
        assert.match(status, new RegExp(`commitLogMaxOffset\\s*:\\s*${stats.commitLogMaxOffset}\\b`));
        const byKey = await mqadmin(version, ['queryMsgByKey', '-n', n, '-t', topic, '-k', 'akey4']);
        const [ours] = await admin.queryMessagesByKey(topic, 'akey4');
        assert.ok(byKey.includes(ours!.msgId), byKey);
      });
    });
  }
});
