/**
 * Our clients with `namesrvAddr` at a real 5.5.0 Proxy's remoting endpoint (cluster mode, its
 * message-type check on): the Producer sends every message type to a topic of that type and
 * batches, the TransactionProducer's check-back comes through the Proxy, PushConsumer and
 * LitePullConsumer read through it, request-reply goes both ways through it; a message of the
 * wrong type is a MessageTypeMismatchError naming both types, sent once (never retried); the
 * Java 5.5.0 client sends FIFO, priority and timer messages through the same Proxy and ours
 * consume them. Run by proxy-cluster.test.ts on its cluster.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LitePullConsumer } from '../src/consumer/lite-pull/lite-pull-consumer.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { MessageTypeMismatchError, RequestNotSupportedError, RequestTimeoutError } from '../src/errors.js';
import { Producer } from '../src/producer/producer.js';
import { TransactionProducer, type LocalTransactionState } from '../src/producer/transaction-producer.js';
import { PropertyKey } from '../src/protocol/message/properties.js';
import { runDriver } from './java.js';
import { countSends, createTypedTopic, until, type ProxyEnv } from './proxy-fixture.js';
import type { RealCluster } from './real-cluster.js';

const run = Date.now().toString(36);

interface JavaSent {
  sent: { seq: number; status: string; msgId: string; queueId: number; recallHandle: string | null }[];
  errors: string[];
}

/** Registers the tests (a `describe`) on `env`'s cluster. */
export function proxyClientTests(env: ProxyEnv): void {
  describe('our clients through the Proxy', { concurrency: 1 }, () => {
    let cluster: RealCluster;
    let producer: Producer;
    let txProducer: TransactionProducer;
    const consumers: Array<{ shutdown(): Promise<void> }> = [];
    /** Check-back answers by body: `tx-rollback` rolls back, anything else commits. */
    const checked: string[] = [];
    const topics = {
      normal: `px_normal_${run}`,
      delay: `px_delay_${run}`,
      tx: `px_tx_${run}`,
      fifo: `px_fifo_${run}`,
      priority: `px_prio_${run}`,
    };

    before(async () => {
      cluster = env.cluster;
      await createTypedTopic(cluster, topics.normal, 'NORMAL');
      await createTypedTopic(cluster, topics.delay, 'DELAY');
      await createTypedTopic(cluster, topics.tx, 'TRANSACTION');
      await createTypedTopic(cluster, topics.fifo, 'FIFO');
      await createTypedTopic(cluster, topics.priority, 'PRIORITY');
      producer = new Producer({
        producerGroup: `px_pg_${run}`,
        namesrvAddr: cluster.proxyAddr,
        instanceName: `px_${run}`,
        pollNameServerInterval: 1000,
      });
      txProducer = new TransactionProducer({
        producerGroup: `px_txpg_${run}`,
        namesrvAddr: cluster.proxyAddr,
        instanceName: `px_tx_${run}`,
        pollNameServerInterval: 1000,
        checkListener: (m): LocalTransactionState => {
          const body = m.body.toString();
          checked.push(body);
          return body === 'tx-rollback' ? 'ROLLBACK' : 'COMMIT';
        },
      });
      await producer.start();
      await txProducer.start();
    });

    after(async () => {
      for (const c of consumers) await c.shutdown().catch(() => undefined);
      await producer?.shutdown();
      await txProducer?.shutdown();
    });

    function pushConsumer(group: string, topicList: string[], consumeOrderly = false): PushConsumer {
      const c = new PushConsumer({
        namesrvAddr: cluster.proxyAddr,
        consumerGroup: group,
        instanceName: `px_${group}`,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeOrderly,
        rebalanceInterval: 1000,
        pollNameServerInterval: 1000,
        heartbeatBrokerInterval: 1000,
      });
      for (const t of topicList) c.subscribe(t);
      consumers.push(c);
      return c;
    }

    /** Our push consumer (through the Proxy) on `topicList` until every body of `expected` arrived. */
    async function consumeBodies(
      group: string,
      topicList: string[],
      expected: readonly string[],
    ): Promise<Set<string>> {
      const got = new Set<string>();
      const c = pushConsumer(group, topicList);
      await c.start((m: ConsumerMessage) => {
        got.add(m.body.toString());
      });
      await until(() => expected.every((b) => got.has(b)), 120_000, `every message (got ${[...got]})`);
      return got;
    }

    it('NORMAL, batch and DELAY sends to topics of their type reach a PushConsumer through the Proxy', async () => {
      const expected: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await producer.send({ topic: topics.normal, body: `normal-${i}` });
        assert.equal(r.status, 'SEND_OK');
        expected.push(`normal-${i}`);
      }
      const batch = await producer.sendBatch(
        [0, 1, 2].map((i) => ({ topic: topics.normal, body: `batch-${i}` })),
      );
      assert.equal(batch.status, 'SEND_OK');
      assert.equal(batch.msgId.split(',').length, 3);
      for (let i = 0; i < 3; i++) expected.push(`batch-${i}`);
      const delayed = await producer.send({ topic: topics.delay, body: 'delay-0', deliverAfterMs: 2000 });
      assert.equal(delayed.status, 'SEND_OK');
      expected.push('delay-0');
      await consumeBodies(`px_all_${run}`, [topics.normal, topics.delay], expected);
    });

    it('TRANSACTION through the Proxy: committed ones reach a consumer, rolled back never (the decision lands through the check-back)', async () => {
      const local: Array<[string, LocalTransactionState]> = [
        ['tx-commit', 'COMMIT'],
        ['tx-unknown', 'UNKNOWN'],
        ['tx-rollback', 'ROLLBACK'],
        ['tx-last', 'COMMIT'],
      ];
      for (const [body, state] of local) {
        const r = await txProducer.sendMessageInTransaction({ topic: topics.tx, body }, () => state);
        assert.equal(r.localTransactionState, state);
      }
      // The 5.5.0 Proxy keeps transaction data only for check-backs it relays over remoting: an
      // END_TRANSACTION right after the local transaction finds none and is answered SUCCESS and
      // dropped (TransactionActivity, TRANSACTION_DATA_NOT_FOUND), so every decision here lands
      // through the broker's check-back, which the listener answers as the local transaction did.
      await until(() => checked.includes('tx-unknown'), 90_000, 'the check-back through the Proxy');
      const got = await consumeBodies(`px_tx_cg_${run}`, [topics.tx], ['tx-commit', 'tx-unknown', 'tx-last']);
      // tx-last was decided after tx-rollback: once it is here, tx-rollback's decision is taken too.
      assert.ok(!got.has('tx-rollback'), 'a rolled-back transaction is never delivered');
    });

    it('a message of the wrong type is a MessageTypeMismatchError naming both types, sent once', async () => {
      const cases: Array<{
        what: string;
        expectedType: string;
        actualType: string;
        send: () => Promise<unknown>;
      }> = [
        {
          what: 'a normal message to a FIFO topic',
          expectedType: 'FIFO',
          actualType: 'NORMAL',
          send: () => producer.send({ topic: topics.fifo, body: 'x' }),
        },
        {
          what: 'a delay message to a NORMAL topic',
          expectedType: 'NORMAL',
          actualType: 'DELAY',
          send: () => producer.send({ topic: topics.normal, body: 'x', deliverAfterMs: 5000 }),
        },
        {
          what: 'a transaction to a NORMAL topic',
          expectedType: 'NORMAL',
          actualType: 'TRANSACTION',
          send: () =>
            txProducer.sendMessageInTransaction({ topic: topics.normal, body: 'x' }, () => 'COMMIT'),
        },
      ];
      for (const k of cases) {
        const { sends, result } = await countSends(k.send);
        assert.equal(result.status, 'rejected', `${k.what} was accepted`);
        const err = (result as PromiseRejectedResult).reason as unknown;
        assert.ok(err instanceof MessageTypeMismatchError, `${k.what}: ${String(err)}`);
        assert.equal(err.expectedType, k.expectedType, k.what);
        assert.equal(err.actualType, k.actualType, k.what);
        assert.equal(err.retriable, false);
        assert.ok(err.message.includes(k.expectedType) && err.message.includes(k.actualType), err.message);
        assert.equal(sends, 1, `${k.what}: sent once, not retried`);
      }
    });

    it('a LitePullConsumer reads a topic through the Proxy', async () => {
      const topic = `px_lite_${run}`;
      await createTypedTopic(cluster, topic, 'NORMAL', 2);
      const sent = new Set<string>();
      for (let i = 0; i < 6; i++) sent.add((await producer.send({ topic, body: `lite-${i}` })).msgId);
      const c = new LitePullConsumer({
        consumerGroup: `px_lite_cg_${run}`,
        namesrvAddr: cluster.proxyAddr,
        instanceName: `px_lite_${run}`,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        pollNameServerInterval: 1000,
      });
      consumers.push(c);
      c.subscribe(topic);
      await c.start();
      const got = new Set<string>();
      const deadline = Date.now() + 90_000;
      while (got.size < sent.size && Date.now() < deadline)
        for (const m of await c.poll(1000)) got.add(m.msgId);
      assert.deepEqual([...got].sort(), [...sent].sort());
    });

    it('request-reply through the Proxy: the 5.5.0 Proxy serves no SEND_REPLY_MESSAGE_V2, so reply() fails typed and the request times out', async () => {
      // The Proxy's remoting server registers no SEND_REPLY_MESSAGE(_V2) (324/325) and relays no
      // PUSH_REPLY_MESSAGE_TO_CLIENT (326) (RemotingProtocolServer, ProxyClientRemotingProcessor):
      // request-reply needs the brokers' own endpoints.
      const topic = `px_rr_${run}`;
      await createTypedTopic(cluster, topic, 'NORMAL', 2);
      const replyErrors: unknown[] = [];
      const responder = pushConsumer(`px_responder_${run}`, [topic]);
      await responder.start(async (m: ConsumerMessage) => {
        if (m.systemProperties[PropertyKey.CORRELATION_ID] === undefined) return;
        await responder.reply(m, `reply:${m.body.toString()}`).catch((err: unknown) => {
          replyErrors.push(err);
        });
      });
      await assert.rejects(producer.request({ topic, body: 'req-0' }, 10_000), RequestTimeoutError);
      await until(() => replyErrors.length > 0, 60_000, 'the responder’s reply attempt');
      const err = replyErrors[0];
      assert.ok(err instanceof RequestNotSupportedError, String(err));
      assert.equal(err.retriable, false);
    });

    it('the Java 5.5.0 client sends FIFO, priority and timer messages through the Proxy; our consumers get them', async () => {
      const driver = (kind: string, topic: string, extra: string[] = []): Promise<JavaSent> =>
        runDriver<JavaSent>('5.5.0', [
          'send5',
          '--namesrv',
          cluster.proxyAddr,
          '--topic',
          topic,
          '--kind',
          kind,
          ...extra,
        ]);
      const fifo = await driver('fifo', topics.fifo, ['--count', '12', '--groups', '3']);
      const prio = await driver('priority', topics.priority, ['--count', '8', '--levels', '6']);
      const timer = await driver('timer', topics.delay, ['--count', '2', '--delay-ms', '2000']);
      for (const r of [fifo, prio, timer]) {
        assert.deepEqual(r.errors, []);
        assert.ok(r.sent.every((s) => s.status === 'SEND_OK'));
      }
      // The broker answers a single timer send with a recall handle, through the Proxy too.
      for (const s of timer.sent) assert.match(s.recallHandle ?? '', /^[A-Za-z0-9_-]+=*$/);

      const fifoGot: ConsumerMessage[] = [];
      const orderly = pushConsumer(`px_java_fifo_${run}`, [topics.fifo], true);
      await orderly.start((m: ConsumerMessage) => {
        fifoGot.push(m);
      });
      const otherGot = new Map<string, ConsumerMessage>();
      const plain = pushConsumer(`px_java_other_${run}`, [topics.priority, topics.delay]);
      await plain.start((m: ConsumerMessage) => {
        if (m.tags === 'java5') otherGot.set(m.msgId, m);
      });
      await until(() => new Set(fifoGot.map((m) => m.msgId)).size >= 12, 120_000, 'the Java FIFO messages');
      const byGroup = new Map<string, number[]>();
      for (const m of fifoGot) {
        const group = m.messageGroup ?? '?';
        byGroup.set(group, [...(byGroup.get(group) ?? []), Number(m.properties.seq)]);
      }
      assert.deepEqual([...byGroup.keys()].sort(), ['g0', 'g1', 'g2']);
      for (const [group, seqs] of byGroup) {
        const first = seqs.filter((s, i) => seqs.indexOf(s) === i);
        assert.deepEqual(
          first,
          [...first].sort((a, b) => a - b),
          `group ${group} in send order`,
        );
      }
      const expected = [...prio.sent, ...timer.sent].map((s) => s.msgId);
      await until(
        () => expected.every((id) => otherGot.has(id)),
        120_000,
        'the Java priority and timer messages',
      );
      for (const s of prio.sent) {
        const m = otherGot.get(s.msgId)!;
        const priority = m.priority ?? -1;
        assert.equal(priority, s.seq % 6);
        // On a PRIORITY topic the broker puts a message on queue min(priority, writeQueues − 1).
        assert.equal(m.queue.queueId, Math.min(priority, 3), `priority ${priority}`);
      }
    });
  });
}
