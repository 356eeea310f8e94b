import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import { Producer } from '../../src/producer/producer.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { PopNotSupportedError } from '../../src/errors.js';
import { FAST, unique, waitFor } from '../consumer/helpers.js';
import { LITE_FAST } from '../consumer/lite-pull-helpers.js';
import { receiveAtLeast } from '../consumer/simple-consumer-helpers.js';
import { brokersOf, proxyScenario, type ProxyScenario } from './helpers.js';

/** Sends `count` messages through the proxy; returns their bodies. */
async function sendThrough(s: ProxyScenario, count: number): Promise<string[]> {
  const producer = s.own(new Producer({ namesrvAddr: s.proxy.address, producerGroup: unique('PP') }));
  await producer.start();
  const bodies: string[] = [];
  const queues: { brokerName: string }[] = [];
  for (let i = 0; i < count; i++) {
    const r = await producer.send({ topic: s.topic, body: `m${i}` });
    bodies.push(`m${i}`);
    queues.push(r.messageQueue);
  }
  assert.deepEqual(brokersOf(queues), ['broker-a', 'broker-b'], 'the messages sit on both brokers');
  return bodies;
}

/** Codes our consumers send that the Proxy does not serve: none. */
function assertOnlyServedCodes(s: ProxyScenario): void {
  const unexpected = s.proxy.refused.filter((c) => c !== RequestCode.GET_BROKER_CONFIG);
  assert.deepEqual(unexpected, [], 'every request went to a code the Proxy serves');
}

for (const consumeOrderly of [false, true]) {
  test(`push consumer through the proxy (${consumeOrderly ? 'orderly, locks through the proxy' : 'concurrent'}): every message of both brokers, offsets committed`, async () => {
    await proxyScenario(2, async (s) => {
      const got = new Map<string, ConsumerMessage>();
      const consumer = s.own(
        new PushConsumer({
          namesrvAddr: s.proxy.address,
          consumerGroup: s.group,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          consumeOrderly,
          lockInterval: 500,
          ...FAST,
        }),
      );
      consumer.subscribe(s.topic);
      await consumer.start((m: ConsumerMessage) => void got.set(m.body.toString(), m));
      const bodies = await sendThrough(s, 24);
      await waitFor(() => bodies.every((b) => got.has(b)), 'every message', 20_000);
      assert.deepEqual(brokersOf([...got.values()].map((m) => m.queue)), ['broker-a', 'broker-b']);
      if (consumeOrderly) {
        // Each queue's messages came in offset order.
        const byQueue = new Map<string, number[]>();
        for (const m of got.values()) {
          const k = `${m.queue.brokerName}/${m.queue.queueId}`;
          byQueue.set(k, [...(byQueue.get(k) ?? []), m.queueOffset]);
        }
        assert.equal(byQueue.size, 4, 'four queues behind one address');
        for (const [q, offsets] of byQueue)
          assert.deepEqual(
            offsets,
            [...offsets].sort((a, b) => a - b),
            `queue ${q} in offset order`,
          );
      }
      // The offsets reach each broker (UPDATE_CONSUMER_OFFSET by bname).
      await waitFor(
        () =>
          s.cluster.brokers.every((b) =>
            [0, 1].some((q) => (b.broker.store.consumerOffsets.get(s.group, s.topic, q) ?? 0) > 0),
          ),
        'committed offsets on both brokers',
        20_000,
      );
      assertOnlyServedCodes(s);
    });
  });
}

test('lite pull consumer through the proxy: subscribe mode polls every message of both brokers', async () => {
  await proxyScenario(2, async (s) => {
    const consumer = s.own(
      new LitePullConsumer({
        namesrvAddr: s.proxy.address,
        consumerGroup: s.group,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        ...LITE_FAST,
      }),
    );
    consumer.subscribe(s.topic);
    await consumer.start();
    const bodies = await sendThrough(s, 20);
    const got = new Map<string, ConsumerMessage>();
    const deadline = Date.now() + 20_000;
    while (!bodies.every((b) => got.has(b)) && Date.now() < deadline)
      for (const m of await consumer.poll(500)) got.set(m.body.toString(), m);
    assert.deepEqual([...got.keys()].sort(), [...bodies].sort());
    assert.deepEqual(brokersOf([...got.values()].map((m) => m.queue)), ['broker-a', 'broker-b']);
    assertOnlyServedCodes(s);
  });
});

test('simple consumer through the proxy: start() fails at once with PopNotSupportedError naming the Proxy (5.5.0 cannot serve POP over remoting), taking no message', async () => {
  await proxyScenario(2, async (s) => {
    const consumer = s.own(
      new SimpleConsumer({
        namesrvAddr: s.proxy.address,
        consumerGroup: s.group,
        subscriptions: { [s.topic]: '*' },
        awaitDuration: 300,
        invisibleDuration: 30_000,
        pollNameServerInterval: 500,
      }),
    );
    await sendThrough(s, 4);
    await assert.rejects(consumer.start(), (err: unknown) => {
      assert.ok(err instanceof PopNotSupportedError, String(err));
      assert.equal(err.proxy, true);
      assert.equal(err.address, s.proxy.address);
      assert.match(err.message, /RocketMQ 5 Proxy.*NameServer/);
      return true;
    });
    assert.equal(consumer.state, 'CREATED');
    assert.ok(!s.proxy.refused.includes(RequestCode.NOTIFICATION), 'no NOTIFICATION probe');
    assert.deepEqual(s.proxy.unanswered, [], 'nothing was left waiting for an answer');
    // The same consumer at the NameServer works: the four messages are all still there.
    const direct = s.own(
      new SimpleConsumer({
        namesrvAddr: s.cluster.namesrvAddr,
        consumerGroup: s.group,
        subscriptions: { [s.topic]: '*' },
        awaitDuration: 300,
        invisibleDuration: 30_000,
        pollNameServerInterval: 500,
      }),
    );
    await direct.start();
    const got = await receiveAtLeast(direct, 4, undefined, 20_000);
    assert.deepEqual(got.map((m) => m.body.toString()).sort(), ['m0', 'm1', 'm2', 'm3']);
    for (const m of got) await direct.ack(m);
  });
});
