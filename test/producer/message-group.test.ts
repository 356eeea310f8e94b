/** Message groups and priority on the producer side: the rules of Java 5, the wire, the queue. */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { prepareBatch, prepareMessage, type Message } from '../../src/producer/message.js';
import { batchLaneOf } from '../../src/producer/auto-batch.js';
import { queueSelection, selectByHash } from '../../src/producer/queue-select.js';
import { Producer } from '../../src/producer/producer.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';
import { receivedMessage } from '../../src/producer/received-message.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { decodeProperties, PropertyKey } from '../../src/protocol/message/properties.js';
import { javaStringHashCode } from '../../src/protocol/java-string-hash.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { invalidArgument } from '../invalid-argument.js';
import { readTopic, uniqueTopic } from './cluster-helpers.js';

const ids = new UniqIdGenerator();
const settings = {
  maxMessageSize: 1024 * 1024,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  namespace: undefined,
};
const ok: Message = { topic: 'T', body: 'x' };

function prepareError(m: unknown): InvalidArgumentError {
  return invalidArgument(() => prepareMessage(m as Message, settings, ids));
}

describe('messageGroup: bad input is InvalidArgumentError before any I/O', () => {
  it('an empty or blank group', () => {
    assert.equal(prepareError({ ...ok, messageGroup: '' }).field, 'messageGroup');
    assert.equal(prepareError({ ...ok, messageGroup: '  \t' }).field, 'messageGroup');
  });
  it('a group that is not a string', () => {
    assert.equal(prepareError({ ...ok, messageGroup: 42 }).field, 'messageGroup');
  });
  it('a group with a control character (the Proxy refuses it)', () => {
    assert.match(prepareError({ ...ok, messageGroup: 'a\u0001b' }).message, /control character/);
    assert.equal(prepareError({ ...ok, messageGroup: 'a\u0085b' }).field, 'messageGroup');
  });
  it('a group of 64 UTF-8 bytes or more (the Proxy’s maxMessageGroupSize)', () => {
    assert.doesNotThrow(() => prepareMessage({ ...ok, messageGroup: 'g'.repeat(63) }, settings, ids));
    assert.match(prepareError({ ...ok, messageGroup: 'g'.repeat(64) }).message, /64/);
    // 22 three-byte characters: 22 UTF-16 units but 66 bytes.
    assert.equal(prepareError({ ...ok, messageGroup: '群'.repeat(22) }).field, 'messageGroup');
  });
  it('a group with a priority', () => {
    const e = prepareError({ ...ok, messageGroup: 'g', priority: 1 });
    assert.equal(e.field, 'priority');
    assert.match(e.message, /messageGroup/);
  });
  it('a group with a delay level, deliverAt or deliverAfterMs', () => {
    assert.equal(prepareError({ ...ok, messageGroup: 'g', delayTimeLevel: 3 }).field, 'delayTimeLevel');
    assert.equal(
      prepareError({ ...ok, messageGroup: 'g', deliverAt: Date.now() + 60_000 }).field,
      'deliverAt',
    );
    const e = prepareError({ ...ok, messageGroup: 'g', deliverAfterMs: 5000 });
    assert.equal(e.field, 'deliverAfterMs');
    assert.match(e.message, /messageGroup/);
  });
  it('a group set as the __SHARDINGKEY user property', () => {
    assert.equal(
      prepareError({ ...ok, properties: { [PropertyKey.SHARDING_KEY]: 'g' } }).field,
      `properties.${PropertyKey.SHARDING_KEY}`,
    );
  });
  it('a batch of mixed groups (or grouped and not)', () => {
    const mixed = (msgs: Message[]) => invalidArgument(() => prepareBatch(msgs, settings, ids));
    assert.equal(
      mixed([
        { ...ok, messageGroup: 'a' },
        { ...ok, messageGroup: 'b' },
      ]).field,
      'messages[1].messageGroup',
    );
    assert.equal(mixed([{ ...ok, messageGroup: 'a' }, ok]).field, 'messages[1].messageGroup');
    assert.equal(mixed([ok, { ...ok, messageGroup: 'a' }]).field, 'messages[1].messageGroup');
  });
  it('a shardingKey option that differs from the message’s group, or breaks the group rules', () => {
    const sel = (o: object, m: Message = ok) => invalidArgument(() => queueSelection(o, m, undefined));
    assert.equal(sel({ shardingKey: 'b' }, { ...ok, messageGroup: 'a' }).field, 'shardingKey');
    assert.equal(sel({ shardingKey: '' }).field, 'shardingKey');
    assert.equal(sel({ shardingKey: 'k' }, { ...ok, delayTimeLevel: 2 }).field, 'delayTimeLevel');
    assert.match(sel({ shardingKey: 'k' }, { ...ok, priority: 2 }).message, /shardingKey/);
    const q = { topic: 'T', brokerName: 'b', queueId: 0 };
    assert.equal(sel({ queue: q }, { ...ok, messageGroup: 'a' }).field, 'queue');
    assert.equal(sel({ selector: () => q }, { ...ok, messageGroup: 'a' }).field, 'selector');
    // The same group twice is one group.
    assert.ok(queueSelection({ shardingKey: 'a' }, { ...ok, messageGroup: 'a' }, undefined));
  });
});

describe('priority: bad input is InvalidArgumentError before any I/O', () => {
  it('a negative priority', () => {
    assert.equal(prepareError({ ...ok, priority: -1 }).field, 'priority');
  });
  it('a fractional priority', () => {
    assert.equal(prepareError({ ...ok, priority: 1.5 }).field, 'priority');
  });
  it('NaN, a string or a priority beyond a Java int', () => {
    assert.equal(prepareError({ ...ok, priority: Number.NaN }).field, 'priority');
    assert.equal(prepareError({ ...ok, priority: '3' }).field, 'priority');
    assert.equal(prepareError({ ...ok, priority: 2 ** 31 }).field, 'priority');
  });
  it('a priority with a delay level or a timer', () => {
    const e = prepareError({ ...ok, priority: 1, delayTimeLevel: 1 });
    assert.equal(e.field, 'delayTimeLevel');
    assert.match(e.message, /priority/);
    assert.equal(prepareError({ ...ok, priority: 1, deliverAfterMs: 1000 }).field, 'deliverAfterMs');
  });
  it('a priority in a batch, or as a user property', () => {
    assert.equal(
      invalidArgument(() => prepareBatch([ok, { ...ok, priority: 1 }], settings, ids)).field,
      'messages[1].priority',
    );
    assert.equal(
      prepareError({ ...ok, properties: { [PropertyKey.PRIORITY]: '1' } }).field,
      `properties.${PropertyKey.PRIORITY}`,
    );
  });
});

describe('messageGroup and priority on the wire', () => {
  it('set __SHARDINGKEY and _SYS_MSG_PRIORITY_, and keep the message out of auto-batches', () => {
    const g = prepareMessage({ ...ok, messageGroup: 'order-42' }, settings, ids);
    assert.equal(decodeProperties(g.properties)[PropertyKey.SHARDING_KEY], 'order-42');
    assert.equal(g.batchLane, 'alone');
    // A grouped batch says so on the batch request too: the Proxy types a batch by its header.
    const b = prepareBatch(
      [
        { ...ok, messageGroup: 'g' },
        { ...ok, messageGroup: 'g' },
      ],
      settings,
      ids,
    );
    assert.equal(decodeProperties(b.properties)[PropertyKey.SHARDING_KEY], 'g');
    const p = prepareMessage({ ...ok, priority: 7 }, settings, ids);
    assert.equal(decodeProperties(p.properties)[PropertyKey.PRIORITY], '7');
    assert.equal(p.batchLane, 'alone');
    // Judged from the properties too (a message rewritten after prepareMessage).
    assert.equal(batchLaneOf({ ...p, batchLane: undefined }), 'alone');
    assert.equal(batchLaneOf({ ...g, batchLane: undefined }), 'alone');
    assert.equal(prepareMessage(ok, settings, ids).batchLane, 'wait');
  });

  it('a group picks the queue Java’s SelectMessageQueueByHash picks (String.hashCode vectors from a JVM)', () => {
    // jshell: "order-42".hashCode() = 1234255197, "user:7" = -836031416, "FIFO-群组" = -141235135.
    assert.equal(javaStringHashCode('order-42'), 1234255197);
    assert.equal(javaStringHashCode('user:7'), -836031416);
    assert.equal(javaStringHashCode('FIFO-群组'), -141235135);
    const eight = [0, 1, 2, 3, 4, 5, 6, 7];
    assert.equal(selectByHash(eight, 'order-42'), 5);
    assert.equal(selectByHash(eight, 'user:7'), 0);
    assert.equal(selectByHash(eight, 'FIFO-群组'), 7);
    assert.equal(selectByHash([0, 1, 2, 3, 4, 5], 'FIFO-群组'), 1);
  });

  it('received messages (replies, transaction checks) expose messageGroup and priority', () => {
    const r = receivedMessage({
      topic: 'T',
      properties: `${PropertyKey.SHARDING_KEY}\u0001g1\u0002${PropertyKey.PRIORITY}\u00013\u0002`,
      sysFlag: 0,
      body: Buffer.from('x'),
      bornTimestamp: 0,
      flag: 0,
      namespace: undefined,
    });
    assert.equal(r.messageGroup, 'g1');
    assert.equal(r.priority, 3);
    const none = receivedMessage({
      topic: 'T',
      properties: '',
      sysFlag: 0,
      body: undefined,
      bornTimestamp: 0,
      flag: 0,
      namespace: undefined,
    });
    assert.equal(none.messageGroup, undefined);
    assert.equal(none.priority, undefined);
  });
});

describe('messageGroup on the embedded cluster', () => {
  let cluster: EmbeddedCluster;
  let producer: Producer;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
    producer = new Producer({
      producerGroup: uniqueTopic('PG_group'),
      namesrvAddr: cluster.namesrvAddr,
      autoBatch: true,
    });
    await producer.start();
  });
  after(async () => {
    await producer.shutdown();
    await cluster.stop();
  });

  it('a grouped send is stored with __SHARDINGKEY on the group’s hash queue, as the shardingKey option’s', async () => {
    const topic = uniqueTopic('Grouped');
    await cluster.createTopic(topic, 4);
    const javaOrder = ['broker-a', 'broker-b'].flatMap((b) => [0, 1, 2, 3].map((q) => `${b}/${q}`));
    for (const group of ['order-42', 'user:7', 'FIFO-群组']) {
      const a = await producer.send({ topic, body: `${group}:field`, messageGroup: group });
      const b = await producer.send({ topic, body: `${group}:option` }, { shardingKey: group });
      const sent = [a, b].map((r) => `${r.messageQueue.brokerName}/${r.messageQueue.queueId}`);
      assert.deepEqual(sent, [selectByHash(javaOrder, group), selectByHash(javaOrder, group)]);
    }
    const stored = await readTopic(cluster, topic, 4);
    assert.equal(stored.length, 6);
    for (const s of stored) {
      const group = s.body.toString().split(':').slice(0, -1).join(':');
      assert.equal(s.properties[PropertyKey.SHARDING_KEY], group, 'the property is on the stored message');
      assert.equal(`${s.brokerName}/${s.queueId}`, selectByHash(javaOrder, group));
    }
  });

  it('a batch of one group goes to the group’s queue; a batch of mixed groups sends nothing', async () => {
    const topic = uniqueTopic('GroupedBatch');
    await cluster.createTopic(topic, 4);
    const javaOrder = ['broker-a', 'broker-b'].flatMap((b) => [0, 1, 2, 3].map((q) => `${b}/${q}`));
    const r = await producer.sendBatch([
      { topic, body: '1', messageGroup: 'user:7' },
      { topic, body: '2', messageGroup: 'user:7' },
    ]);
    assert.equal(`${r.messageQueue.brokerName}/${r.messageQueue.queueId}`, selectByHash(javaOrder, 'user:7'));
    await assert.rejects(
      producer.sendBatch([
        { topic, body: '3', messageGroup: 'a' },
        { topic, body: '4', messageGroup: 'b' },
      ]),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'messages[1].messageGroup',
    );
    const stored = await readTopic(cluster, topic, 4);
    assert.deepEqual(stored.map((s) => s.body.toString()).sort(), ['1', '2']);
    for (const s of stored) assert.equal(s.properties[PropertyKey.SHARDING_KEY], 'user:7');
  });

  it('bad groups and priorities sent to a running producer reject before anything is stored', async () => {
    const topic = uniqueTopic('GroupedBad');
    await cluster.createTopic(topic, 2);
    const m = { topic, body: 'x' };
    const rejects = (p: Promise<unknown>, field: string) =>
      assert.rejects(p, (e: unknown) => e instanceof InvalidArgumentError && e.field === field);
    await rejects(producer.send({ ...m, messageGroup: 42 as never }), 'messageGroup');
    await rejects(producer.send({ ...m, messageGroup: '' }), 'messageGroup');
    await rejects(producer.sendOneway({ ...m, messageGroup: 'g', priority: 1 }), 'priority');
    await rejects(producer.send({ ...m, priority: -1 }), 'priority');
    await rejects(producer.send({ ...m, priority: 2, deliverAfterMs: 1000 }), 'deliverAfterMs');
    await rejects(producer.send({ ...m, messageGroup: 'a' }, { shardingKey: 'b' }), 'shardingKey');
    assert.equal((await readTopic(cluster, topic, 2)).length, 0);
  });

  it('a TransactionProducer refuses a grouped or prioritized message before sending it', async () => {
    const topic = uniqueTopic('GroupedTx');
    await cluster.createTopic(topic, 2);
    const tx = new TransactionProducer({
      producerGroup: uniqueTopic('PG_tx'),
      namesrvAddr: cluster.namesrvAddr,
      checkListener: () => 'ROLLBACK',
    });
    await tx.start();
    try {
      let ran = false;
      const local = () => {
        ran = true;
        return 'COMMIT' as const;
      };
      for (const [fieldName, extra] of [
        ['messageGroup', { messageGroup: 'g' }],
        ['priority', { priority: 1 }],
      ] as const) {
        await assert.rejects(
          tx.sendMessageInTransaction({ topic, body: 'x', ...extra }, local),
          (e: unknown) =>
            e instanceof InvalidArgumentError && e.field === fieldName && /transaction/.test(e.message),
        );
      }
      assert.equal(ran, false, 'no local transaction ran');
      assert.equal((await readTopic(cluster, topic, 2)).length, 0);
    } finally {
      await tx.shutdown();
    }
  });
});
