/**
 * Our SimpleConsumer (POP over remoting) against real Apache RocketMQ: on 5.5.0 (timer wheel on,
 * as POP needs) receive/ack, redelivery after a short invisible time with reconsumeTimes + 1,
 * batch acks (BATCH_ACK_MESSAGE) of normal and retry-topic messages, and FIFO order; a group
 * created orderly through our Admin makes our SimpleConsumers FIFO without a `fifo` option, each
 * message group in order and a failed message first; a PRIORITY topic is received highest
 * priority first; consumerProgress of a POP group shows the messages in flight (from the members'
 * running info: the broker counts none). On 4.9.7 `start()` fails fast with
 * PopNotSupportedError. One broker each, kept short.
 */
import { PopNotSupportedError } from '../src/errors.js';
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import { SimpleConsumer } from '../src/consumer/simple/simple-consumer.js';
import type { PoppedMessage } from '../src/consumer/simple/pop-response.js';
import { Producer } from '../src/producer/producer.js';
import { ResponseCode } from '../src/protocol/codes.js';
import { UpdateAndCreateTopic } from '../src/protocol/headers/admin.js';
import { RealCluster } from './real-cluster.js';
import { rawRequest } from './raw-remoting.js';

const run = Date.now().toString(36);
const TARGET = { cluster: 'DefaultCluster' };

async function createTopic(cluster: RealCluster, topic: string, queues: number): Promise<void> {
  const r = await rawRequest(
    cluster.broker('broker-a').addr,
    UpdateAndCreateTopic.code,
    UpdateAndCreateTopic.encode({
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: queues,
      writeQueueNums: queues,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
    }),
  );
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
}

async function receiveAtLeast(
  c: SimpleConsumer,
  n: number,
  invisibleMs: number,
  timeoutMs: number,
): Promise<PoppedMessage[]> {
  const out: PoppedMessage[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < n && Date.now() < deadline) out.push(...(await c.receive(32, invisibleMs)));
  return out;
}

describe('SimpleConsumer against real RocketMQ 5.5.0', { timeout: 500_000, concurrency: 1 }, () => {
  let cluster: RealCluster;
  let producer: Producer;
  let admin: Admin;
  const consumers: SimpleConsumer[] = [];

  before(async () => {
    cluster = await RealCluster.start({
      version: '5.5.0',
      brokers: ['broker-a'],
      brokerConfig: { timerWheelEnable: true },
    });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    producer = new Producer({
      producerGroup: `pop_pg_${run}`,
      namesrvAddr: cluster.namesrvAddr,
      instanceName: `pop_${run}`,
    });
    await producer.start();
  });

  after(async () => {
    for (const c of consumers) await c.shutdown().catch(() => undefined);
    await producer?.shutdown();
    await cluster?.stop();
  });

  /** `fifo` unset: the group's consumeMessageOrderly decides (docs/consumers.md §3.3). */
  async function consumer(topic: string, group: string, fifo?: boolean): Promise<SimpleConsumer> {
    const c = new SimpleConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: group,
      subscriptions: { [topic]: '*' },
      awaitDuration: 2000,
      ...(fifo === undefined ? {} : { fifo }),
      instanceName: `pop_${group}`,
    });
    consumers.push(c);
    await c.start();
    return c;
  }

  it('receive and ack, and an un-acked message comes back after its invisible time with reconsumeTimes + 1', async () => {
    const topic = `pop_ts_${run}`;
    await createTopic(cluster, topic, 2);
    await new Promise((r) => setTimeout(r, 1500)); // the broker registers the topic with the NameServer
    const sent: string[] = [];
    for (let i = 0; i < 6; i++) sent.push((await producer.send({ topic, body: `m${i}` })).msgId);
    const c = await consumer(topic, `pop_g_${run}`);
    const got = await receiveAtLeast(c, 6, 5000, 30_000);
    assert.deepEqual(got.map((m) => m.msgId).sort(), [...sent].sort());
    const kept = got.find((m) => m.body.toString() === 'm0')!;
    for (const m of got) if (m !== kept) await c.ack(m);
    const back = await receiveAtLeast(c, 1, 30_000, 90_000);
    assert.deepEqual(
      back.map((m) => m.msgId),
      [kept.msgId],
      'only the un-acked message comes back',
    );
    assert.equal(back[0]!.reconsumeTimes, 1);
    assert.equal(back[0]!.topic, topic);
    await c.ack(back[0]!);
  });

  it('batch ack: normal and retry-topic messages acked by BATCH_ACK_MESSAGE do not come back after their invisible time', async () => {
    const topic = `pop_batch_${run}`;
    await createTopic(cluster, topic, 2);
    await new Promise((r) => setTimeout(r, 1500));
    const first: string[] = [];
    for (let i = 0; i < 8; i++) first.push((await producer.send({ topic, body: `b${i}` })).msgId);
    const c = await consumer(topic, `pop_bg_${run}`);
    const got = await receiveAtLeast(c, 8, 5000, 30_000);
    assert.deepEqual(got.map((m) => m.msgId).sort(), [...first].sort());
    // Half acked now in one call; the other half expire and come back from the retry topic.
    await c.ack(got.slice(0, 4));
    assert.equal(c.ackRequests.batchAck, 1, 'the four went as one BATCH_ACK_MESSAGE');
    // The other four come back from the retry topic (reconsumeTimes 1), invisible for 10 s now.
    const retried: PoppedMessage[] = [];
    const deadline = Date.now() + 120_000;
    while (retried.length < 4 && Date.now() < deadline) retried.push(...(await c.receive(32, 10_000)));
    assert.deepEqual(
      retried.map((m) => m.msgId).sort(),
      got
        .slice(4)
        .map((m) => m.msgId)
        .sort(),
      'the un-acked four came back',
    );
    assert.ok(retried.every((m) => m.reconsumeTimes === 1));
    assert.ok(
      retried.every((m) => m.receiptHandle.split(' ')[4] === '1'),
      'retry-topic handles (retry flag 1)',
    );
    // Four new ones from the normal queues, so the next ack mixes retry flags 0 and 1.
    const fresh: string[] = [];
    for (let i = 0; i < 4; i++) fresh.push((await producer.send({ topic, body: `n${i}` })).msgId);
    const news = await receiveAtLeast(c, 4, 10_000, 30_000);
    assert.deepEqual(news.map((m) => m.msgId).sort(), [...fresh].sort());
    const mixed = [...retried, ...news];
    const sent = c.ackRequests;
    await c.ack(mixed);
    assert.deepEqual(
      c.ackRequests,
      { ack: sent.ack, batchAck: sent.batchAck + 1 },
      'one request for all eight',
    );
    // Well past the 10 s invisible time (and the broker's revive scan): nothing may come back.
    const late: PoppedMessage[] = [];
    const quietUntil = Date.now() + 25_000;
    while (Date.now() < quietUntil) late.push(...(await c.receive(32, 5000)));
    assert.deepEqual(
      late.map((m) => m.msgId),
      [],
      'no message acked by BATCH_ACK is delivered again',
    );
  });

  it('FIFO: a queue delivers its next message only after the previous one is acked', async () => {
    const topic = `pop_fifo_${run}`;
    await createTopic(cluster, topic, 1);
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < 4; i++) await producer.send({ topic, body: `f${i}` });
    const c = await consumer(topic, `pop_fg_${run}`, true);
    const order: string[] = [];
    const deadline = Date.now() + 60_000;
    while (order.length < 4 && Date.now() < deadline) {
      const [m] = await c.receive(1, 20_000);
      if (!m) continue;
      order.push(m.body.toString());
      if (order.length === 1)
        assert.deepEqual(await c.receive(1, 20_000), [], 'blocked while f0 is un-acked');
      await c.ack(m);
    }
    assert.deepEqual(order, ['f0', 'f1', 'f2', 'f3']);
  });

  /** Waits until the topic's route is at the NameServer (the broker registers it). */
  async function routed(topic: string): Promise<void> {
    for (let i = 0; i < 60; i++) {
      const route = await admin.topicRoute(topic).catch(() => undefined);
      if (route !== undefined && route.queues.length > 0) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`no route for ${topic}`);
  }

  it('an orderly group (consumeMessageOrderly through our Admin) keeps each message group in order, a failed message before the later ones', async () => {
    const topic = `pop_ord_${run}`;
    const group = `pop_ordg_${run}`;
    await admin.createTopic({ topic, ...TARGET, messageType: 'FIFO', writeQueues: 2, readQueues: 2 });
    await admin.createOrUpdateSubscriptionGroup({ groupName: group, consumeMessageOrderly: true }, TARGET);
    await routed(topic);
    const groups = ['g-a', 'g-b', 'g-c'];
    const perGroup = 8;
    for (let i = 0; i < perGroup; i++)
      for (const g of groups) await producer.send({ topic, body: `${g}#${i}`, messageGroup: g });
    const c = await consumer(topic, group);
    const acked = new Map<string, number[]>(groups.map((g) => [g, []]));
    const problems: string[] = [];
    let failed: string | undefined;
    let redelivered: PoppedMessage | undefined;
    const deadline = Date.now() + 120_000;
    while ([...acked.values()].reduce((s, l) => s + l.length, 0) < groups.length * perGroup) {
      assert.ok(Date.now() < deadline, `not drained: ${JSON.stringify([...acked])}`);
      const batch = await c.receive(8, 20_000);
      const blocked = new Set<number>();
      const next = new Map<string, number>();
      for (const m of batch) {
        const [g, n] = m.body.toString().split('#') as [string, string];
        const expected = next.get(g) ?? acked.get(g)!.length;
        if (Number(n) !== expected) problems.push(`${g}#${n} when ${expected} was due`);
        next.set(g, Number(n) + 1);
        if (m.body.toString() === failed) redelivered = m;
        // The first g-b#3 fails: it and the rest of its queue's batch come back.
        if (blocked.has(m.queue.queueId) || (failed === undefined && m.body.toString() === 'g-b#3')) {
          if (failed === undefined) {
            failed = m.body.toString();
            await c.changeInvisibleDuration(m, 1000);
          }
          blocked.add(m.queue.queueId);
          continue;
        }
        acked.get(g)!.push(Number(n));
        await c.ack(m);
      }
    }
    assert.deepEqual(problems, []);
    assert.equal(failed, 'g-b#3');
    assert.ok(redelivered, 'the failed message came back');
    assert.ok(redelivered.reconsumeTimes >= 1, 'with its delivery count');
    const inOrder = Array.from({ length: perGroup }, (_, i) => i);
    for (const g of groups) assert.deepEqual(acked.get(g), inOrder, `${g} in send order`);
  });

  it('a PRIORITY topic is received highest priority first (priorityOrderAsc)', async () => {
    const topic = `pop_prio_${run}`;
    await admin.createTopic({ topic, ...TARGET, messageType: 'PRIORITY', writeQueues: 4, readQueues: 4 });
    await routed(topic);
    // Lowest first, so store order and priority order disagree.
    for (const priority of [0, 0, 1, 1, 2, 2, 3, 3])
      await producer.send({ topic, body: `p${priority}`, priority });
    const c = await consumer(topic, `pop_priog_${run}`);
    const got: PoppedMessage[] = [];
    const deadline = Date.now() + 60_000;
    while (got.length < 8 && Date.now() < deadline) got.push(...(await c.receive(32, 30_000)));
    assert.deepEqual(
      got.map((m) => m.priority),
      [3, 3, 2, 2, 1, 1, 0, 0],
    );
    for (const m of got) await c.ack(m);
  });

  it('consumerProgress of a POP group shows its backlog and the messages in flight', async () => {
    const topic = `pop_infl_${run}`;
    const group = `pop_inflg_${run}`;
    await admin.createTopic({ topic, ...TARGET, writeQueues: 2, readQueues: 2 });
    await routed(topic);
    for (let i = 0; i < 5; i++) await producer.send({ topic, body: `i${i}` });
    const c = await consumer(topic, group);
    const got: PoppedMessage[] = [];
    const deadline = Date.now() + 60_000;
    while (got.length < 5 && Date.now() < deadline) got.push(...(await c.receive(32, 120_000)));
    assert.equal(got.length, 5);
    for (const m of got.slice(0, 2)) await c.ack(m);

    const lag = await c.lag();
    assert.equal(
      lag.filter((q) => q.topic === topic).reduce((s, q) => s + q.inFlight, 0),
      3,
      "lag(): the consumer's own in-flight count (5.5.0 counts none)",
    );
    const p = await admin.consumerProgress(group, topic);
    assert.equal(p.totalInflight, 3, 'the three received, not acked');
    assert.equal(p.totalLag, 0, 'nothing left to hand out');
    assert.deepEqual(
      p.members.map((m) => m.clientId),
      [c.clientId],
    );
    for (const m of got.slice(2)) await c.ack(m);
  });
});

describe('SimpleConsumer against real RocketMQ 4.9.7', { timeout: 300_000 }, () => {
  let cluster: RealCluster;
  before(async () => {
    cluster = await RealCluster.start({ version: '4.9.7', brokers: ['broker-a'] });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('start() fails fast with PopNotSupportedError: POP needs RocketMQ 5', async () => {
    const topic = `pop_49_${run}`;
    await createTopic(cluster, topic, 1);
    await new Promise((r) => setTimeout(r, 1500));
    const c = new SimpleConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: `pop_49g_${run}`,
      subscriptions: { [topic]: '*' },
    });
    await assert.rejects(
      c.start(),
      (e: unknown) => e instanceof PopNotSupportedError && /RocketMQ 5/.test(e.message),
    );
    await c.shutdown();
  });
});
