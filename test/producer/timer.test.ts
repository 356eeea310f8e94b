/**
 * Timer messages (deliverAt / deliverAfterMs) on the embedded broker: never visible before their
 * time, delivered after a restart, refused where the broker cannot honour them.
 */
import { before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError, TimerNotSupportedError } from '../../src/errors.js';
import { Producer } from '../../src/producer/producer.js';
import { TimerSupport } from '../../src/producer/timer.js';
import { createResponse, resolveCommandDefaults, type RemotingCommand } from '../../src/protocol/command.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';
import { decodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { TIMER_TOPIC } from '../../src/server/broker/timer-service.js';
import { oneBrokerCluster, uniqueTopic, waitFor } from './cluster-helpers.js';

interface Delivered {
  uniqKey: string;
  storeTimestamp: number;
  properties: Record<string, string>;
}

/** Every record of `topic` queue 0 on the cluster's one broker. */
async function delivered(cluster: EmbeddedCluster, topic: string): Promise<Delivered[]> {
  const store = cluster.broker('broker-a').store;
  const got = await store.getMessages(topic, 0, 0, 1000);
  return got.messages.map((record) => {
    const m = decodeStoredMessage(record).message;
    const properties = decodeProperties(m.properties);
    return { uniqKey: properties['UNIQ_KEY'] ?? '', storeTimestamp: m.storeTimestamp, properties };
  });
}

describe('timer messages on the embedded broker', () => {
  const suite = oneBrokerCluster('PGT');
  const startProducer = suite.startProducer;
  let cluster: EmbeddedCluster;
  before(() => {
    cluster = suite.cluster();
  });

  it('a timer message is not visible in its topic before its time, then arrives with its properties', async () => {
    const topic = uniqueTopic('Timer');
    await cluster.createTopic(topic, 1);
    const p = await startProducer();
    const sentAt = Date.now();
    const a = await p.send({ topic, body: 'after', deliverAfterMs: 700, properties: { k: 'v' } });
    const deliverAt = Date.now() + 400;
    const b = await p.send({ topic, body: 'at', deliverAt });
    const plain = await p.send({ topic, body: 'now' });
    assert.deepEqual(
      (await delivered(cluster, topic)).map((m) => m.uniqKey),
      [plain.msgId],
      'only the plain message is visible at once',
    );
    await waitFor(async () => (await delivered(cluster, topic)).length === 3, 5000, 'both timers delivered');
    const byId = new Map((await delivered(cluster, topic)).map((m) => [m.uniqKey, m]));
    const ma = byId.get(a.msgId);
    const mb = byId.get(b.msgId);
    assert.ok(ma && mb);
    assert.ok(
      ma.storeTimestamp >= sentAt + 700,
      `deliverAfterMs 700 stored ${ma.storeTimestamp - sentAt} ms after`,
    );
    assert.ok(mb.storeTimestamp >= deliverAt, `deliverAt stored ${mb.storeTimestamp - deliverAt} ms after`);
    assert.equal(ma.properties['k'], 'v');
    assert.equal(ma.properties['TIMER_DELAY_MS'], '700');
    assert.equal(mb.properties['TIMER_DELIVER_MS'], String(deliverAt));
    assert.ok(Number(ma.properties['TIMER_OUT_MS']) >= sentAt + 700);
    assert.equal(ma.properties['REAL_TOPIC'], undefined);
    assert.equal(cluster.broker('broker-a').timerMessages?.pending, 0);
  });

  it('timer messages pending at a restart are delivered after it, once', async () => {
    const topic = uniqueTopic('TimerRestart');
    await cluster.createTopic(topic, 1);
    const p = await startProducer();
    const early = await p.send({ topic, body: 'early', deliverAfterMs: 100 });
    await waitFor(async () => (await delivered(cluster, topic)).length === 1, 5000, 'the early timer');
    const due = Date.now() + 1500;
    const r = await p.send({ topic, body: 'survives', deliverAt: due });
    await cluster.stopBroker('broker-a', { graceful: false });
    await cluster.startBroker('broker-a');
    assert.equal(cluster.broker('broker-a').timerMessages?.pending, 1, 'the pending timer was recovered');
    await waitFor(async () => (await delivered(cluster, topic)).length >= 2, 8000, 'the timer after restart');
    const all = await delivered(cluster, topic);
    assert.deepEqual(
      all.map((m) => m.uniqKey),
      [early.msgId, r.msgId],
      'the timer delivered before the restart is not delivered again',
    );
    assert.ok((all[1]?.storeTimestamp ?? 0) >= due);
  });

  it('bad timer input is refused before sending: beyond 3 days, both fields, with a delay level, in a batch', async () => {
    const topic = uniqueTopic('TimerBad');
    const p = await startProducer();
    const day = 86_400_000;
    const cases: Array<[Parameters<Producer['send']>[0], string]> = [
      [{ topic, body: 'x', deliverAfterMs: 3 * day + 1 }, 'deliverAfterMs'],
      [{ topic, body: 'x', deliverAt: Date.now() + 4 * day }, 'deliverAt'],
      [{ topic, body: 'x', deliverAt: Date.now() + 10, deliverAfterMs: 10 }, 'deliverAt'],
      [{ topic, body: 'x', deliverAfterMs: 10, delayTimeLevel: 2 }, 'delayTimeLevel'],
      [{ topic, body: 'x', deliverAfterMs: -1 }, 'deliverAfterMs'],
      [{ topic, body: 'x', deliverAt: 'soon' as never }, 'deliverAt'],
    ];
    for (const [message, field] of cases) {
      await assert.rejects(
        p.send(message),
        (e: unknown) => e instanceof InvalidArgumentError && e.field === field,
      );
    }
    await assert.rejects(
      p.sendBatch([{ topic, body: 'x', deliverAfterMs: 10 }]),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'messages[0].deliverAfterMs',
    );
    assert.equal(
      (await delivered(cluster, TIMER_TOPIC)).filter((m) => m.properties['REAL_TOPIC'] === topic).length,
      0,
    );
  });

  it('a broker without the timer wheel: TimerNotSupportedError, nothing stored', async () => {
    const off = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { timerWheelEnable: false } });
    const p = new Producer({ namesrvAddr: off.namesrvAddr, producerGroup: 'PGT_off' });
    try {
      const topic = uniqueTopic('TimerOff');
      await off.createTopic(topic, 1);
      await p.start();
      await assert.rejects(p.send({ topic, body: 'x', deliverAfterMs: 50 }), TimerNotSupportedError);
      assert.equal((await delivered(off, topic)).length, 0);
      assert.equal((await p.send({ topic, body: 'plain' })).status, 'SEND_OK');
    } finally {
      await p.shutdown();
      await off.stop();
    }
  });

  it('a broker whose limit is shorter than 3 days: the send is refused with the broker’s limit', async () => {
    const short = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { timerMaxDelaySec: 60 } });
    const p = new Producer({ namesrvAddr: short.namesrvAddr, producerGroup: 'PGT_short' });
    try {
      const topic = uniqueTopic('TimerShort');
      await short.createTopic(topic, 1);
      await p.start();
      await assert.rejects(p.send({ topic, body: 'x', deliverAfterMs: 61_000 }), /timerMaxDelaySec \(60 s\)/);
      assert.equal((await p.send({ topic, body: 'x', deliverAfterMs: 59_000 })).status, 'SEND_OK');
    } finally {
      await p.shutdown();
      await short.stop();
    }
  });
});

describe('TimerSupport: how a producer tells a 4.9 broker from a 5.x one', () => {
  const defaults = resolveCommandDefaults();
  function fake(answer: (req: RemotingCommand) => RemotingCommand): {
    support: TimerSupport;
    asked: () => number;
  } {
    let n = 0;
    const support = new TimerSupport(async (_a, req) => {
      n++;
      return answer(req);
    }, defaults);
    return { support, asked: () => n };
  }
  const config =
    (text: string, version = 409) =>
    (req: RemotingCommand) =>
      createResponse(req, 0, undefined, undefined, Buffer.from(text), version);

  it('a 4.9 broker config (no timerWheelEnable) → TimerNotSupportedError; asked once per address', async () => {
    const { support, asked } = fake(config('brokerName=b\nmaxMessageSize=4194304\n'));
    await assert.rejects(
      async () => support.check('b', '127.0.0.1:1', Date.now() + 10, 100),
      TimerNotSupportedError,
    );
    assert.throws(() => support.check('b', '127.0.0.1:1', Date.now() + 10, 100), TimerNotSupportedError);
    assert.equal(asked(), 1);
  });

  it('a 4.9 broker whose config file says timerWheelEnable=true is still a 4.9 broker', async () => {
    await assert.rejects(
      async () => fake(config('timerWheelEnable=true\n', 409)).support.check('b', 'x:1', Date.now(), 100),
      /version 409 is before 5.0.0/,
    );
  });

  it('a 5.x config with timerWheelEnable=true passes; =false does not', async () => {
    await fake(config('timerWheelEnable=true\ntimerMaxDelaySec=259200\n', 495)).support.check(
      'b',
      'x:1',
      Date.now(),
      100,
    );
    await assert.rejects(
      async () => fake(config('timerWheelEnable=false\n', 495)).support.check('b', 'x:1', Date.now(), 100),
      TimerNotSupportedError,
    );
  });

  it('a config the broker will not give (ACL): the remoting version decides', async () => {
    const refuse = (version: number) => (req: RemotingCommand) =>
      createResponse(req, 16, 'no permission', undefined, undefined, version);
    await assert.rejects(
      async () => fake(refuse(409)).support.check('b', 'x:1', Date.now(), 100),
      TimerNotSupportedError,
    );
    await fake(refuse(413)).support.check('b', 'x:1', Date.now(), 100);
  });
});
