import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Producer } from '../src/producer/producer.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { TopicReader, type ReadMessage } from './topic-reader.js';

test('the topic reader (Admin.messagesOfQueue) reads back everything a producer sent, with ids, tags, keys, properties and bodies', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const producer = new Producer({ producerGroup: 'topic-reader-test', namesrvAddr: cluster.namesrvAddr });
  // pages of 7: every queue takes several messagesOfQueue calls
  const reader = new TopicReader(cluster.namesrvAddr, 7);
  try {
    const topic = 'TopicReaderTopic';
    await cluster.createTopic(topic, 3);
    await producer.start();
    const sent = new Map<
      string,
      { body: Buffer; i: number; broker: string; queueId: number; offset: number }
    >();
    for (let i = 0; i < 60; i++) {
      // every 10th body is large and compressible, so the producer compresses it
      const body = i % 10 === 0 ? Buffer.from(`big-${i} `.repeat(1000)) : Buffer.from(`message ${i}`);
      const result = await producer.send({
        topic,
        body,
        tags: `tag${i % 3}`,
        keys: [`k${i}`, 'shared'],
        properties: { seq: String(i) },
      });
      sent.set(result.msgId, {
        body,
        i,
        broker: result.messageQueue.brokerName,
        queueId: result.messageQueue.queueId,
        offset: result.queueOffset,
      });
    }
    const read: ReadMessage[] = [];
    for await (const m of reader.readTopic(topic)) read.push(m);
    assert.equal(read.length, sent.size);
    for (const m of read) {
      const s = sent.get(m.msgId);
      assert.ok(s, `unknown msgId ${m.msgId}`);
      assert.equal(m.topic, topic);
      assert.deepEqual(m.body, s.body);
      assert.equal(m.tags, `tag${s.i % 3}`);
      assert.deepEqual(m.keys, [`k${s.i}`, 'shared']);
      assert.equal(m.properties.seq, String(s.i));
      assert.equal(m.brokerName, s.broker);
      assert.equal(m.queueId, s.queueId);
      assert.equal(m.queueOffset, s.offset);
    }
    const queues = await reader.queues(topic);
    assert.equal(queues.length, 6);
    assert.deepEqual([...new Set(queues.map((q) => q.brokerName))], ['broker-a', 'broker-b']);
    // reading from the middle of a queue returns the tail only
    const q = queues.find(
      (x) => read.filter((m) => m.brokerName === x.brokerName && m.queueId === x.queueId).length > 2,
    )!;
    const tail: number[] = [];
    for await (const m of reader.readQueue(topic, q, 2)) tail.push(m.queueOffset);
    assert.ok(tail.length > 0 && tail[0] === 2);
    // an empty queue yields nothing
    await cluster.createTopic('EmptyTopic', 1);
    const empty: ReadMessage[] = [];
    for await (const m of reader.readTopic('EmptyTopic')) empty.push(m);
    assert.equal(empty.length, 0);
  } finally {
    await reader.close();
    await producer.shutdown();
    await cluster.stop();
  }
});
