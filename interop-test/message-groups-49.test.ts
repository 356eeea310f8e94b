/**
 * What RocketMQ 5 message fields do on a 4.9.7 broker, which knows no topic types: a topic made
 * with a `messageType` is created as a plain topic (4.9.7's UPDATE_AND_CREATE_TOPIC has no
 * `attributes` field and drops it), and `messageGroup` still orders: the send goes to the queue
 * of the group's hash, carries `__SHARDINGKEY`, and our consumer reads `messageGroup` back.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { Producer } from '../src/producer/producer.js';
import { RealCluster } from './real-cluster.js';
import { until } from './proxy-fixture.js';

const run = Date.now().toString(36);

describe('RocketMQ 5 message fields on a 4.9.7 broker', { timeout: 300_000, concurrency: 1 }, () => {
  let cluster: RealCluster;
  let admin: Admin;
  let producer: Producer;
  let consumer: PushConsumer | undefined;

  before(async () => {
    cluster = await RealCluster.start({ version: '4.9.7', brokers: ['broker-a'] });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    producer = new Producer({
      producerGroup: `mg49_pg_${run}`,
      namesrvAddr: cluster.namesrvAddr,
      pollNameServerInterval: 1000,
    });
    await producer.start();
  });
  after(async () => {
    await consumer?.shutdown();
    await producer?.shutdown();
    await admin?.shutdown();
    await cluster?.stop();
  });

  it('a topic created with messageType FIFO is a plain topic on 4.9.7; messageGroup sends keep each group on one queue, in order', async () => {
    const topic = `mg49_${run}`;
    await admin.createTopic({
      topic,
      cluster: 'DefaultCluster',
      readQueues: 4,
      writeQueues: 4,
      messageType: 'FIFO',
    });
    // 4.9.7 drops the attributes header field: the topic exists, untyped (read back as NORMAL).
    const [config] = await admin.topicConfig(topic);
    assert.equal(config?.messageType, 'NORMAL', JSON.stringify(config));
    assert.deepEqual(config?.attributes, {});
    await new Promise((r) => setTimeout(r, 1500));
    const queueOf = new Map<string, number>();
    for (let seq = 0; seq < 12; seq++) {
      const group = `g${seq % 3}`;
      const r = await producer.send({ topic, body: `${group}:${seq}`, messageGroup: group });
      const q = queueOf.get(group) ?? r.messageQueue.queueId;
      assert.equal(r.messageQueue.queueId, q, `group ${group} stays on one queue`);
      queueOf.set(group, q);
    }
    const got: ConsumerMessage[] = [];
    consumer = new PushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: `mg49_cg_${run}`,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeOrderly: true,
      rebalanceInterval: 1000,
    });
    consumer.subscribe(topic);
    await consumer.start((m: ConsumerMessage) => {
      got.push(m);
    });
    await until(() => new Set(got.map((m) => m.msgId)).size >= 12, 90_000, 'every message');
    for (const group of ['g0', 'g1', 'g2']) {
      const seqs = got
        .filter((m) => m.messageGroup === group)
        .map((m) => Number(m.body.toString().split(':')[1]));
      const firsts = seqs.filter((s, i) => seqs.indexOf(s) === i);
      assert.deepEqual(
        firsts,
        [...firsts].sort((a, b) => a - b),
        `group ${group}`,
      );
      assert.equal(firsts.length, 4);
    }
  });
});
