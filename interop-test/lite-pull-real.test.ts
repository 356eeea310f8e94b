/**
 * OUR LitePullConsumer against a real Apache RocketMQ cluster, for every interop version: a Java
 * producer writes deterministic messages, our consumer assigns every queue of the topic and polls
 * them all, each with its body, tags, keys and properties intact and at its queue's next offset;
 * `commit()` stores every queue's offset, and a restarted member of the group starts there.
 * Kept short (one broker, 60 messages): the interop suite has a fixed time budget.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LitePullConsumer } from '../src/consumer/lite-pull/lite-pull-consumer.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { detMessage, SEQ_PROPERTY } from './deterministic.js';
import { INTEROP_VERSIONS, runDriver, type ProduceResult } from './java.js';
import { RealCluster } from './real-cluster.js';

const COUNT = 60;

describe('our LitePullConsumer against real RocketMQ', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 300_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let consumer: LitePullConsumer | undefined;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;

      before(async () => {
        cluster = await RealCluster.start({ version, brokers: ['broker-a'] });
      });

      after(async () => {
        await consumer?.shutdown();
        await cluster?.stop();
      });

      it('assign + poll gets every message of a Java producer with its fields intact', async () => {
        const topic = `interop_lite_${run}`;
        const produced = await runDriver<ProduceResult>(version, [
          'produce',
          '--namesrv',
          cluster.namesrvAddr,
          '--topic',
          topic,
          '--count',
          String(COUNT),
        ]);
        assert.equal(produced.sent, COUNT, JSON.stringify(produced.errors));

        consumer = new LitePullConsumer({
          consumerGroup: `interop_lite_cg_${run}`,
          namesrvAddr: cluster.namesrvAddr,
          instanceName: `lite_${run}`,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          pollNameServerInterval: 1000,
        });
        await consumer.start();
        const queues = await consumer.fetchMessageQueues(topic);
        assert.ok(queues.length > 0, 'the topic has readable queues');
        consumer.assign(queues);

        const bySeq = new Map<number, ConsumerMessage>();
        const deadline = Date.now() + 60_000;
        while (bySeq.size < COUNT && Date.now() < deadline) {
          for (const m of await consumer.poll(1000)) {
            const seq = Number(m.properties[SEQ_PROPERTY]);
            assert.ok(!bySeq.has(seq), `seq ${seq} polled twice`);
            bySeq.set(seq, m);
          }
        }
        assert.equal(bySeq.size, COUNT, 'every message polled');
        const ids = new Set(produced.msgIds);
        const nextOffset = new Map<number, number>();
        for (const [seq, m] of [...bySeq].sort((a, b) => a[1].queueOffset - b[1].queueOffset)) {
          const want = detMessage(seq);
          assert.equal(m.topic, topic);
          assert.deepEqual(m.body, want.body, `body of seq ${seq}`);
          assert.equal(m.tags, want.tags);
          assert.deepEqual(m.keys, want.keys);
          for (const [k, v] of Object.entries(want.properties))
            assert.equal(m.properties[k], v, `${k} of ${seq}`);
          assert.ok(ids.has(m.msgId), `msgId ${m.msgId} is one the producer reported`);
          // Each queue's messages come in offset order, with no gap from the first offset.
          const expected = nextOffset.get(m.queue.queueId) ?? 0;
          assert.equal(m.queueOffset, expected, `offset in queue ${m.queue.queueId}`);
          nextOffset.set(m.queue.queueId, expected + 1);
        }
        await consumer.commit();
        for (const q of queues)
          assert.equal(
            await consumer.committed(q),
            nextOffset.get(q.queueId) ?? 0,
            `committed offset of ${q.queueId}`,
          );

        // The committed offsets are the broker's: a new member of the group starts there.
        await consumer.shutdown();
        consumer = new LitePullConsumer({
          consumerGroup: `interop_lite_cg_${run}`,
          namesrvAddr: cluster.namesrvAddr,
          instanceName: `lite2_${run}`,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          pollNameServerInterval: 1000,
        });
        await consumer.start();
        consumer.assign(queues);
        for (const q of queues)
          assert.equal(
            await consumer.committed(q),
            nextOffset.get(q.queueId) ?? 0,
            `after restart ${q.queueId}`,
          );
        assert.deepEqual(await consumer.poll(1000), [], 'nothing is polled again after the restart');
      });
    });
  }
});
