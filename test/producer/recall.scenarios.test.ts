/**
 * Recall (RECALL_MESSAGE 370) end to end on the embedded broker: a recalled timer message is never
 * delivered (also across a broker restart), recall off is a typed error naming the setting, bad
 * handles fail before any I/O, a handle whose message was delivered is refused, `{ signal }`.
 * "Never delivered" is checked after a deterministic signal: a message due after the recalled one,
 * sent after the recall, was delivered to the same single queue, and the recalled one was not.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import {
  AbortError,
  BrokerNotFoundError,
  InvalidArgumentError,
  RecallDisabledError,
  RecallRejectedError,
  TopicNotFoundError,
} from '../../src/errors.js';
import type { Producer } from '../../src/producer/producer.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { decodeRecallHandle, encodeRecallHandle } from '../../src/protocol/message/recall-handle.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { FAST } from '../consumer/helpers.js';
import { producerPool, readTopic, uniqueTopic, waitFor, watchRequests } from './cluster-helpers.js';

/** Far enough ahead that the recall always arrives first, even on a loaded machine. */
const DELAY_MS = 4000;

describe('recall of timer messages on the embedded broker', () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;
  const pool = producerPool(() => cluster, 'PGRecall');
  const closers: Array<() => Promise<void>> = [];
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  });
  after(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await pool.shutdownAll();
    await admin.shutdown();
    await cluster.stop();
  });
  const bodies = async (topic: string): Promise<string[]> =>
    (await readTopic(cluster, topic, 1)).map((m) => m.body.toString());

  it('recall off (the default): RecallDisabledError naming recallMessageEnable; updateBrokerConfig turns it on', async () => {
    const topic = uniqueTopic('RecallOff');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    const sent = await p.send({ topic, body: 'kept', deliverAfterMs: 200 });
    assert.ok(sent.recallHandle, 'a timer send gets a recall handle even with recall off (Java too)');
    const err = await p.recallMessage(topic, sent.recallHandle).then(
      () => assert.fail('recall succeeded with recallMessageEnable=false'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RecallDisabledError, String(err));
    assert.match(err.message, /recallMessageEnable=true/);
    assert.equal(err.remark, 'recall failed, operation is forbidden');
    assert.equal(err.retriable, false);
    await waitFor(async () => (await bodies(topic)).length === 1, 10_000, 'the unrecalled message');
    // UPDATE_BROKER_CONFIG, as `mqadmin updateBrokerConfig -k recallMessageEnable -v true`.
    await admin.updateBrokerConfig('broker-a', { recallMessageEnable: true });
    assert.equal(cluster.broker('broker-a').options.recallMessageEnable, true);
  });

  it('a timer message recalled before its time is never delivered; a later one is', async () => {
    const topic = uniqueTopic('Recall');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    const received: string[] = [];
    const consumer = new PushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: `CGRecall_${topic}`,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      ...FAST,
    });
    consumer.subscribe(topic, '*');
    await consumer.start((m) => {
      received.push(Buffer.from(m.body).toString());
    });
    closers.push(() => consumer.shutdown());

    const recalled = await p.send({ topic, body: 'recalled', deliverAfterMs: DELAY_MS });
    const handle = decodeRecallHandle(recalled.recallHandle);
    assert.ok(handle, 'the send result carries a decodable handle');
    assert.deepEqual(
      { topic: handle.topic, brokerName: handle.brokerName, messageId: handle.messageId },
      { topic, brokerName: 'broker-a', messageId: recalled.msgId },
    );
    assert.equal(await p.recallMessage(topic, recalled.recallHandle ?? ''), recalled.msgId);
    const later = await p.send({ topic, body: 'later', deliverAfterMs: DELAY_MS + 100 });
    assert.ok(later.recallHandle);
    await waitFor(() => received.includes('later'), DELAY_MS + 15_000, 'the later timer message');
    assert.deepEqual(received, ['later'], 'the recalled message never reached the consumer');
    assert.deepEqual(await bodies(topic), ['later'], 'nor the topic (one queue: it would come first)');
    assert.equal(cluster.broker('broker-a').timerMessages?.pending, 0, 'the marker left the wheel too');
  });

  it('a recall survives a broker restart: the recalled message is not delivered after it', async () => {
    const topic = uniqueTopic('RecallRestart');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    // Longer: the restart itself must end before the recalled message falls due.
    const delay = 2 * DELAY_MS;
    const recalled = await p.send({ topic, body: 'recalled', deliverAfterMs: delay });
    await p.recallMessage(topic, recalled.recallHandle ?? '');
    await cluster.stopBroker('broker-a', { graceful: false });
    await cluster.startBroker('broker-a');
    assert.equal(
      cluster.broker('broker-a').timerMessages?.pending,
      2,
      'the message and its marker are back in the wheel',
    );
    const later = await p.send({ topic, body: 'later', deliverAfterMs: delay + 100 });
    await waitFor(async () => (await bodies(topic)).includes('later'), delay + 20_000, 'the later one');
    assert.deepEqual(await bodies(topic), ['later']);
    assert.ok(later.msgId);
  });

  it('a garbage handle, one of another topic, a retry topic: InvalidArgumentError and no request sent', async () => {
    const topic = uniqueTopic('RecallBad');
    const other = uniqueTopic('RecallOther');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    const seen = watchRequests(p);
    const foreign = encodeRecallHandle({
      topic: other,
      brokerName: 'broker-a',
      timestamp: String(Date.now() + 60_000),
      messageId: 'AC1100010000000000000000000A0000',
    });
    const cases: Array<[string, string, RegExp]> = [
      [topic, 'garbage!', /recall handle is invalid/],
      [topic, '', /recall handle is invalid/],
      [topic, Buffer.from('v2 a b c d').toString('base64url'), /recall handle is invalid/],
      [topic, foreign, new RegExp(`is for topic ${other}, not ${topic}`)],
      [`%RETRY%${topic}`, foreign, /retry and DLQ topics/],
      ['bad topic!', foreign, /illegal characters/],
    ];
    for (const [t, h, why] of cases) {
      await assert.rejects(p.recallMessage(t, h), (e: unknown) => {
        assert.ok(e instanceof InvalidArgumentError, `${t} ${h}: ${String(e)}`);
        assert.match(e.message, why);
        return true;
      });
    }
    assert.equal(seen.length, 0, 'nothing was sent');
  });

  it('a handle naming an unknown broker: BrokerNotFoundError; an unknown topic: TopicNotFoundError', async () => {
    const topic = uniqueTopic('RecallWhere');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    const handle = (t: string, broker: string): string =>
      encodeRecallHandle({
        topic: t,
        brokerName: broker,
        timestamp: String(Date.now() + 60_000),
        messageId: 'AC1100010000000000000000000B0000',
      });
    await assert.rejects(p.recallMessage(topic, handle(topic, 'broker-zz')), BrokerNotFoundError);
    const missing = uniqueTopic('RecallMissing');
    await assert.rejects(p.recallMessage(missing, handle(missing, 'broker-a')), (e: unknown) => {
      assert.ok(e instanceof TopicNotFoundError, String(e));
      assert.equal(e.topic, missing);
      return true;
    });
  });

  it('a handle whose message was delivered already: RecallRejectedError with the broker remark', async () => {
    const topic = uniqueTopic('RecallLate');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    const sent = await p.send({ topic, body: 'delivered', deliverAfterMs: 50 });
    await waitFor(async () => (await bodies(topic)).length === 1, 10_000, 'the delivery');
    await assert.rejects(p.recallMessage(topic, sent.recallHandle ?? ''), (e: unknown) => {
      assert.ok(e instanceof RecallRejectedError, String(e));
      assert.equal(e.remark, 'recall failed, timestamp invalid');
      assert.equal(e.retriable, false);
      return true;
    });
  });

  it('with a namespace: the handle holds the wire topic, the recall takes the topic as the application writes it', async () => {
    const topic = uniqueTopic('RecallNs');
    const p = await pool.start({ namespace: 'NSR' });
    await cluster.createTopic(`NSR%${topic}`, 1);
    const sent = await p.send({ topic, body: 'ns', deliverAfterMs: 60_000 });
    assert.equal(decodeRecallHandle(sent.recallHandle)?.topic, `NSR%${topic}`);
    assert.equal(await p.recallMessage(topic, sent.recallHandle ?? ''), sent.msgId);
  });

  it('no handle for delay levels, batches and plain sends (as the 5.5.0 broker)', async () => {
    const topic = uniqueTopic('RecallNone');
    await cluster.createTopic(topic, 1);
    const p = await pool.start();
    const results = [
      await p.send({ topic, body: 'plain' }),
      await p.send({ topic, body: 'level', delayTimeLevel: 1 }),
      await p.sendBatch([
        { topic, body: 'b1' },
        { topic, body: 'b2' },
      ]),
    ];
    for (const r of results) assert.equal(r.recallHandle, undefined);
  });

  it('{ signal }: aborted before → AbortError, nothing sent; aborted while the broker holds it → AbortError', async () => {
    const topic = uniqueTopic('RecallAbort');
    await cluster.createTopic(topic, 1);
    const p: Producer = await pool.start();
    const sent = await p.send({ topic, body: 'x', deliverAfterMs: 60_000 });
    const seen = watchRequests(p);
    await assert.rejects(
      p.recallMessage(topic, sent.recallHandle ?? '', { signal: AbortSignal.abort() }),
      AbortError,
    );
    assert.equal(seen.length, 0);
    const held = await EmbeddedCluster.start({
      brokers: 1,
      faultInjection: true,
      brokerOptions: { recallMessageEnable: true },
    });
    const q = producerPool(() => held, 'PGRecallHeld');
    try {
      await held.createTopic(topic, 1);
      const hp = await q.start();
      const r = await hp.send({ topic, body: 'y', deliverAfterMs: 60_000 });
      held.broker('broker-a').faults.set({ hang: true, requestCodes: [RequestCode.RECALL_MESSAGE] });
      // watchRequests drops the signal argument; this wrapper passes everything on.
      const pool = (
        hp as unknown as { instance: { pool: { request: (...a: unknown[]) => Promise<unknown> } } }
      ).instance.pool;
      const original = pool.request.bind(pool);
      let onWire = false;
      pool.request = (...args: unknown[]) => {
        if ((args[1] as { code: number }).code === RequestCode.RECALL_MESSAGE) onWire = true;
        return original(...args);
      };
      const ac = new AbortController();
      const pending = hp.recallMessage(topic, r.recallHandle ?? '', { signal: ac.signal });
      await waitFor(() => onWire, 10_000, 'the recall on the wire');
      ac.abort();
      await assert.rejects(pending, AbortError);
      held.broker('broker-a').faults.clear();
    } finally {
      await q.shutdownAll();
      await held.stop();
    }
  });
});
