/**
 * Our PushConsumer and ali-ons' push consumer on the embedded cluster, one topic, two groups:
 * each group gets every message once, and both clients see the same message ids, bodies, tags,
 * keys and properties. ali-ons gets an explicit name server and an HTTP client that throws.
 */
import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { PushConsumer } from '../../src/consumer/index.js';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { uniqueName } from '../server/broker/rpc-helpers.js';

const require = createRequire(import.meta.url);

interface OnsMessage {
  msgId: string;
  tags: string;
  keys: string[] | string;
  body: Buffer;
  properties: Record<string, string>;
  queueId: number;
  queueOffset: number;
}
interface OnsConsumer {
  ready(): Promise<void>;
  subscribe(topic: string, expr: string, handler: (msg: OnsMessage) => Promise<void>): void;
  close(): Promise<void>;
  on(event: 'error', l: (err: Error) => void): void;
}
interface OnsProducer {
  close(): Promise<void>;
}
const ons = require('ali-ons') as {
  Consumer: new (o: object) => OnsConsumer;
  Producer: { defaultProducer?: OnsProducer | null };
};

const quiet = { info() {}, warn() {}, error() {}, debug() {} };
const noHttp = {
  request(): Promise<never> {
    throw new Error('ali-ons must not make HTTP requests in tests');
  },
};

interface Seen {
  body: string;
  tags: string | undefined;
  keys: string;
  n: string | undefined;
}

function waitFor(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (cond()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 20);
  });
}

describe('ali-ons and our consumer on the embedded cluster', () => {
  let cluster: EmbeddedCluster;
  let producer: Producer;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
    producer = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: uniqueName('SideBySidePG') });
    await producer.start();
  });
  after(async () => {
    await producer?.shutdown();
    // ali-ons keeps one process-wide inner producer that close() never stops.
    const inner = ons.Producer.defaultProducer;
    ons.Producer.defaultProducer = null;
    await inner?.close();
    await cluster?.stop();
  });

  it('consume the same topic in different groups: each group gets every message once, with the same fields', async () => {
    const topic = uniqueName('SideBySide');
    await cluster.createTopic(topic, 4);
    const sent = new Map<string, Seen>();
    const sendSome = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        const body = `side-${i}`;
        const r = await producer.send({
          topic,
          body,
          tags: `T${i % 3}`,
          keys: [`k${i}`],
          properties: { n: String(i) },
        });
        sent.set(r.msgId, { body, tags: `T${i % 3}`, keys: `k${i}`, n: String(i) });
      }
    };
    await sendSome(0, 30);

    const fromOns = new Map<string, Seen>();
    let onsDuplicates = 0;
    const onsConsumer = new ons.Consumer({
      nameSrv: cluster.namesrvAddr,
      httpclient: noHttp,
      instanceName: uniqueName('ons'),
      accessKey: 'dummy-ak',
      secretKey: 'dummy-sk',
      logger: quiet,
      consumerGroup: uniqueName('OnsGroup'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      // ali-ons' scheduled loops sleep a whole interval (not unref'd) before they see close()
      pollNameServerInteval: 500,
      heartbeatBrokerInterval: 500,
      rebalanceInterval: 500,
      persistConsumerOffsetInterval: 500,
      pullTimeDelayMillsWhenException: 200,
    });
    const onsErrors: Error[] = [];
    onsConsumer.on('error', (err) => onsErrors.push(err));
    onsConsumer.subscribe(topic, '*', async (msg) => {
      // ali-ons' msgId is the broker's offset id; the producer's id is UNIQ_KEY, as in our msgId.
      const id = msg.properties['UNIQ_KEY'] ?? msg.msgId;
      if (fromOns.has(id)) onsDuplicates++;
      fromOns.set(id, {
        body: msg.body.toString(),
        tags: msg.tags,
        keys: Array.isArray(msg.keys) ? msg.keys.join(' ') : msg.keys,
        n: msg.properties['n'],
      });
    });

    const fromOurs = new Map<string, Seen>();
    let ourDuplicates = 0;
    const ours = new PushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: uniqueName('OurGroup'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    ours.subscribe(topic, '*');

    try {
      await Promise.all([
        onsConsumer.ready(),
        ours.start(async (m) => {
          if (fromOurs.has(m.msgId)) ourDuplicates++;
          fromOurs.set(m.msgId, {
            body: m.body.toString(),
            tags: m.tags,
            keys: m.keys.join(' '),
            n: m.properties['n'],
          });
        }),
      ]);
      // Half the messages were waiting before either consumer started, half arrive while both run.
      await sendSome(30, 60);
      await waitFor('both groups to get all 60', () => fromOns.size >= 60 && fromOurs.size >= 60);
    } finally {
      await ours.shutdown();
      await onsConsumer.close();
    }
    assert.deepEqual(fromOurs, sent, 'our group: every message, fields intact');
    assert.deepEqual(fromOns, sent, 'ali-ons group: every message, fields intact');
    assert.equal(ourDuplicates, 0);
    assert.equal(onsDuplicates, 0);
    assert.deepEqual(onsErrors, []);
  });
});
