/**
 * (a) The real Java client and tools against OUR embedded cluster (src/server/cluster.ts), for
 * every interop version: a Java producer's sync, batch and compressed messages reach a Java push
 * consumer with every field intact, and mqadmin's clusterList / topicRoute work against our
 * NameServer.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseFastjson } from '../src/protocol/fastjson.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import {
  INTEROP_VERSIONS,
  describeConsume,
  prepareInterop,
  runDriver,
  runMqadmin,
  type ClusterListResult,
  type ConsumeResult,
  type ProduceResult,
  type TopicRouteResult,
  consumeWithJava,
} from './java.js';

describe('the Java client and mqadmin against our embedded cluster', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 600_000, concurrency: 1 }, () => {
      let cluster: EmbeddedCluster;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
      const topic = `interop_emb_${run}`;

      before(async () => {
        prepareInterop();
        cluster = await EmbeddedCluster.start({ brokers: 2 });
      });

      after(async () => {
        await cluster?.stop();
      });

      function produce(
        t: string,
        count: number,
        start: number,
        extra: string[] = [],
      ): Promise<ProduceResult> {
        return runDriver<ProduceResult>(version, [
          'produce',
          '--namesrv',
          cluster.namesrvAddr,
          '--topic',
          t,
          '--count',
          String(count),
          '--start',
          String(start),
          ...extra,
        ]);
      }

      function consume(t: string, expect: number, extra: string[] = []): Promise<ConsumeResult> {
        return consumeWithJava(version, cluster.namesrvAddr, t, expect, 60000, extra);
      }

      it('a Java producer sends sync and batch messages that a Java consumer reads back intact', async () => {
        const single = await produce(topic, 40, 0);
        assert.equal(single.failed, 0, single.errors.join('\n'));
        assert.equal(single.sent, 40);
        assert.deepEqual(single.notOkStatuses, []);
        const batch = await produce(topic, 20, 40, ['--batch', '10']);
        assert.equal(batch.failed, 0, batch.errors.join('\n'));
        assert.equal(batch.sent, 20);

        const r = await consume(topic, 60);
        assert.equal(r.received, 60, describeConsume(r));
        assert.deepEqual(r.missing, []);
        assert.deepEqual(r.corrupt, [], describeConsume(r));
        assert.deepEqual(r.duplicates, []);
        assert.deepEqual(r.unexpected, []);
        const produced = [...single.msgIds, ...batch.msgIds];
        for (let seq = 0; seq < 60; seq++)
          assert.equal(r.ids[String(seq)], produced[seq], `msgId of seq ${seq}`);
        const brokersSeen = new Set(r.messages.map((m) => m.brokerName));
        assert.ok(brokersSeen.size >= 1);
        for (const m of r.messages) {
          assert.ok(
            cluster.brokers.some((b) => m.storeHost.endsWith(b.addr.replace('127.0.0.1', ''))),
            `storeHost ${m.storeHost} is one of our brokers`,
          );
        }
      });

      it('a compressed Java message (>= 4 KiB) is stored by our broker and inflated by the Java consumer', async () => {
        const t = `${topic}_z`;
        const p = await produce(t, 5, 0, ['--size', '8192']);
        assert.equal(p.failed, 0, p.errors.join('\n'));
        const r = await consume(t, 5, ['--size', '8192']);
        assert.equal(r.received, 5, describeConsume(r));
        assert.deepEqual(r.corrupt, [], describeConsume(r));
        for (const m of r.messages) assert.equal(m.bodyLen, 8192);
      });

      it('DefaultMQAdminExt lists our cluster and the route of a topic', async () => {
        const list = await runDriver<ClusterListResult>(version, [
          'admin',
          'clusterList',
          '--namesrv',
          cluster.namesrvAddr,
        ]);
        assert.deepEqual(list.clusters.DefaultCluster, cluster.brokers.map((b) => b.name).sort());
        for (const b of cluster.brokers) assert.equal(list.brokers[b.name]?.brokerAddrs['0'], b.addr);

        await cluster.createTopic(`${topic}_route`, 4);
        const route = await runDriver<TopicRouteResult>(version, [
          'admin',
          'topicRoute',
          '--namesrv',
          cluster.namesrvAddr,
          '--topic',
          `${topic}_route`,
        ]);
        assert.deepEqual(
          route.brokerDatas.map((b) => b.brokerName).sort(),
          cluster.brokers.map((b) => b.name).sort(),
        );
        for (const q of route.queueDatas) {
          assert.equal(q.readQueueNums, 4);
          assert.equal(q.writeQueueNums, 4);
          assert.equal(q.perm, 6);
        }
      });

      it('mqadmin clusterList and topicRoute run against our NameServer', async () => {
        const list = await runMqadmin(version, ['clusterList', '-n', cluster.namesrvAddr]);
        assert.equal(list.code, 0, list.stderr.slice(-2000));
        for (const b of cluster.brokers) {
          assert.ok(list.stdout.includes(b.name), `clusterList shows ${b.name}:\n${list.stdout}`);
          assert.ok(list.stdout.includes(b.addr), `clusterList shows ${b.addr}:\n${list.stdout}`);
        }
        assert.ok(list.stdout.includes('DefaultCluster'));

        await cluster.createTopic(`${topic}_mq`, 2);
        const route = await runMqadmin(version, [
          'topicRoute',
          '-n',
          cluster.namesrvAddr,
          '-t',
          `${topic}_mq`,
        ]);
        assert.equal(route.code, 0, route.stderr.slice(-2000));
        const json = route.stdout.slice(route.stdout.indexOf('{'), route.stdout.lastIndexOf('}') + 1);
        const parsed = parseFastjson(json) as TopicRouteResult;
        assert.deepEqual(
          parsed.brokerDatas.map((b) => b.brokerName).sort(),
          cluster.brokers.map((b) => b.name).sort(),
        );
        for (const q of parsed.queueDatas) assert.equal(q.writeQueueNums, 2);
      });
    });
  }
});
