/**
 * (b) OUR producer (src/producer) against a real Apache RocketMQ cluster, for every interop
 * version: topics auto-created through TBW102, small, compressed and batched deterministic
 * messages that a Java push consumer verifies field by field, and a broker SIGKILLed mid-run that
 * must cost no acknowledged message and fail no send.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Producer } from '../src/producer/producer.js';
import { interopProducer } from './our-clients.js';
import type { Message } from '../src/producer/message.js';
import type { SendResult } from '../src/producer/send-result.js';
import { detMessage } from './deterministic.js';
import {
  INTEROP_VERSIONS,
  describeConsume,
  runDriver,
  type ConsumeResult,
  type TopicRouteResult,
  consumeWithJava,
} from './java.js';
import { RealCluster } from './real-cluster.js';

function message(topic: string, seq: number, size = 0): Message {
  const m = detMessage(seq, size);
  return { topic, body: m.body, tags: m.tags, keys: m.keys, properties: m.properties };
}

describe('our producer against real RocketMQ', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 600_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let producer: Producer;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;

      before(async () => {
        cluster = await RealCluster.start({ version });
        producer = await interopProducer(cluster.namesrvAddr, run);
      });

      after(async () => {
        await producer?.shutdown();
        await cluster?.stop();
      });

      function consume(topic: string, expect: number, extra: string[] = []): Promise<ConsumeResult> {
        return consumeWithJava(version, cluster.namesrvAddr, topic, expect, 90000, extra);
      }

      function assertIntact(r: ConsumeResult, expect: number, results: ReadonlyMap<number, string>): void {
        assert.equal(r.received, expect, describeConsume(r));
        assert.deepEqual(r.missing, [], describeConsume(r));
        assert.deepEqual(r.corrupt, [], describeConsume(r));
        assert.deepEqual(r.unexpected, [], describeConsume(r));
        assert.deepEqual(r.noSeq, [], describeConsume(r));
        for (const [seq, msgId] of results) assert.equal(r.ids[String(seq)], msgId, `msgId of seq ${seq}`);
      }

      it('small messages to a topic that does not exist yet are auto-created via TBW102 and arrive intact', async () => {
        const topic = `interop_ts_${run}`;
        const ids = new Map<number, string>();
        for (let seq = 0; seq < 40; seq++) {
          const res = await producer.send(message(topic, seq));
          assert.equal(res.status, 'SEND_OK');
          assert.match(res.msgId, /^[0-9A-F]{32}$|^[0-9A-F]{56}$/);
          ids.set(seq, res.msgId);
        }
        const r = await consume(topic, 40);
        assertIntact(r, 40, ids);
        const route = await runDriver<TopicRouteResult>(version, [
          'admin',
          'topicRoute',
          '--namesrv',
          cluster.namesrvAddr,
          '--topic',
          topic,
        ]);
        for (const q of route.queueDatas) {
          assert.equal(q.writeQueueNums, 4, 'auto-created with defaultTopicQueueNums 4');
          assert.equal(q.perm, 6, 'TBW102 perm without inherit');
        }
      });

      it('compressed bodies (>= 4 KiB) are inflated by the Java consumer byte for byte', async () => {
        const topic = `interop_tsz_${run}`;
        const ids = new Map<number, string>();
        for (let seq = 0; seq < 6; seq++) {
          const res = await producer.send(message(topic, seq, 10_000));
          assert.equal(res.status, 'SEND_OK');
          ids.set(seq, res.msgId);
        }
        const r = await consume(topic, 6, ['--size', '10000']);
        assertIntact(r, 6, ids);
        for (const m of r.messages) assert.equal(m.bodyLen, 10_000);
      });

      it('a batch is stored as separate messages with their own ids', async () => {
        const topic = `interop_tsb_${run}`;
        const batch = Array.from({ length: 10 }, (_, seq) => message(topic, seq));
        const res = await producer.sendBatch(batch);
        assert.equal(res.status, 'SEND_OK');
        const msgIds = res.msgId.split(',');
        assert.equal(msgIds.length, 10);
        const r = await consume(topic, 10);
        assertIntact(r, 10, new Map(msgIds.map((id, seq) => [seq, id])));
        assert.deepEqual(
          r.messages.map((m) => m.queueOffset),
          [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        );
      });

      it('a broker SIGKILLed mid-run loses no acknowledged message and fails no send', async () => {
        const topic = `interop_tsk_${run}`;
        const total = 400;
        const killAt = 120;
        // Create the topic on both brokers first, so the kill hits a route that names both.
        const warm = await producer.send(message(topic, 0));
        const acked = new Map<number, SendResult>([[0, warm]]);
        const failures: string[] = [];
        let next = 1;
        let killing: Promise<void> | undefined;
        async function worker(): Promise<void> {
          for (;;) {
            const seq = next++;
            if (seq >= total) return;
            if (seq === killAt) killing = cluster.kill('broker-b', 'SIGKILL');
            try {
              acked.set(seq, await producer.send(message(topic, seq)));
            } catch (err) {
              failures.push(`seq ${seq}: ${(err as Error).message}`);
            }
          }
        }
        await Promise.all([worker(), worker(), worker(), worker()]);
        await killing;
        assert.ok(killing !== undefined, 'the broker was killed mid-run');
        assert.deepEqual(failures, [], 'no send failed');
        assert.equal(acked.size, total);
        for (const res of acked.values()) assert.equal(res.status, 'SEND_OK');
        const onB = [...acked.values()].filter((r) => r.messageQueue.brokerName === 'broker-b').length;

        // Messages broker-b acknowledged before the kill are in its commit log: bring it back.
        await cluster.restart('broker-b');
        const r = await consume(topic, total);
        assertIntact(r, total, new Map([...acked].map(([seq, res]) => [seq, res.msgId])));
        assert.ok(onB > 0, 'some messages went to broker-b before the kill');
      });
    });
  }
});
