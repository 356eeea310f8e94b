import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { SystemTopic } from '../../src/protocol/validation.js';
import { PropertyKey } from '../../src/protocol/message/properties.js';
import { MessageSysFlag, transactionValue } from '../../src/protocol/message/sysflag.js';
import {
  TransactionProducer,
  type LocalTransactionState,
  type TransactionCheckMessage,
} from '../../src/producer/transaction-producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { FAST, unique, waitFor } from '../consumer/helpers.js';
import { readTopic, waitFor as waitUntil } from './cluster-helpers.js';

/** Check-back within a second: the half message is checked 300 ms after it was stored, every 150 ms. */
const FAST_CHECKS = { transactionTimeOut: 300, transactionCheckInterval: 150 };

async function withTransactions(
  brokerOptions: Record<string, number>,
  checkListener: (m: TransactionCheckMessage) => LocalTransactionState | Promise<LocalTransactionState>,
  fn: (c: { cluster: EmbeddedCluster; producer: TransactionProducer; topic: string }) => Promise<void>,
  extra: { localTransactionTimeout?: number } = {},
): Promise<void> {
  const cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions });
  const producer = new TransactionProducer({
    producerGroup: unique('TXP'),
    namesrvAddr: cluster.namesrvAddr,
    heartbeatBrokerInterval: 500,
    checkListener,
    ...extra,
  });
  try {
    const topic = unique('TX');
    await cluster.createTopic(topic, 2);
    await producer.start();
    await fn({ cluster, producer, topic });
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
}

test('transactions: the consumer sees committed messages, never rolled-back ones, and UNKNOWN ones once check-back commits them', async () => {
  const checked: string[] = [];
  await withTransactions(
    FAST_CHECKS,
    (m) => {
      checked.push(m.body.toString());
      return m.body.toString() === 'unknown-then-commit' || m.body.toString() === 'throws-then-commit'
        ? 'COMMIT'
        : 'ROLLBACK';
    },
    async ({ cluster, producer, topic }) => {
      const commit = await producer.sendMessageInTransaction({ topic, body: 'commit' }, () => 'COMMIT');
      assert.equal(commit.localTransactionState, 'COMMIT');
      assert.equal(commit.transactionId, commit.msgId);
      const rollback = await producer.sendMessageInTransaction(
        { topic, body: 'rollback' },
        async (): Promise<LocalTransactionState> => 'ROLLBACK',
      );
      assert.equal(rollback.localTransactionState, 'ROLLBACK');
      const unknown = await producer.sendMessageInTransaction(
        { topic, body: 'unknown-then-commit' },
        () => 'UNKNOWN',
      );
      assert.equal(unknown.localTransactionState, 'UNKNOWN');
      const threw = await producer.sendMessageInTransaction({ topic, body: 'throws-then-commit' }, () => {
        throw new Error('db down');
      });
      assert.equal(threw.localTransactionState, 'UNKNOWN');
      const unknownRollback = await producer.sendMessageInTransaction(
        { topic, body: 'unknown-then-rollback' },
        () => 'UNKNOWN',
      );
      assert.equal(unknownRollback.localTransactionState, 'UNKNOWN');

      // The half message went out as Java sends it: prepared bit, TRAN_MSG and PGROUP.
      const halves = (await readTopic(cluster, SystemTopic.RMQ_SYS_TRANS_HALF_TOPIC, 1)).filter(
        (h) => h.properties[PropertyKey.REAL_TOPIC] === topic,
      );
      assert.equal(halves.length, 5);
      for (const h of halves) {
        assert.equal(h.properties[PropertyKey.TRAN_MSG], 'true');
        assert.equal(h.properties[PropertyKey.PGROUP], producer.options.producerGroup);
      }

      const seen: string[] = [];
      const consumer = new PushConsumer({
        namesrvAddr: cluster.namesrvAddr,
        consumerGroup: unique('TXC'),
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        ...FAST,
      });
      consumer.subscribe(topic);
      try {
        await consumer.start((m: ConsumerMessage) => {
          seen.push(m.body.toString());
          assert.equal(transactionValue(m.sysFlag), MessageSysFlag.TRANSACTION_COMMIT_TYPE);
        });
        await waitFor(() => seen.length >= 3, 'the committed messages');
        // Give a rolled-back message time to (wrongly) appear: the check loop runs every 150 ms.
        await waitFor(() => checked.includes('unknown-then-rollback'), 'the check of the UNKNOWN rollback');
        await new Promise((r) => setTimeout(r, 600));
      } finally {
        await consumer.shutdown();
      }
      assert.deepEqual([...seen].sort(), ['commit', 'throws-then-commit', 'unknown-then-commit']);
      assert.ok(
        !checked.includes('commit') && !checked.includes('rollback'),
        'resolved ones are never checked',
      );
    },
  );
});

test('transactions: a local transaction that outlives localTransactionTimeout reports UNKNOWN and check-back decides', async () => {
  let release: (() => void) | undefined;
  await withTransactions(
    FAST_CHECKS,
    () => 'COMMIT',
    async ({ cluster, producer, topic }) => {
      const r = await producer.sendMessageInTransaction(
        { topic, body: 'slow' },
        () => new Promise<LocalTransactionState>((resolve) => (release = () => resolve('ROLLBACK'))),
      );
      assert.equal(r.localTransactionState, 'UNKNOWN');
      release?.();
      await waitUntil(
        async () => (await readTopic(cluster, topic, 2)).length === 1,
        10_000,
        'the check-back commit',
      );
    },
    { localTransactionTimeout: 50 },
  );
});

test('transactions: a half message left UNKNOWN is checked transactionCheckMax times, then discarded to TRANS_CHECK_MAX_TIME_TOPIC', async () => {
  let checks = 0;
  const checkedAt: number[] = [];
  await withTransactions(
    { ...FAST_CHECKS, transactionCheckMax: 3 },
    () => {
      checks++;
      checkedAt.push(Date.now());
      return 'UNKNOWN';
    },
    async ({ cluster, producer, topic }) => {
      const sentAt = Date.now();
      const r = await producer.sendMessageInTransaction({ topic, body: 'never-decided' }, () => 'UNKNOWN');
      assert.equal(r.localTransactionState, 'UNKNOWN');
      const discarded = async (): Promise<boolean> =>
        (await readTopic(cluster, SystemTopic.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC, 1)).some(
          (m) => m.body.toString() === 'never-decided',
        );
      await waitUntil(discarded, 10_000, 'the discard');
      const after = checks;
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(after, 3, 'checked exactly transactionCheckMax times');
      assert.equal(checks, 3, 'no check after the discard');
      // The schedule: nothing before transactionTimeOut (300 ms), then one check per scan.
      assert.ok(
        checkedAt[0]! - sentAt >= FAST_CHECKS.transactionTimeOut,
        `first check after ${checkedAt[0]! - sentAt} ms`,
      );
      for (let i = 1; i < checkedAt.length; i++)
        assert.ok(checkedAt[i]! > checkedAt[i - 1]!, 'one check per scan');
      assert.equal((await readTopic(cluster, topic, 2)).length, 0, 'never delivered');
    },
  );
});

test('transactions: bad input is a typed error', async () => {
  assert.throws(
    () => new TransactionProducer({ namesrvAddr: '127.0.0.1:9876' } as never),
    (e: unknown) => e instanceof InvalidArgumentError && e.field === 'checkListener',
  );
  assert.throws(
    () =>
      new TransactionProducer({
        namesrvAddr: '127.0.0.1:9876',
        checkListener: () => 'COMMIT',
        checkListner: 1,
      } as never),
    (e: unknown) => e instanceof InvalidArgumentError && e.field === 'checkListner',
  );
  await withTransactions(
    FAST_CHECKS,
    () => 'COMMIT',
    async ({ producer, topic }) => {
      await assert.rejects(
        producer.sendMessageInTransaction({ topic, body: 'x' }, undefined as never),
        (e: unknown) => e instanceof InvalidArgumentError && e.field === 'executeLocal',
      );
    },
  );
});
