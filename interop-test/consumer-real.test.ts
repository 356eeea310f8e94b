/**
 * OUR PushConsumer against a real Apache RocketMQ cluster, for every interop version (one cluster
 * per version, started with `enablePropertyFilter=true`): the Java producer's messages arrive
 * with every field intact; our consumer and the Java push consumer share one group's queues with
 * no queue held twice and none orphaned; `mqadmin consumerProgress` shows our group's lag; a
 * SQL92 subscription is filtered by the real broker.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PushConsumer, type ConsumerMessage, type PushConsumerOptions } from '../src/consumer/index.js';
import type { Producer } from '../src/producer/producer.js';
import { interopProducer } from './our-clients.js';
import { detBody, detKeyList, detTags, detUserProperties } from './deterministic.js';
import { INTEROP_VERSIONS, pushWithJava, runDriver, runMqadmin, type ProduceResult } from './java.js';
import { RealCluster } from './real-cluster.js';

/** Consumer settings that make a test group settle in about a second instead of 20 s. */
const QUICK: Partial<PushConsumerOptions> = {
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  rebalanceInterval: 1000,
  persistConsumerOffsetInterval: 1000,
  pollNameServerInterval: 1000,
  heartbeatBrokerInterval: 2000,
};

async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const queueKey = (q: { topic: string; brokerName: string; queueId: number }): string =>
  `${q.topic}@${q.brokerName}@${q.queueId}`;

describe('our consumer against real RocketMQ', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 300_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let producer: Producer;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
      const consumers: PushConsumer[] = [];

      function consumer(group: string): PushConsumer {
        const c = new PushConsumer({
          ...QUICK,
          namesrvAddr: cluster.namesrvAddr,
          consumerGroup: group,
          instanceName: `interop_${group}`,
        });
        consumers.push(c);
        return c;
      }

      before(async () => {
        cluster = await RealCluster.start({ version, brokerConfig: { enablePropertyFilter: true } });
        producer = await interopProducer(cluster.namesrvAddr, run);
      });

      after(async () => {
        for (const c of consumers) await c.shutdown().catch(() => undefined);
        await producer?.shutdown();
        await cluster?.stop();
      });

      it('a Java producer -> real broker -> our consumer: every field of every message intact', async () => {
        const topic = `interop_cons_fields_${run}`;
        const t0 = Date.now();
        // 40 small messages, then 4 of 8 KiB that the Java producer compresses (zlib).
        const small = await runDriver<ProduceResult>(
          version,
          ['produce', '--namesrv', cluster.namesrvAddr].concat(['--topic', topic, '--count', '40']),
        );
        const big = await runDriver<ProduceResult>(
          version,
          ['produce', '--namesrv', cluster.namesrvAddr].concat([
            '--topic',
            topic,
            '--count',
            '4',
            '--start',
            '40',
            '--size',
            '8192',
          ]),
        );
        const t1 = Date.now();
        assert.equal(small.sent + big.sent, 44, JSON.stringify({ small: small.errors, big: big.errors }));
        const msgIds = [...small.msgIds, ...big.msgIds];

        const got = new Map<number, ConsumerMessage>();
        let duplicates = 0;
        const c = consumer(`interop_cons_fields_cg_${run}`);
        c.subscribe(topic, '*');
        await c.start(async (m) => {
          const seq = Number(m.properties['seq']);
          if (got.has(seq)) duplicates++;
          got.set(seq, m);
        });
        await waitFor('44 messages', () => got.size >= 44);
        assert.equal(duplicates, 0);

        const brokerAddr = new Map(cluster.brokers.map((b) => [b.name, b]));
        const offsetsPerQueue = new Map<string, number[]>();
        for (let seq = 0; seq < 44; seq++) {
          const m = got.get(seq);
          assert.ok(m, `seq ${seq} consumed`);
          const size = seq >= 40 ? 8192 : 0;
          const where = `seq ${seq}`;
          assert.equal(m.topic, topic, where);
          assert.ok(m.body.equals(detBody(seq, size)), `${where}: body`);
          assert.equal(m.tags, detTags(seq), where);
          assert.deepEqual([...m.keys], detKeyList(seq), where);
          assert.deepEqual({ ...m.properties }, detUserProperties(seq, size), `${where}: user properties`);
          assert.equal(m.msgId, msgIds[seq], `${where}: msgId is the Java producer's UNIQ_KEY`);
          assert.equal(m.systemProperties['UNIQ_KEY'], msgIds[seq], where);
          const broker = brokerAddr.get(m.queue.brokerName);
          assert.ok(broker, `${where}: brokerName ${m.queue.brokerName}`);
          assert.equal(m.queue.topic, topic, where);
          assert.ok(m.queue.queueId >= 0 && m.queue.queueId < 4, `${where}: queueId ${m.queue.queueId}`);
          assert.deepEqual(m.storeHost, { address: '127.0.0.1', port: broker.listenPort }, where);
          assert.equal(m.bornHost.address, '127.0.0.1', where);
          assert.ok(m.bornHost.port > 0, where);
          // offsetMsgId = store host IPv4 + port + commit-log offset, upper-case hex.
          const offsetId = `7F000001${broker.listenPort.toString(16).toUpperCase().padStart(8, '0')}`;
          assert.equal(m.offsetMsgId.slice(0, 16), offsetId, `${where}: offsetMsgId ${m.offsetMsgId}`);
          assert.equal(BigInt(`0x${m.offsetMsgId.slice(16)}`), BigInt(m.commitLogOffset), where);
          assert.equal(m.reconsumeTimes, 0, where);
          assert.equal(m.delayTimeLevel, 0, where);
          assert.ok(m.bornTimestamp >= t0 - 1000 && m.bornTimestamp <= t1, `${where}: bornTimestamp`);
          assert.ok(m.storeTimestamp >= m.bornTimestamp - 1000 && m.storeTimestamp <= t1 + 1000, where);
          assert.equal(m.sysFlag & 1, size > 0 ? 1 : 0, `${where}: compressed flag ${m.sysFlag}`);
          const offsets = offsetsPerQueue.get(queueKey(m.queue)) ?? [];
          offsets.push(m.queueOffset);
          offsetsPerQueue.set(queueKey(m.queue), offsets);
        }
        // Each queue's offsets are exactly 0..n-1: nothing skipped, nothing invented.
        for (const [q, offsets] of offsetsPerQueue) {
          assert.deepEqual(
            offsets.sort((a, b) => a - b),
            offsets.map((_, i) => i),
            `queue ${q}`,
          );
        }
      });

      it('our consumer and a Java consumer in one group split the queues: none held twice, none orphaned, every message once', async () => {
        const topic = `interop_cons_split_${run}`;
        const group = `interop_cons_split_cg_${run}`;
        // Creates the topic on both brokers (4 queues each) through TBW102.
        for (let i = 0; i < 16; i++) await producer.send({ topic, body: `warm-${i}` });
        const ours = consumer(group);
        ours.subscribe(topic, '*');
        const ourRebalances: number[] = [];
        ours.on('rebalance', (e) => {
          if (e.topic === topic) ourRebalances.push(Date.now());
        });
        // A hedged send (on by default) may store a message on both brokers, and says so; only
        // those copies may reach a consumer twice.
        const hedged = new Set<string>();
        const onHedged = (e: { msgId: string }): void => void hedged.add(e.msgId);
        producer.on('hedgedDuplicate', onHedged);
        const oursGot = new Map<string, string>();
        const ourDuplicates: string[] = [];
        await ours.start(async (m) => {
          if (oursGot.has(m.msgId)) ourDuplicates.push(m.msgId);
          oursGot.set(m.msgId, queueKey(m.queue));
        });
        const held = async (): Promise<string[]> =>
          (await ours.lag())
            .filter((q) => q.topic === topic)
            .map(queueKey)
            .sort();
        await waitFor('our consumer to hold all 8 queues', async () => (await held()).length === 8);

        const javaDone = pushWithJava(version, cluster.namesrvAddr, group, [topic], { durationMs: 20_000 });
        await waitFor(
          'the Java member to join (our share drops to 4 queues)',
          async () => (await held()).length === 4,
        );
        // Both members have settled; everything sent from now on goes to exactly one of them.
        await sleep(3000);
        const settledAt = Date.now();
        const oursSettled = await held();
        const sentAt = Date.now();
        const sent = new Set<string>();
        for (let i = 0; i < 200; i++) sent.add((await producer.send({ topic, body: `split-${i}` })).msgId);
        const java = await javaDone;

        assert.ok(
          java.timeline.every((t) => t.atMs < sentAt),
          `the Java member's queues did not change while messages were sent: ${JSON.stringify(java.timeline)}`,
        );
        const javaQueues = java.allocation.filter((q) => q.startsWith(`${topic}@`)).sort();
        assert.equal(javaQueues.length, 4, JSON.stringify(java.allocation));
        assert.deepEqual(
          javaQueues.filter((q) => oursSettled.includes(q)),
          [],
          'no queue held by both members',
        );
        assert.equal(new Set([...javaQueues, ...oursSettled]).size, 8, 'no queue orphaned');
        const javaLeaving = java.startedAtMs + 20_000;
        assert.deepEqual(
          ourRebalances.filter((t) => t >= settledAt && t < javaLeaving),
          [],
          'our queues did not change while both members were in the group',
        );

        producer.off('hedgedDuplicate', onHedged);
        const javaGot = java.messages.filter((m) => sent.has(m.msgId));
        const oursNew = [...oursGot].filter(([id]) => sent.has(id));
        const both = javaGot.filter((m) => oursGot.has(m.msgId) && !hedged.has(m.msgId));
        assert.deepEqual(both, [], 'no message consumed by both');
        const consumedIds = new Set([...javaGot.map((m) => m.msgId), ...oursNew.map(([id]) => id)]);
        assert.equal(consumedIds.size, 200, 'every message consumed');
        const javaTwice = javaGot.filter((m, i) => javaGot.findIndex((o) => o.msgId === m.msgId) !== i);
        assert.deepEqual(
          javaTwice.filter((m) => !hedged.has(m.msgId)),
          [],
          'the Java member consumed nothing twice but hedged copies',
        );
        for (const m of javaGot)
          assert.ok(javaQueues.includes(queueKey({ ...m, topic })), 'Java consumed its own queues');
        for (const [, q] of oursNew) assert.ok(oursSettled.includes(q), 'we consumed our own queues');
        assert.ok(javaGot.length > 0 && oursNew.length > 0, 'both members consumed');
        assert.deepEqual(
          ourDuplicates.filter((id) => !hedged.has(id)),
          [],
          `no message consumed twice but a hedged send's two copies (${hedged.size} hedged)`,
        );
        // Once the Java member leaves, its queues come back to us.
        await waitFor(
          'our consumer to take all 8 queues back',
          async () => (await held()).length === 8,
          30_000,
        );
      });

      it("mqadmin consumerProgress shows our group's lag", async () => {
        const topic = `interop_cons_lag_${run}`;
        const group = `interop_cons_lag_cg_${run}`;
        for (let i = 0; i < 20; i++) await producer.send({ topic, body: `lag-${i}` });
        const c = consumer(group);
        c.subscribe(topic, '*');
        let consumed = 0;
        // The next 25 messages stay in the handler until released: the committed offset of each
        // queue stops at its first unfinished message, so the group lags by exactly 25.
        let release: () => void = () => undefined;
        const gate = new Promise<void>((r) => (release = r));
        await c.start(async (m) => {
          if (m.body.toString().startsWith('lag-more-')) await gate;
          consumed++;
        });
        await waitFor('20 messages', () => consumed >= 20);
        for (let i = 0; i < 25; i++) await producer.send({ topic, body: `lag-more-${i}` });
        await waitFor(
          'the 25 to be pulled',
          async () => (await c.lag()).reduce((n, q) => n + (q.topic === topic ? q.inFlight : 0), 0) >= 25,
        );
        // The committed offsets reach the broker with the next persist (every second here).
        await sleep(2500);
        const r = await runMqadmin(version, ['consumerProgress', '-n', cluster.namesrvAddr, '-g', group]);
        assert.equal(r.code, 0, r.stderr.slice(-2000));
        const diff = /Diff Total:\s*(\d+)/.exec(r.stdout);
        assert.ok(diff, r.stdout);
        assert.equal(Number(diff[1]), 25, r.stdout);
        const rows = r.stdout.split('\n').filter((l) => l.startsWith(topic));
        assert.equal(rows.length, 8, `one row per queue:\n${r.stdout}`);
        const ourLag = (await c.lag()).filter((q) => q.topic === topic).reduce((a, q) => a + q.lag, 0);
        assert.equal(ourLag, 25, 'lag() agrees with mqadmin');
        release();
        await waitFor('the rest once released', () => consumed >= 45);
      });

      it('a SQL92 subscription is filtered by the real broker (enablePropertyFilter=true)', async () => {
        const topic = `interop_cons_sql_${run}`;
        const want = new Set<string>();
        for (let i = 0; i < 30; i++) {
          // Every third message has no property a at all: SQL92 treats a missing property as no match.
          const properties: Record<string, string> =
            i % 3 === 2 ? { b: 'x' } : { a: String(i), b: i % 2 === 0 ? 'x' : 'y' };
          const r = await producer.send({ topic, body: `sql-${i}`, properties });
          if (i % 3 !== 2 && i > 10 && i % 2 === 0) want.add(r.msgId);
        }
        const got = new Set<string>();
        const c = consumer(`interop_cons_sql_cg_${run}`);
        c.subscribe(topic, { sql: "a > 10 AND b = 'x'" });
        await c.start(async (m) => {
          got.add(m.msgId);
        });
        await waitFor(`${want.size} matching messages`, () => got.size >= want.size);
        // Give any wrongly matched message the time to show up too.
        await sleep(1500);
        assert.deepEqual(got, want);
      });
    });
  }
});
