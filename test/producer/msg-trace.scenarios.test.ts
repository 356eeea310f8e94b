/**
 * Message trace against the embedded cluster: a traced producer and a traced push consumer write
 * Java-format records to the trace topic, found by msgId through the broker's key index (what
 * `mqadmin queryMsgTraceById` and the dashboard do) and read with an independent parser.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { decodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';
import { parseJavaTrace, type ParsedRecord } from '../protocol/trace/java-trace-parser.js';
import { FAST } from '../consumer/helpers.js';
import { uniqueTopic, waitFor } from './cluster-helpers.js';

let cluster: EmbeddedCluster;
const closers: Array<() => Promise<void>> = [];

/** Trace records about `msgId` in `traceTopic`, looked up by key on every broker. */
async function tracesOf(traceTopic: string, msgId: string): Promise<ParsedRecord[]> {
  const out: ParsedRecord[] = [];
  for (const b of cluster.brokers) {
    const found = await b.broker.store.queryMessagesByKey(traceTopic, msgId, 64, 0, Date.now() + 60_000);
    for (const rec of found) {
      const { message } = decodeStoredMessage(rec);
      assert.ok(decodeProperties(message.properties)['KEYS']?.split(' ').includes(msgId));
      out.push(...parseJavaTrace(message.body.toString('utf8')).filter((r) => r.named['msgId'] === msgId));
    }
  }
  return out;
}

describe('message trace against the embedded cluster', () => {
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    await cluster.stop();
  });

  it('a traced send and its consumption leave Pub, SubBefore and SubAfter records on RMQ_SYS_TRACE_TOPIC', async () => {
    const topic = uniqueTopic('Traced');
    await cluster.createTopic(topic, 2);
    const producer = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_TRACED',
      enableMsgTrace: true,
    });
    await producer.start();
    closers.push(() => producer.shutdown());
    const sent = await producer.send({ topic, body: 'hello', tags: 'TagA', keys: ['order-1', 'order-2'] });

    const consumer = new PushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: 'CG_TRACED',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      enableMsgTrace: true,
      ...FAST,
    });
    consumer.subscribe(topic, '*');
    let consumed = 0;
    await consumer.start(() => {
      consumed++;
    });
    closers.push(() => consumer.shutdown());
    await waitFor(() => consumed > 0, 10_000, 'the message consumed');

    let records: ParsedRecord[] = [];
    await waitFor(
      async () => {
        records = await tracesOf('RMQ_SYS_TRACE_TOPIC', sent.msgId);
        return ['Pub', 'SubBefore', 'SubAfter'].every((t) => records.some((r) => r.type === t));
      },
      10_000,
      'Pub, SubBefore and SubAfter records',
    );
    const pub = records.find((r) => r.type === 'Pub');
    const storeHost = cluster.brokers.find((b) => b.name === sent.messageQueue.brokerName)?.broker.address;
    assert.deepEqual(
      {
        ...pub?.named,
        timeStamp: undefined,
        costTime: undefined,
      },
      {
        timeStamp: undefined,
        regionId: sent.regionId,
        groupName: 'PG_TRACED',
        topic,
        msgId: sent.msgId,
        tags: 'TagA',
        keys: 'order-1 order-2',
        storeHost,
        bodyLength: '5',
        costTime: undefined,
        msgType: '0',
        offsetMsgId: sent.offsetMsgId,
        success: 'true',
      },
    );
    const subBefore = records.find((r) => r.type === 'SubBefore');
    const subAfter = records.find((r) => r.type === 'SubAfter');
    assert.equal(subBefore?.named['groupName'], 'CG_TRACED');
    assert.equal(subBefore?.named['retryTimes'], '0');
    assert.equal(subAfter?.named['requestId'], subBefore?.named['requestId'], 'paired by requestId');
    assert.equal(subAfter?.named['success'], 'true');
    assert.equal(subAfter?.named['contextCode'], '0');
    assert.equal(producer.traceStats()?.dropped, 0);
  });

  it('customizedTraceTopic: records go to that topic; sends without enableMsgTrace leave none', async () => {
    const topic = uniqueTopic('TracedCustom');
    const traceTopic = uniqueTopic('MyTrace');
    await cluster.createTopic(topic, 2);
    const traced = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_TRACED_CUSTOM',
      enableMsgTrace: true,
      customizedTraceTopic: traceTopic,
    });
    const plain = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: 'PG_PLAIN' });
    await traced.start();
    await plain.start();
    closers.push(
      () => traced.shutdown(),
      () => plain.shutdown(),
    );
    const a = await traced.send({ topic, body: 'a' });
    const b = await plain.send({ topic, body: 'b' });
    await waitFor(async () => (await tracesOf(traceTopic, a.msgId)).length === 1, 10_000, 'the Pub record');
    assert.deepEqual(await tracesOf('RMQ_SYS_TRACE_TOPIC', a.msgId), []);
    assert.equal(plain.traceStats(), undefined);
    await traced.shutdown(); // flushes the dispatcher
    assert.deepEqual(await tracesOf(traceTopic, b.msgId), []);
  });
});
