/**
 * A real third-party client against the embedded cluster: ali-ons (the Node.js RocketMQ client)
 * produces N messages and consumes all N back with its push consumer.
 */
import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { uniqueName } from '../broker/rpc-helpers.js';

const require = createRequire(import.meta.url);

interface AliMessage {
  topic: string;
  tags: string;
  keys: string[] | string;
  body: Buffer;
  msgId: string;
}
interface AliProducer {
  ready(): Promise<void>;
  send(msg: unknown): Promise<{ sendStatus: string; msgId: string; messageQueue: { brokerName: string } }>;
  close(): Promise<void>;
}
interface AliConsumer {
  ready(): Promise<void>;
  subscribe(
    topic: string,
    expr: string | { expressionType: string; subString: string },
    handler: (msg: AliMessage) => Promise<void>,
  ): void;
  close(): Promise<void>;
  on(event: 'error', l: (err: Error) => void): void;
}
const ons = require('ali-ons') as {
  Producer: (new (o: object) => AliProducer) & { defaultProducer?: AliProducer | null };
  Consumer: new (o: object) => AliConsumer;
  Message: new (
    topic: string,
    tags: string,
    body: string | Buffer,
  ) => { keys: string[] | string; properties: Record<string, string> };
};

const quiet = { info() {}, warn() {}, error() {}, debug() {} };
/** ali-ons fetches NameServer addresses over HTTP unless nameSrv is given; make sure it never does. */
const noHttp = {
  request(): Promise<never> {
    throw new Error('ali-ons must not make HTTP requests in tests');
  },
};

function aliOptions(extra: object, namesrv: string): object {
  return {
    nameSrv: namesrv,
    httpclient: noHttp,
    instanceName: uniqueName('ons'),
    accessKey: 'dummy-ak',
    secretKey: 'dummy-sk',
    logger: quiet,
    // ali-ons' scheduled loops sleep a whole interval (not unref'd) before they see close()
    pollNameServerInteval: 500,
    heartbeatBrokerInterval: 500,
    rebalanceInterval: 500,
    persistConsumerOffsetInterval: 500,
    pullTimeDelayMillsWhenException: 200,
    ...extra,
  };
}

/**
 * Runs an ali-ons push consumer (fresh group, from the first offset) until `onMessage` returns
 * true, or fails after 20 s with `progress()` and the consumer's errors in the message.
 */
async function consumeUntil(
  namesrv: string,
  topic: string,
  expr: string | { expressionType: string; subString: string },
  onMessage: (msg: AliMessage) => boolean,
  progress: () => string,
): Promise<void> {
  const consumer = new ons.Consumer(
    aliOptions(
      { consumerGroup: uniqueName('OnsCG'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      namesrv,
    ),
  );
  const errors: Error[] = [];
  consumer.on('error', (err) => errors.push(err));
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  consumer.subscribe(topic, expr, async (msg) => {
    if (onMessage(msg)) done();
  });
  await consumer.ready();
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`${progress()}; errors: ${errors.map((e) => e.message).join('; ')}`)),
      20_000,
    ).unref(),
  );
  try {
    await Promise.race([finished, timeout]);
  } finally {
    await consumer.close();
  }
}

describe('ali-ons against the embedded cluster', () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
  });
  after(async () => {
    // ali-ons keeps one process-wide inner producer (CLIENT_INNER_PRODUCER) that close() never stops.
    const inner = ons.Producer.defaultProducer;
    ons.Producer.defaultProducer = null;
    await inner?.close();
    await cluster.stop();
  });

  it('produces N messages and its push consumer receives all N with bodies, tags and keys intact', async () => {
    const topic = uniqueName('OnsTopic');
    await cluster.createTopic(topic, 4);
    const producer = new ons.Producer(
      aliOptions({ producerGroup: uniqueName('OnsPG') }, cluster.namesrvAddr),
    );
    await producer.ready();
    const n = 20;
    const sent = new Map<string, { tags: string; keys: string }>();
    const brokersUsed = new Set<string>();
    for (let i = 0; i < n; i++) {
      const body = `ons-body-${i}-${'x'.repeat(i)}`;
      const msg = new ons.Message(topic, `Tag${i % 3}`, body);
      msg.keys = [`key-${i}`];
      const result = await producer.send(msg);
      assert.equal(result.sendStatus, 'SEND_OK');
      brokersUsed.add(result.messageQueue.brokerName);
      sent.set(body, { tags: `Tag${i % 3}`, keys: `key-${i}` });
    }
    assert.equal(brokersUsed.size, 2, 'the producer spread messages over both brokers');
    await producer.close();

    const received = new Map<string, { tags: string; keys: string }>();
    await consumeUntil(
      cluster.namesrvAddr,
      topic,
      '*',
      (msg) => {
        received.set(msg.body.toString(), {
          tags: msg.tags,
          keys: Array.isArray(msg.keys) ? msg.keys.join(' ') : msg.keys,
        });
        return received.size >= n;
      },
      () => `only ${received.size}/${n} received`,
    );
    assert.deepEqual(new Map([...received].sort()), new Map([...sent].sort()));
  });

  it('a push consumer with a SQL92 selector receives only the messages whose properties match', async () => {
    const topic = uniqueName('OnsSqlTopic');
    await cluster.createTopic(topic, 4);
    const producer = new ons.Producer(
      aliOptions({ producerGroup: uniqueName('OnsSqlPG') }, cluster.namesrvAddr),
    );
    await producer.ready();
    const expected = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const tag = i % 2 === 0 ? 'Even' : 'Odd';
      const msg = new ons.Message(topic, tag, `sql-${i}`);
      msg.properties.price = String(i);
      assert.equal((await producer.send(msg)).sendStatus, 'SEND_OK');
      if (i >= 6 && tag === 'Even') expected.add(`sql-${i}`);
    }
    await producer.close();
    const received = new Set<string>();
    await consumeUntil(
      cluster.namesrvAddr,
      topic,
      { expressionType: 'SQL92', subString: "price >= 6 AND TAGS = 'Even'" },
      (msg) => {
        received.add(msg.body.toString());
        return [...expected].every((b) => received.has(b));
      },
      () => `received ${[...received].join(',')}`,
    );
    assert.deepEqual([...received].sort(), [...expected].sort());
  });
});
