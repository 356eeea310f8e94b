/**
 * The demo's consumer group (two member processes) on an embedded cluster: a member SIGKILLed
 * while messages keep coming and then restarted, and still every acknowledged message is
 * consumed, with each duplicate given a cause.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DemoConsumerGroup } from '../../src/cli/demo/consumer-group.js';
import { explainDuplicates, type Delivery } from '../../src/cli/demo/duplicates.js';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { uniqueName } from '../server/broker/rpc-helpers.js';

describe('demo consumer group', () => {
  let cluster: EmbeddedCluster;
  let producer: Producer;
  let group: DemoConsumerGroup | undefined;

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
    producer = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: uniqueName('DemoCgPG') });
    await producer.start();
  });
  after(async () => {
    await group?.stop();
    await producer?.shutdown();
    await cluster?.stop();
  });

  it('a member SIGKILLed mid-stream and restarted: every acknowledged message consumed, duplicates explained', async () => {
    const topic = uniqueName('DemoCg');
    await cluster.createTopic(topic, 4);
    group = new DemoConsumerGroup({
      namesrvAddr: cluster.namesrvAddr,
      topic,
      group: uniqueName('DemoCgCG'),
      runProperty: 'RUN',
      runId: 'r1',
      seqProperty: 'SEQ',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeTimestamp: '20200101000000',
    });
    await group.start();
    const acks = new Map<number, { msgId: string }>();
    const send = async (from: number, to: number): Promise<void> => {
      for (let seq = from; seq < to; seq++) {
        const properties = { RUN: seq % 10 === 9 ? 'other-run' : 'r1', SEQ: String(seq) };
        const r = await producer.send({ topic, body: `m${seq}`, properties });
        if (properties.RUN === 'r1') acks.set(seq, { msgId: r.msgId });
      }
    };
    await send(0, 150);
    await group.kill(1);
    await send(150, 300);
    await group.restart(1);
    await send(300, 400);
    await group.waitForAll(acks, 15_000);
    await group.stop();
    const v = group.verify(acks, new Set());
    assert.equal(v.lost, 0, `lost ${v.lostMsgIds.join(' ')}`);
    assert.equal(v.distinct, 360, 'messages of another run are not counted');
    const explained = Object.values(v.duplicateCauses ?? {}).reduce((a, b) => a + b, 0);
    assert.equal(explained, v.duplicates, 'every duplicate has a cause');
    assert.equal(v.consumed, v.distinct + v.duplicates);
    assert.equal(group.events.length, 2, group.events.join('; '));
    assert.match(group.events[0] ?? '', /^consumer 2 killed \(SIGKILL\) after \d+ deliveries$/);
    assert.equal(group.events[1], 'consumer 2 restarted');
  });
});

describe('explainDuplicates', () => {
  const d = (
    member: number,
    incarnation: number,
    queue = 'broker-a/0',
    reconsumeTimes = 0,
    queueOffset?: number,
  ): Delivery => ({
    member,
    incarnation,
    queue,
    reconsumeTimes,
    ...(queueOffset === undefined ? {} : { queueOffset }),
  });
  const none = { killed: new Set<string>() };

  it('two stored copies (two queues, or two offsets of one queue): a resend, or a hedge when the producer said so', () => {
    assert.deepEqual(explainDuplicates([d(0, 0), d(1, 0, 'broker-b/3')], none), [
      'a resend after an ambiguous send timeout stored it twice',
    ]);
    assert.deepEqual(explainDuplicates([d(0, 0, 'broker-a/0', 0, 4), d(0, 0, 'broker-a/0', 0, 9)], none), [
      'a resend after an ambiguous send timeout stored it twice',
    ]);
    assert.deepEqual(explainDuplicates([d(0, 0), d(1, 0, 'broker-b/3')], { ...none, hedged: true }), [
      'a hedged send stored it twice',
    ]);
  });
  it('a redelivery with reconsumeTimes > 0: a consumer retry', () => {
    assert.deepEqual(explainDuplicates([d(0, 0), d(0, 0, 'broker-a/0', 1)], none), [
      'consumer retry (handler failed)',
    ]);
  });
  it('first delivered by a killed incarnation: uncommitted at the kill', () => {
    assert.deepEqual(explainDuplicates([d(1, 0), d(0, 0)], { killed: new Set(['1/0']) }), [
      'in flight or uncommitted when a consumer was killed',
    ]);
  });
  it('two members otherwise: a rebalance; the same member twice: the broker gave it again', () => {
    assert.deepEqual(explainDuplicates([d(0, 0), d(1, 1)], { killed: new Set(['1/0']) }), [
      'a queue moved to another member before its offset was committed (rebalance)',
    ]);
    assert.deepEqual(explainDuplicates([d(0, 0), d(0, 0), d(0, 0)], none), [
      'redelivered to the same member (broker restart or offset not yet persisted)',
      'redelivered to the same member (broker restart or offset not yet persisted)',
    ]);
  });
});
