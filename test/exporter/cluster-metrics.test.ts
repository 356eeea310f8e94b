/**
 * The Prometheus scrape of an embedded two-broker cluster with traffic: figures checked against
 * the Admin client's, through the library, the dashboard's `/metrics` and the headless exporter;
 * a broker killed mid-way; promtool's check of a real scrape.
 */
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { Dashboard } from '../../src/dashboard/server.js';
import { ClusterCollector } from '../../src/exporter/collector.js';
import { EXPOSITION_CONTENT_TYPE } from '../../src/exporter/exposition.js';
import { MetricsServer } from '../../src/exporter/metrics-server.js';
import { harness, unique, waitFor, type Harness } from '../consumer/helpers.js';
import { until } from '../dashboard/fixture.js';
import { promtoolProblems, samples } from './scrape.js';

const CONSUMED = 12;
/** What a scrape asks a broker (broker-b stops answering them). */
const ADMIN_CODES = [
  RequestCode.GET_BROKER_RUNTIME_INFO,
  RequestCode.GET_TOPIC_STATS_INFO,
  RequestCode.GET_CONSUME_STATS,
  RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
  RequestCode.GET_CONSUMER_CONNECTION_LIST,
  RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
  RequestCode.PULL_MESSAGE,
  RequestCode.VIEW_BROKER_STATS_DATA,
];
const LEFT = 5;

describe('scrape of an embedded cluster with a group that consumed part of a topic', () => {
  let h: Harness;
  let admin: Admin;
  const topic = unique('PromT');
  const group = unique('PromG');

  before(async () => {
    h = await harness({ brokers: 2, faultInjection: true });
    admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
    await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
    const got = new Set<string>();
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      got.add(m.msgId);
    });
    await h.send(topic, CONSUMED);
    await waitFor(() => got.size === CONSUMED, 'the first messages consumed');
    await until(async () => (await admin.consumerProgress(group, topic)).totalLag === 0, 'offsets committed');
    await c.shutdown();
    await h.send(topic, LEFT);
  });

  after(async () => {
    await admin.close();
    await h.close();
  });

  test('group diff, producer and consumer offsets agree with Admin', async () => {
    const collector = new ClusterCollector({ admin });
    const text = await collector.scrape();
    const progress = await admin.consumerProgress(group, topic);
    assert.equal(progress.totalLag, LEFT);
    const diff = samples(text, 'rocketmq_group_diff', { group, topic });
    assert.equal(diff.length, 1);
    assert.equal(diff[0]!.value, LEFT);
    assert.equal(diff[0]!.labels['countOfOnlineConsumers'], '0');
    assert.equal(diff[0]!.labels['msgModel'], '1');
    const produced = samples(text, 'rocketmq_producer_offset', { topic });
    assert.equal(
      produced.reduce((s, x) => s + x.value, 0),
      CONSUMED + LEFT,
    );
    const stats = await admin.topicStats(topic);
    for (const p of produced) {
      const max = stats.queues
        .filter((q) => q.brokerName === p.labels['broker'])
        .reduce((s, q) => s + q.maxOffset, 0);
      assert.equal(p.value, max, `producer offset on ${p.labels['broker']}`);
      assert.equal(p.labels['cluster'], 'DefaultCluster');
    }
    const consumed = samples(text, 'rocketmq_consumer_offset', { topic, group });
    assert.equal(
      consumed.reduce((s, x) => s + x.value, 0),
      CONSUMED,
    );
    const latency = samples(text, 'rocketmq_group_get_latency_by_storetime', { topic, group });
    assert.ok(latency.length > 0 && latency.some((l) => l.value > 0), 'unconsumed messages have an age');
    const brokers = samples(text, 'rocketmq_broker_tps');
    assert.deepEqual(brokers.map((b) => b.labels['broker']).sort(), ['broker-a', 'broker-b']);
    for (const b of brokers) assert.match(b.labels['brokerIP'] ?? '', /^127\.0\.0\.1:\d+$/);
    assert.equal(samples(text, 'rocketmq_group_count', { group })[0]?.value, 0);
    // TPS families are offset deltas between two scrapes: none on a collector's first scrape
    assert.equal(samples(text, 'rocketmq_producer_tps', { topic }).length, 0);
    await h.send(topic, 1);
    const second = await collector.scrape();
    const tps = samples(second, 'rocketmq_producer_tps', { topic });
    assert.equal(tps.length, 2);
    assert.ok(tps.every((t) => t.value >= 0));
    assert.ok(
      tps.some((t) => t.value > 0),
      'one broker got the new message',
    );
    await until(
      async () => (await admin.consumerProgress(group, topic)).totalLag === LEFT + 1,
      'lag settled',
    );
  });

  test('broker runtime gauges: the exporter’s names and labels, the values Admin.brokerRuntimeStats reads', async () => {
    const text = await new ClusterCollector({ admin }).scrape();
    const info = await admin.clusterInfo();
    for (const b of info.brokers) {
      const stats = await admin.brokerRuntimeStats(b.address);
      const one = (name: string) => {
        const found = samples(text, `rocketmq_brokeruntime_${name}`, { brokerIP: b.address });
        assert.equal(found.length, 1, `${name} of ${b.brokerName}`);
        return found[0]!;
      };
      const put = one('msg_put_total_today_now');
      assert.deepEqual(put.labels, {
        cluster: 'DefaultCluster',
        brokerIP: b.address,
        brokerHost: '',
        des: stats.version,
        boottime: String(stats.bootTimestamp),
        broker_version: stats.raw['brokerVersion'],
      });
      assert.equal(put.value, stats.msgPutTotalTodayNow);
      assert.ok(put.value > 0, 'messages were put');
      // the scrape itself reads messages (the latency stage), so the get counter only grows after it
      const got = one('msg_gettotal_today_now').value;
      assert.ok(got > 0 && got <= stats.msgGetTotalTodayNow, `${got} <= ${stats.msgGetTotalTodayNow}`);
      assert.equal(one('msg_puttotal_todaymorning').value, stats.msgPutTotalTodayMorning);
      assert.equal(one('msg_gettotal_yesterdaymorning').value, stats.msgGetTotalYesterdayMorning);
      assert.equal(one('commitlog_minoffset').value, stats.commitLogMinOffset);
      assert.equal(one('commitlog_maxoffset').value, stats.commitLogMaxOffset);
      assert.equal(one('earliest_message_timestamp').value, Number(stats.raw['earliestMessageTimeStamp']));
      if (stats.commitLogDiskRatio !== undefined) {
        const ratio = one('commitlog_disk_ratio').value;
        assert.ok(ratio >= 0 && ratio <= 1, String(ratio));
      }
      // TPS windows: one gauge per window the broker has samples for, never negative
      for (const prefix of ['put_tps', 'gettransfered_tps'])
        for (const w of [10, 60, 600]) {
          const found = samples(text, `rocketmq_brokeruntime_${prefix}${w}`, { brokerIP: b.address });
          assert.ok(found.length <= 1 && found.every((x) => x.value >= 0), `${prefix}${w}`);
        }
    }
  });

  test('a real scrape passes promtool check metrics (exporter-name lints aside)', async (t) => {
    const text = await new ClusterCollector({ admin }).scrape();
    const problems = promtoolProblems(text);
    if (problems === undefined) return t.skip('promtool not installed');
    assert.deepEqual(problems, []);
  });

  test('the dashboard serves GET /metrics behind its own basic auth', async () => {
    const dashboard = new Dashboard({ admin, port: 0, auth: { user: 'ops', password: 'pw' } });
    const base = await dashboard.start();
    try {
      const denied = await fetch(`${base}metrics`);
      assert.equal(denied.status, 401);
      await denied.text();
      const r = await fetch(`${base}metrics`, {
        headers: { authorization: `Basic ${Buffer.from('ops:pw').toString('base64')}` },
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), EXPOSITION_CONTENT_TYPE);
      const text = await r.text();
      assert.equal(samples(text, 'rocketmq_group_diff', { group, topic })[0]?.value, LEFT + 1);
    } finally {
      await dashboard.close();
    }
  });

  test('the headless exporter serves /metrics and an index, and refuses a foreign Host', async () => {
    const server = new MetricsServer({ namesrvAddr: h.cluster.namesrvAddr, port: 0 });
    const base = await server.start();
    try {
      const r = await fetch(`${base}metrics`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), EXPOSITION_CONTENT_TYPE);
      assert.ok(samples(await r.text(), 'rocketmq_producer_offset', { topic }).length > 0);
      const index = await fetch(base);
      assert.match(await index.text(), /\/metrics/);
      const missing = await fetch(`${base}nothing`);
      assert.equal(missing.status, 404);
      await missing.text();
      // a DNS-rebinding page would send its own host name
      const foreign = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: server.port, path: '/metrics', headers: { host: 'evil.example:80' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      assert.equal(foreign, 403);
    } finally {
      await server.close();
    }
  });

  // last: it takes a broker down (refusing every connection while the NameServer still lists it)
  test('a broker that answers runtime info with SYSTEM_ERROR (a real 4.9 broker in its first second) is not down', async () => {
    const collector = new ClusterCollector({ admin });
    h.cluster.broker('broker-b').faults.set({
      errorCode: ResponseCode.SYSTEM_ERROR,
      requestCodes: [RequestCode.GET_BROKER_RUNTIME_INFO],
    });
    try {
      const text = await collector.scrape();
      assert.deepEqual(
        samples(text, 'rocketmq_broker_tps').map((s) => s.labels['broker']),
        ['broker-a'],
      );
      // everything else broker-b serves is still scraped
      assert.equal(samples(text, 'rocketmq_producer_offset', { broker: 'broker-b', topic }).length, 1, text);
      assert.equal(
        samples(text, 'rocketmq_consumer_offset', { broker: 'broker-b', topic, group }).length,
        1,
        text,
      );
      assert.deepEqual(collector.scrapeErrors(), [{ broker: 'broker-b', stage: 'runtime_stats', count: 1 }]);
    } finally {
      h.cluster.broker('broker-b').faults.clear();
    }
  });

  test('a broker down: 200, its series absent, scrape errors counted across scrapes', async () => {
    // a silent broker: each of its requests waits out the Admin's request timeout
    const dashboard = new Dashboard({ namesrvAddr: h.cluster.namesrvAddr, port: 0, requestTimeout: 500 });
    const base = await dashboard.start();
    try {
      h.cluster.broker('broker-b').faults.set({ hang: true, requestCodes: ADMIN_CODES });
      const first = await fetch(`${base}metrics`);
      assert.equal(first.status, 200);
      const text = await first.text();
      assert.deepEqual(
        samples(text, 'rocketmq_broker_tps').map((s) => s.labels['broker']),
        ['broker-a'],
      );
      for (const name of ['rocketmq_producer_offset', 'rocketmq_consumer_offset', 'rocketmq_broker_qps'])
        assert.equal(samples(text, name, { broker: 'broker-b' }).length, 0, name);
      assert.ok(samples(text, 'rocketmq_producer_offset', { broker: 'broker-a', topic }).length === 1);
      const errors = (t: string): number =>
        samples(t, 'rocketmq_exporter_scrape_errors_total', { broker: 'broker-b', stage: 'runtime_stats' })[0]
          ?.value ?? 0;
      assert.equal(errors(text), 1);
      const again = await fetch(`${base}metrics`);
      assert.equal(again.status, 200);
      assert.equal(errors(await again.text()), 2);
    } finally {
      h.cluster.broker('broker-b').faults.clear();
      await dashboard.close();
    }
  });
});
