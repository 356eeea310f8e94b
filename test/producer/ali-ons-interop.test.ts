/**
 * Interop: the ali-ons consumer (a third-party RocketMQ client) reads what our producer sent,
 * from the embedded cluster, with tags, keys, user properties and UNIQ_KEY intact.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';

interface OnsMessage {
  tags: string;
  keys: string;
  properties: Record<string, string>;
  body: Buffer;
}
interface OnsConsumer {
  on(event: 'error', fn: (err: Error) => void): void;
  ready(): Promise<void>;
  subscribe(topic: string, expr: string, handler: (msg: OnsMessage) => Promise<void>): void;
  close(): Promise<void>;
}
type OnsConsumerCtor = new (options: Record<string, unknown>) => OnsConsumer;
/** ali-ons's process-wide inner producer (CLIENT_INNER_PRODUCER) that every consumer starts. */
interface OnsProducerClass {
  defaultProducer: { close(): Promise<void> } | null;
}

const require = createRequire(import.meta.url);
const silent = { info() {}, warn() {}, error() {}, debug() {} };
/** ali-ons must never reach the network: NameServer given explicitly, and no HTTP. */
const httpclient = {
  request(): never {
    throw new Error('ali-ons tried an HTTP lookup');
  },
};

describe('ali-ons consumer interop', () => {
  let cluster: EmbeddedCluster;
  let producer: Producer;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
    producer = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: 'PG_ons' });
    await producer.start();
  });
  after(async () => {
    await producer.shutdown();
    await cluster.stop();
  });

  it('the ali-ons consumer sees our tags, keys, properties and UNIQ_KEY intact', async () => {
    const topic = `OnsInterop_${process.pid}`;
    await cluster.createTopic(topic, 4);
    const sent = new Map<string, { tags: string; keys: string; color: string; body: string }>();
    for (let i = 0; i < 4; i++) {
      const body = i === 3 ? 'z'.repeat(5000) : `hello ons ${i}`;
      const r = await producer.send({
        topic,
        body,
        tags: `Tag${i}`,
        keys: [`k${i}`, 'shared'],
        properties: { color: `c${i}` },
      });
      sent.set(r.msgId, { tags: `Tag${i}`, keys: `k${i} shared`, color: `c${i}`, body });
    }
    const { Consumer, Producer: OnsProducer } = require('ali-ons') as {
      Consumer: OnsConsumerCtor;
      Producer: OnsProducerClass;
    };
    const consumer = new Consumer({
      httpclient,
      accessKeyId: 'test',
      accessKeySecret: 'test',
      consumerGroup: `CG_ons_${process.pid}`,
      nameSrv: cluster.namesrvAddr,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      persistent: false,
      logger: silent,
      // ali-ons's scheduled tasks sleep on ref'd timers for a whole interval after close();
      // short intervals let the test process exit promptly.
      pollNameServerInteval: 500,
      heartbeatBrokerInterval: 500,
      rebalanceInterval: 500,
      persistConsumerOffsetInterval: 500,
    });
    consumer.on('error', () => undefined);
    try {
      await consumer.ready();
      const received = new Map<string, OnsMessage>();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.size} of ${sent.size} messages arrived`)),
          20000,
        );
        consumer.subscribe(topic, '*', async (msg) => {
          received.set(msg.properties['UNIQ_KEY'] ?? '', msg);
          if (received.size === sent.size) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      for (const [uniq, want] of sent) {
        const got = received.get(uniq);
        assert.ok(got, `message ${uniq} received under its UNIQ_KEY`);
        assert.equal(got.tags, want.tags);
        assert.equal(got.keys, want.keys);
        assert.equal(got.properties['color'], want.color);
        assert.equal(got.body.toString(), want.body, 'compressed body decoded by ali-ons');
      }
    } finally {
      await consumer.close();
      // Without this ali-ons keeps its shared client (and its timers) alive.
      await OnsProducer.defaultProducer?.close();
      OnsProducer.defaultProducer = null;
    }
  });
});
