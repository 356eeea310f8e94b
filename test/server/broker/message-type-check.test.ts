/**
 * The embedded broker's `enableTopicMessageTypeCheck` on a two-broker cluster: each mismatched
 * send reaches the application as MessageTypeMismatchError naming the topic and both types, and
 * only one broker was asked (counted on the `rocketmq:request` channel); matching sends store.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { Admin } from '../../../src/admin/admin.js';
import { MessageTypeMismatchError } from '../../../src/errors.js';
import { REQUEST_CHANNEL, type RequestTraceContext } from '../../../src/observability/channels.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { encodeBatch } from '../../../src/protocol/message/batch.js';
import { encodeProperties, PropertyKey } from '../../../src/protocol/message/properties.js';
import { Producer } from '../../../src/producer/producer.js';
import { TransactionProducer } from '../../../src/producer/transaction-producer.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

const SEND_CODES = new Set<number>([
  RequestCode.SEND_MESSAGE,
  RequestCode.SEND_MESSAGE_V2,
  RequestCode.SEND_BATCH_MESSAGE,
]);

/** Addresses of the send requests made while `run` runs. */
async function sendTargets(run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  // The start events of the tracing channel every request publishes (observability/channels.ts).
  const start = diagnosticsChannel.channel(`tracing:${REQUEST_CHANNEL}:start`);
  const onStart = (message: unknown): void => {
    const ctx = message as RequestTraceContext;
    if (SEND_CODES.has(ctx.code)) seen.push(ctx.address);
  };
  start.subscribe(onStart);
  try {
    await run();
  } finally {
    start.unsubscribe(onStart);
  }
  return seen;
}

async function expectMismatch(
  run: () => Promise<unknown>,
  topic: string,
  expected: string,
  actual: string,
): Promise<void> {
  let caught: unknown;
  const targets = await sendTargets(async () => {
    await run().catch((err: unknown) => {
      caught = err;
    });
  });
  assert.ok(caught instanceof MessageTypeMismatchError, `got ${String(caught)}`);
  assert.equal(caught.topic, topic);
  assert.equal(caught.expectedType, expected);
  assert.equal(caught.actualType, actual);
  assert.equal(caught.retriable, false);
  assert.match(caught.message, new RegExp(`${topic}.*${expected}.*${actual}`));
  assert.equal(targets.length, 1, `asked ${targets.join(', ')}`);
}

test('message type check on two brokers: each mismatch is one MessageTypeMismatchError from one broker', async () => {
  const cluster = await EmbeddedCluster.start({
    brokers: 2,
    brokerOptions: { enableTopicMessageTypeCheck: true },
  });
  const namesrvAddr = cluster.namesrvAddr;
  const admin = new Admin({ namesrvAddr });
  const producer = new Producer({ namesrvAddr, producerGroup: uniqueName('PG') });
  const tx = new TransactionProducer({
    namesrvAddr,
    producerGroup: uniqueName('TG'),
    checkListener: () => 'ROLLBACK',
  });
  try {
    const fifo = uniqueName('Fifo');
    const normal = uniqueName('Normal');
    const delay = uniqueName('Delay');
    for (const [topic, messageType] of [
      [fifo, 'FIFO'],
      [normal, 'NORMAL'],
      [delay, 'DELAY'],
    ] as const)
      await admin.createTopic({
        topic,
        cluster: 'DefaultCluster',
        messageType,
        readQueues: 2,
        writeQueues: 2,
      });
    await producer.start();
    await tx.start();

    await expectMismatch(() => producer.send({ topic: fifo, body: 'plain' }), fifo, 'FIFO', 'NORMAL');
    await expectMismatch(
      () => producer.send({ topic: normal, body: 'later', deliverAfterMs: 60_000 }),
      normal,
      'NORMAL',
      'DELAY',
    );
    await expectMismatch(
      () => tx.sendMessageInTransaction({ topic: normal, body: 'tx' }, () => 'COMMIT'),
      normal,
      'NORMAL',
      'TRANSACTION',
    );
    // A message group (__SHARDINGKEY) makes the message FIFO.
    await expectMismatch(
      () => producer.send({ topic: normal, body: 'grouped', messageGroup: 'g1' }),
      normal,
      'NORMAL',
      'FIFO',
    );

    // Matching types are stored.
    assert.equal((await producer.send({ topic: normal, body: 'ok' })).status, 'SEND_OK');
    assert.equal(
      (await producer.send({ topic: delay, body: 'd', deliverAfterMs: 60_000 })).status,
      'SEND_OK',
    );
    const grouped = await producer.send({
      topic: fifo,
      body: 'g',
      messageGroup: 'g1',
    });
    assert.equal(grouped.status, 'SEND_OK');

    // A batch is checked message by message: one delayed record among normal ones is refused.
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const body = encodeBatch([
        { body: Buffer.from('a'), flag: 0, properties: encodeProperties({ UNIQ_KEY: 'A1' }) },
        {
          body: Buffer.from('b'),
          flag: 0,
          properties: encodeProperties({ UNIQ_KEY: 'A2', [PropertyKey.SHARDING_KEY]: 'g' }),
        },
      ]);
      const refused = await rpc.request(
        RequestCode.SEND_BATCH_MESSAGE,
        sendV2Header({ topic: normal, body }),
        body,
      );
      assert.equal(refused.code, ResponseCode.MESSAGE_ILLEGAL);
      assert.equal(
        refused.remark,
        'TopicMessageType validate failed, the expected type is NORMAL, but actual type is FIFO',
      );
      const fine = encodeBatch([
        { body: Buffer.from('c'), flag: 0, properties: encodeProperties({ UNIQ_KEY: 'A3' }) },
      ]);
      const stored = await rpc.request(
        RequestCode.SEND_BATCH_MESSAGE,
        sendV2Header({ topic: normal, body: fine }),
        fine,
      );
      assert.equal(stored.code, ResponseCode.SUCCESS);
    } finally {
      rpc.close();
    }
  } finally {
    await tx.shutdown().catch(() => undefined);
    await producer.shutdown().catch(() => undefined);
    await admin.close();
    await cluster.stop();
  }
});

test('message type check off (the default): a normal message to a FIFO topic is stored', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  const producer = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: uniqueName('PG') });
  try {
    const fifo = uniqueName('Fifo');
    await admin.createTopic({ topic: fifo, cluster: 'DefaultCluster', messageType: 'FIFO' });
    await producer.start();
    assert.equal((await producer.send({ topic: fifo, body: 'plain' })).status, 'SEND_OK');
  } finally {
    await producer.shutdown().catch(() => undefined);
    await admin.close();
    await cluster.stop();
  }
});
