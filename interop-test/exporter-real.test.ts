/**
 * The Prometheus collector against real Apache RocketMQ: our producer sends N messages, our
 * consumer consumes M of them; a scrape answers, passes promtool when it is installed, and its
 * `rocketmq_group_diff` and `rocketmq_producer_offset` agree with the Admin client. One broker.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import { ClusterCollector } from '../src/exporter/collector.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import { Producer } from '../src/producer/producer.js';
import { promtoolProblems, samples } from '../test/exporter/scrape.js';
import { INTEROP_VERSIONS } from './java.js';
import { RealCluster } from './real-cluster.js';

const CONSUMED = 8;
const LEFT = 4;

async function waitUntil(cond: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond().catch(() => false))) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Prometheus scrape of a real cluster', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(`real RocketMQ ${version}`, { timeout: 300_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let admin: Admin;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
      const topic = `prom_ts_${run}`;
      const group = `prom_ts_g_${run}`;

      before(async () => {
        cluster = await RealCluster.start({ version, brokers: ['broker-a'] });
        admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
        await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
        const producer = new Producer({ producerGroup: `${group}_P`, namesrvAddr: cluster.namesrvAddr });
        await producer.start();
        const consumer = new PushConsumer({
          consumerGroup: group,
          namesrvAddr: cluster.namesrvAddr,
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
          for (let i = 0; i < CONSUMED; i++) await producer.send({ topic, body: `prom-${i}` });
          await waitUntil(() => Promise.resolve(seen.size >= CONSUMED), 'the first messages consumed');
        } finally {
          await consumer.shutdown();
        }
        await waitUntil(
          async () => (await admin.consumerProgress(group, topic)).totalLag === 0,
          'offsets committed',
        );
        for (let i = 0; i < LEFT; i++) await producer.send({ topic, body: `left-${i}` });
        await producer.shutdown();
        // a 4.9 broker answers GET_BROKER_RUNTIME_INFO with SYSTEM_ERROR until its first TPS sample
        await waitUntil(
          async () => (await admin.brokerRuntimeStats('broker-a')).putTps.length === 3,
          'runtime stats',
        );
      });
      after(async () => {
        await admin?.close();
        await cluster?.stop();
      });

      it('group diff and producer offset agree with Admin; promtool accepts the scrape', async (t) => {
        const collector = new ClusterCollector({ admin });
        const text = await collector.scrape();
        const why = `${text}\nscrape errors: ${JSON.stringify(collector.scrapeErrors())}`;
        const progress = await admin.consumerProgress(group, topic);
        assert.equal(progress.totalLag, LEFT);
        assert.equal(samples(text, 'rocketmq_group_diff', { group, topic })[0]?.value, LEFT, text);
        const stats = await admin.topicStats(topic);
        const produced = samples(text, 'rocketmq_producer_offset', { topic, broker: 'broker-a' });
        assert.equal(
          produced[0]?.value,
          stats.queues.reduce((s, q) => s + q.maxOffset, 0),
        );
        assert.equal(produced[0]?.value, CONSUMED + LEFT);
        assert.equal(samples(text, 'rocketmq_broker_tps', { broker: 'broker-a' }).length, 1, why);
        // the runtime gauges, from the same GET_BROKER_RUNTIME_INFO as Admin reads
        const runtime = await admin.brokerRuntimeStats('broker-a');
        const put = samples(text, 'rocketmq_brokeruntime_msg_put_total_today_now');
        assert.equal(put.length, 1, why);
        assert.deepEqual(put[0]!.labels, {
          cluster: 'DefaultCluster',
          brokerIP: runtime.address,
          brokerHost: '',
          des: runtime.version,
          boottime: String(runtime.bootTimestamp),
          // a 5.x broker sends no brokerVersion key
          broker_version: runtime.raw['brokerVersion'] ?? '',
        });
        assert.equal(put[0]!.value, runtime.msgPutTotalTodayNow);
        assert.ok(put[0]!.value >= CONSUMED + LEFT);
        for (const name of ['commitlog_maxoffset', 'commitlog_disk_ratio', 'earliest_message_timestamp'])
          assert.equal(samples(text, `rocketmq_brokeruntime_${name}`).length, 1, `${name}\n${why}`);
        // a young broker has no samples yet for some TPS windows: at most one sample each
        for (const w of [10, 60, 600])
          assert.ok(samples(text, `rocketmq_brokeruntime_put_tps${w}`).length <= 1, `put_tps${w}`);
        assert.equal(
          samples(text, 'rocketmq_brokeruntime_commitlog_maxoffset')[0]!.value,
          runtime.commitLogMaxOffset,
        );
        // a real broker counts bytes put per topic (VIEW_BROKER_STATS_DATA TOPIC_PUT_SIZE)
        assert.equal(samples(text, 'rocketmq_producer_message_size', { topic }).length, 1, text);
        const problems = promtoolProblems(text);
        if (problems === undefined) return t.skip('promtool not installed');
        assert.deepEqual(problems, []);
      });
    });
  }
});
