import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { RequestNotSupportedError, RequestTimeoutError } from '../../src/errors.js';
import { Producer } from '../../src/producer/producer.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { FAST, unique, waitFor } from '../consumer/helpers.js';
import { brokersOf, proxyScenario } from './helpers.js';

test('transaction producer through the proxy: the check-back settles every transaction on both brokers; rollbacks never delivered', async () => {
  await proxyScenario(2, async (s) => {
    const checked: string[] = [];
    const producer = s.own(
      new TransactionProducer({
        producerGroup: unique('TXP'),
        namesrvAddr: s.proxy.address,
        heartbeatBrokerInterval: 500,
        // Through a Proxy the check listener decides every transaction: it answers as the local one did.
        checkListener: (m) => {
          checked.push(m.body.toString());
          return /commit/.test(m.body.toString()) ? 'COMMIT' : 'ROLLBACK';
        },
      }),
    );
    await producer.start();
    const queues: { brokerName: string }[] = [];
    const bodies: string[] = [];
    for (let i = 0; i < 4; i++) {
      for (const [body, local] of [
        [`commit${i}`, 'COMMIT'],
        [`rollback${i}`, 'ROLLBACK'],
        [`late-commit${i}`, 'UNKNOWN'],
        [`late-rollback${i}`, 'UNKNOWN'],
      ] as const) {
        const r = await producer.sendMessageInTransaction({ topic: s.topic, body }, () => local);
        assert.equal(r.localTransactionState, local);
        queues.push(r.messageQueue);
        bodies.push(body);
      }
    }
    assert.deepEqual(brokersOf(queues), ['broker-a', 'broker-b'], 'half messages on both brokers');
    const seen = new Set<string>();
    const consumer = s.own(
      new PushConsumer({
        namesrvAddr: s.proxy.address,
        consumerGroup: s.group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        ...FAST,
      }),
    );
    consumer.subscribe(s.topic);
    await consumer.start((m: ConsumerMessage) => void seen.add(m.body.toString()));
    const committed = bodies.filter((b) => /commit/.test(b));
    await waitFor(() => committed.every((b) => seen.has(b)), 'every committed message', 30_000);
    // Each broker asked through the proxy about each of its half messages, and the answers
    // (END_TRANSACTION without bname, to the proxy) reached the broker that asked.
    await waitFor(() => bodies.every((b) => checked.includes(b)), 'a check of every transaction', 30_000);
    assert.deepEqual([...seen].sort(), [...committed].sort(), 'no rolled-back message delivered');
  });
});

test('request-reply through the proxy: the Proxy serves no SEND_REPLY_MESSAGE, so the reply is a typed error and the request times out', async () => {
  await proxyScenario(1, async (s) => {
    const producer = s.own(new Producer({ namesrvAddr: s.proxy.address, producerGroup: unique('RP') }));
    await producer.start();
    const replyErrors: unknown[] = [];
    const consumer = s.own(
      new PushConsumer({
        namesrvAddr: s.proxy.address,
        consumerGroup: s.group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        ...FAST,
      }),
    );
    consumer.subscribe(s.topic);
    await consumer.start(async (m: ConsumerMessage) => {
      await consumer.reply(m, 'pong').catch((e: unknown) => void replyErrors.push(e));
    });
    await assert.rejects(producer.request({ topic: s.topic, body: 'ping' }, 3000), RequestTimeoutError);
    await waitFor(() => replyErrors.length > 0, 'the refused reply');
    assert.ok(replyErrors[0] instanceof RequestNotSupportedError, String(replyErrors[0]));
    assert.ok(s.proxy.refused.includes(RequestCode.SEND_REPLY_MESSAGE_V2));
  });
});
