import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import { InvalidArgumentError, InvalidReceiptHandleError, PopNotSupportedError } from '../../src/errors.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { popScenario, receiveAtLeast } from './simple-consumer-helpers.js';
import { readTopicWhenPresent, unique } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('receive and ack: every message once, none comes back after its invisible time', async () => {
  await popScenario({}, 4, async ({ h, topic, consumer }) => {
    const sent = await h.send(topic, 20);
    const c = await consumer();
    const got = await receiveAtLeast(c, 20, 800);
    assert.deepEqual(got.map((m) => m.msgId).sort(), [...sent].sort());
    for (const m of got) {
      assert.equal(m.topic, topic);
      assert.equal(m.reconsumeTimes, 0);
      assert.match(m.receiptHandle, /^\d+ \d+ 800 0 0 broker-a \d+ \d+$/);
      await c.ack(m);
    }
    await sleep(1200);
    assert.deepEqual(await c.receive(32), []);
    assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0);
  });
});

test('unacked messages come back after the invisible time with reconsumeTimes + 1', async () => {
  await popScenario({}, 2, async ({ h, topic, consumer }) => {
    const sent = await h.send(topic, 5);
    const c = await consumer();
    const first = await receiveAtLeast(c, 5, 500);
    assert.equal(first.length, 5);
    const again = await receiveAtLeast(c, 5, 5000);
    assert.deepEqual(again.map((m) => m.msgId).sort(), [...sent].sort());
    for (const m of again) {
      assert.equal(m.reconsumeTimes, 1);
      assert.equal(m.topic, topic, 'retry messages carry the subscribed topic');
      assert.equal(m.receiptHandle.split(' ')[4], '1', 'retry flag 1: from %RETRY%<group>_<topic>');
      await c.ack(m);
    }
    await sleep(800);
    assert.deepEqual(await c.receive(32), []);
  });
});

test('change invisible time: a shorter one brings the message back sooner; the old handle is void', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 2);
    const c = await consumer();
    const [a, b] = await receiveAtLeast(c, 2, 60_000);
    assert.ok(a && b);
    const oldHandle = a.receiptHandle;
    await c.changeInvisibleDuration(a, 300);
    assert.notEqual(a.receiptHandle, oldHandle);
    await assert.rejects(c.ack({ ...a, receiptHandle: oldHandle }), InvalidReceiptHandleError);
    const back = await receiveAtLeast(c, 1, 60_000, 5000);
    assert.deepEqual(
      back.map((m) => m.msgId),
      [a.msgId],
      'only the message whose invisible time was shortened comes back',
    );
    await c.ack(back[0]!);
    // Extending: b stays invisible well past its first invisible time.
    await c.changeInvisibleDuration(b, 60_000);
    await c.ack(b);
  });
});

test('two SimpleConsumers in one group share the load, no message delivered to both while invisible', async () => {
  await popScenario({ brokers: 2 }, 4, async ({ h, topic, consumer }) => {
    const sent = await h.send(topic, 60);
    const c1 = await consumer({ instanceName: 'one' });
    const c2 = await consumer({ instanceName: 'two' });
    const got = new Map<string, string>();
    const deadline = Date.now() + 20_000;
    // Taking turns, at most 10 a time: whatever one holds (invisible) the other must not get.
    while (got.size < 60 && Date.now() < deadline) {
      for (const [name, c] of [
        ['one', c1],
        ['two', c2],
      ] as const) {
        for (const m of await c.receive(10, 30_000)) {
          assert.equal(
            got.get(m.msgId),
            undefined,
            `${m.msgId} delivered to ${got.get(m.msgId)} and ${name}`,
          );
          got.set(m.msgId, name);
        }
      }
    }
    assert.deepEqual([...got.keys()].sort(), [...sent].sort());
    const counts = [...got.values()].filter((n) => n === 'two').length;
    assert.ok(counts > 0 && counts < 60, `both got some: two got ${counts} of 60`);
  });
});

test('FIFO group: a queue delivers its next message only after the previous one is acked', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 4);
    const c = await consumer({ fifo: true, awaitDuration: 200 });
    const [m0] = await c.receive(1, 30_000);
    assert.equal(m0?.body.toString(), 'm0');
    assert.equal(m0?.receiptHandle.split(' ')[3], '999', 'orderly reviveQid');
    assert.deepEqual(await c.receive(1), [], 'blocked while m0 is un-acked');
    await c.ack(m0!);
    const [m1] = await c.receive(1, 400);
    assert.equal(m1?.body.toString(), 'm1');
    // Not acked: after its invisible time m1 comes again, before m2, counted as a retry.
    let again = await c.receive(1, 30_000);
    for (let i = 0; again.length === 0 && i < 50; i++) again = await c.receive(1, 30_000);
    assert.equal(again[0]?.body.toString(), 'm1');
    assert.equal(again[0]?.reconsumeTimes, 1);
    await c.ack(again[0]!);
    const tail = await c.receive(32, 30_000);
    assert.deepEqual(
      tail.map((m) => m.body.toString()),
      ['m2', 'm3'],
    );
    for (const m of tail) await c.ack(m);
  });
});

test('DLQ after maxReconsumeTimes: the broker stops redelivering and moves the message to %DLQ%<group>', async () => {
  await popScenario({ brokerOptions: { maxReconsumeTimes: 2 } }, 1, async ({ h, topic, group, consumer }) => {
    await h.send(topic, 1);
    const c = await consumer();
    const seen: number[] = [];
    const deadline = Date.now() + 10_000;
    while (seen.length < 3 && Date.now() < deadline)
      for (const m of await c.receive(32, 300)) seen.push(m.reconsumeTimes);
    assert.deepEqual(seen, [0, 1, 2]);
    assert.deepEqual(await readTopicWhenPresent(h.cluster.namesrvAddr, `%DLQ%${group}`), ['m0']);
    await sleep(800);
    assert.deepEqual(await c.receive(32), [], 'no fourth delivery');
  });
});

test('DLQ by the consumer (the gRPC proxy rule): past its maxReconsumeTimes a message goes to the DLQ, not to the app', async () => {
  await popScenario({}, 1, async ({ h, topic, group, consumer }) => {
    await h.send(topic, 1);
    const c = await consumer({ maxReconsumeTimes: 1 });
    const seen: number[] = [];
    const deadline = Date.now() + 5000;
    while (seen.length < 2 && Date.now() < deadline)
      for (const m of await c.receive(32, 300)) seen.push(m.reconsumeTimes);
    assert.deepEqual(seen, [0, 1]);
    // The third delivery (reconsumeTimes 2) comes within these receives and goes to the DLQ.
    for (const end = Date.now() + 2000; Date.now() < end;)
      assert.deepEqual(await c.receive(32, 300), [], 'not handed to the application');
    assert.deepEqual(await readTopicWhenPresent(h.cluster.namesrvAddr, `%DLQ%${group}`), ['m0']);
    assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0, 'acked after the DLQ send');
  });
});

test('broker restart: un-acked messages keep coming back', async () => {
  await popScenario({}, 2, async ({ h, topic, consumer }) => {
    const sent = await h.send(topic, 6);
    const c = await consumer();
    const got = await receiveAtLeast(c, 6, 1500);
    await c.ack(got[0]!);
    await h.cluster.stopBroker('broker-a');
    await h.cluster.startBroker('broker-a');
    const back = await receiveAtLeast(c, 5, 30_000, 15_000);
    assert.deepEqual(back.map((m) => m.msgId).sort(), sent.filter((id) => id !== got[0]!.msgId).sort());
    for (const m of back) assert.equal(m.reconsumeTimes, 1);
  });
});

test('bad input: maxMessages, durations, foreign and expired receipts are typed errors; nothing is lost', async () => {
  await popScenario({}, 1, async ({ h, topic, group, consumer }) => {
    await h.send(topic, 1);
    const c = await consumer();
    const field = (p: Promise<unknown>, name: string) =>
      assert.rejects(p, (e: unknown) => e instanceof InvalidArgumentError && e.field === name);
    await field(c.receive(0), 'maxMessages');
    await field(c.receive(33), 'maxMessages');
    await field(c.receive(1, -5), 'invisibleDurationMs');
    assert.throws(
      () =>
        new SimpleConsumer({
          consumerGroup: group,
          namesrvAddr: h.cluster.namesrvAddr,
          subscriptions: { [topic]: '*' },
          awaitDuration: -1,
        }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'awaitDuration',
    );
    assert.throws(
      () =>
        new SimpleConsumer({ consumerGroup: group, namesrvAddr: h.cluster.namesrvAddr, subscriptions: {} }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'subscriptions',
    );
    assert.throws(
      () =>
        new SimpleConsumer({
          consumerGroup: group,
          subscriptions: { [topic]: '*' },
          namesrvAddr: 'x:1',
          awaitDurationMs: 1,
        } as never),
      (e: unknown) => e instanceof InvalidArgumentError,
    );
    const [m] = await c.receive(1, 1000);
    assert.ok(m);
    await field(c.changeInvisibleDuration(m, -1), 'invisibleDurationMs');
    const other = await consumer({ consumerGroup: unique('Other') });
    await assert.rejects(other.ack(m), InvalidReceiptHandleError);
    await sleep(1100);
    await assert.rejects(c.ack(m), /expired/);
    const back = await receiveAtLeast(c, 1, 30_000);
    assert.equal(back[0]?.msgId, m.msgId, 'the message comes back after the refused acks');
    await c.ack(back[0]!);
  });
});

test('a broker without POP (4.x answers REQUEST_CODE_NOT_SUPPORTED) fails start() with PopNotSupportedError', async () => {
  await popScenario({ faultInjection: true }, 1, async ({ h, topic, group }) => {
    h.cluster.broker('broker-a').faults.set({
      errorCode: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      requestCodes: [RequestCode.NOTIFICATION, RequestCode.POP_MESSAGE],
    });
    const c = new SimpleConsumer({
      namesrvAddr: h.cluster.namesrvAddr,
      consumerGroup: group,
      subscriptions: { [topic]: '*' },
    });
    await assert.rejects(
      c.start(),
      (e: unknown) => e instanceof PopNotSupportedError && /RocketMQ 5/.test(e.message),
    );
    await c.shutdown();
  });
});
