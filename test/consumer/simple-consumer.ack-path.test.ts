/**
 * The SimpleConsumer's ack path on the embedded broker: batched acks (BATCH_ACK_MESSAGE merged per
 * checkpoint), the fall-back to ACK_MESSAGE, failures attributed to the right message, and the
 * bad-input cases of ack / receive / changeInvisibleDuration, each its own scenario. One cluster for
 * the file (POP revive every 100 ms), a fresh topic and group per test.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import type { SimpleConsumerOptions } from '../../src/consumer/simple/options.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import {
  AbortError,
  AckFailedError,
  IllegalStateError,
  InvalidArgumentError,
  InvalidReceiptHandleError,
} from '../../src/errors.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';
import { ConnectionPool } from '../../src/remoting/pool.js';
import { encodeBatchAckBody } from '../../src/protocol/pop/batch-ack.js';
import { harness, unique, type Harness } from './helpers.js';
import { POP_TEST_OPTIONS, receiveAtLeast } from './simple-consumer-helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TWELVE_HOURS = 12 * 3600 * 1000;

let h: Harness;
const consumers: SimpleConsumer[] = [];

before(async () => {
  h = await harness({ brokers: 1, faultInjection: true, brokerOptions: { reviveInterval: 100 } });
});
after(async () => {
  for (const c of consumers) await c.shutdown().catch(() => undefined);
  await h.close();
});

const broker = () => h.cluster.broker('broker-a');

/** A fresh topic with `queues` queues and `count` messages, and a started consumer on it. */
async function scenario(
  queues: number,
  count: number,
  o: Partial<SimpleConsumerOptions> = {},
): Promise<{ topic: string; group: string; c: SimpleConsumer; sent: string[] }> {
  const topic = unique('AckT');
  const group = o.consumerGroup ?? unique('AckG');
  await h.cluster.createTopic(topic, queues);
  const sent = await h.send(topic, count);
  const c = await start({ consumerGroup: group, subscriptions: { [topic]: '*' }, ...o });
  return { topic, group, c, sent };
}

async function start(o: Partial<SimpleConsumerOptions>): Promise<SimpleConsumer> {
  const c = new SimpleConsumer({
    namesrvAddr: h.cluster.namesrvAddr,
    consumerGroup: unique('AckG'),
    subscriptions: {},
    ...POP_TEST_OPTIONS,
    ...o,
  });
  consumers.push(c);
  await c.start();
  return c;
}

/** Un-acked offsets of `group` on the broker (checkpoints of every topic). */
function inflight(group: string): number {
  let n = 0;
  for (const ck of broker().pop.state['checkpoints'].values())
    if (ck.group === group) n += ck.offsets.length - ck.acked.length;
  return n;
}

describe('batch ack', () => {
  it('ack(messages[]) of normal and retry-topic messages is one BATCH_ACK; none comes back after the invisible time', async () => {
    const { c, group, sent } = await scenario(4, 20);
    // Half of them are not acked, expire and come back from %RETRY%<group>_<topic> (retry flag 1).
    const first = await receiveAtLeast(c, 20, 600);
    assert.equal(first.length, 20);
    const keep = first.slice(0, 10);
    const retried: PoppedMessage[] = [];
    await c.ack(first.slice(10));
    while (retried.length < 10) retried.push(...(await c.receive(32, 800)));
    assert.ok(
      retried.every((m) => m.receiptHandle.split(' ')[4] === '1'),
      'retry-topic handles',
    );
    void keep;
    const before = c.ackRequests;
    await c.ack(retried);
    assert.deepEqual(c.ackRequests, { ack: before.ack, batchAck: before.batchAck + 1 }, 'one request');
    assert.equal(inflight(group), 0, 'the broker holds nothing un-acked');
    await sleep(1000); // past the invisible time: nothing may come back
    assert.deepEqual(await c.receive(32), []);
    assert.equal(new Set([...first, ...retried].map((m) => m.msgId)).size, sent.length);
  });

  it('acks asked for in the same tick are merged into one BATCH_ACK; a lone ack is one ACK_MESSAGE', async () => {
    const { c, group } = await scenario(2, 12);
    const got = await receiveAtLeast(c, 12);
    const [lone, ...rest] = got;
    await c.ack(lone!);
    assert.deepEqual(c.ackRequests, { ack: 1, batchAck: 0 });
    await Promise.all(rest.map((m) => c.ack(m)));
    assert.deepEqual(c.ackRequests, { ack: 1, batchAck: 1 });
    assert.equal(inflight(group), 0);
  });

  it('a broker that answers BATCH_ACK with REQUEST_CODE_NOT_SUPPORTED gets one ACK_MESSAGE per message, and is remembered', async () => {
    const { c, group } = await scenario(2, 10);
    broker().faults.set({
      errorCode: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      requestCodes: [RequestCode.BATCH_ACK_MESSAGE],
    });
    try {
      const got = await receiveAtLeast(c, 10);
      await c.ack(got.slice(0, 5));
      assert.deepEqual(c.ackRequests, { ack: 5, batchAck: 1 });
      await c.ack(got.slice(5));
      assert.deepEqual(c.ackRequests, { ack: 10, batchAck: 1 }, 'no second BATCH_ACK to that broker');
      assert.equal(inflight(group), 0);
    } finally {
      broker().faults.clear();
    }
  });

  it('a batch with one stale handle: the others are acked, AckFailedError names the stale one', async () => {
    const { c, group } = await scenario(1, 6);
    const got = await receiveAtLeast(c, 6);
    const stale = got[2]!;
    // Another instance of the same group acks it first (receipt handles are group-wide).
    const twin = await start({ consumerGroup: group, subscriptions: { [stale.topic]: '*' } });
    await twin.ack(stale);
    const err = await c.ack(got).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof AckFailedError, String(err));
    assert.equal(err.code, 'ERR_ACK_FAILED');
    assert.equal(err.acked, 5);
    assert.equal(err.failures.length, 1);
    assert.equal(err.failures[0]?.message, stale);
    assert.ok(err.failures[0]?.error instanceof InvalidReceiptHandleError);
    assert.equal(inflight(group), 0, 'the five others were acked');
  });

  it('FIFO: one ack of a whole orderly batch commits it and the queue delivers its next messages', async () => {
    const { c, group, sent } = await scenario(1, 6, { fifo: true });
    const firstBatch = await c.receive(3);
    assert.equal(firstBatch.length, 3);
    assert.ok(
      firstBatch.every((m) => m.receiptHandle.split(' ')[3] === '999'),
      'orderly handles',
    );
    assert.deepEqual(await c.receive(3), [], 'the queue is blocked until the batch is acked');
    await c.ack(firstBatch);
    assert.equal(c.ackRequests.batchAck, 1);
    const rest = await receiveAtLeast(c, 3);
    assert.deepEqual(
      [...firstBatch, ...rest].map((m) => m.msgId),
      sent,
      'in order, the second batch after the ack',
    );
    await c.ack(rest);
    assert.equal(broker().pop.state.orderLock(group, rest[0]!.topic, 0), undefined);
  });

  it('for await sends its acks without waiting on each: fewer requests than messages', async () => {
    const { c, group } = await scenario(1, 20);
    let n = 0;
    for await (const _m of c.messages({ maxMessages: 10 })) if (++n === 20) break;
    // The 20th (the one the loop broke on) is not acked.
    const { ack, batchAck } = c.ackRequests;
    assert.ok(batchAck >= 1, 'at least one BATCH_ACK');
    assert.ok(ack + batchAck < 19, `${ack} ACK + ${batchAck} BATCH_ACK for 19 messages`);
    assert.equal(inflight(group), 1);
  });
});

describe('ack: bad input and misuse', () => {
  it('a second ack of the same message is InvalidReceiptHandleError, sent nowhere', async () => {
    const { c } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    await c.ack(m!);
    const sent = c.ackRequests;
    await assert.rejects(
      c.ack(m!),
      (e: unknown) => e instanceof InvalidReceiptHandleError && /already acked/.test(e.message),
    );
    assert.deepEqual(c.ackRequests, sent);
  });

  it('ack after shutdown is IllegalStateError', async () => {
    const { c } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    await c.shutdown();
    await assert.rejects(c.ack(m!), IllegalStateError);
    await assert.rejects(c.ack([m!]), IllegalStateError);
  });

  it('a message received by another instance of the same group can be acked here', async () => {
    const { c, group, topic } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    const twin = await start({ consumerGroup: group, subscriptions: { [topic]: '*' } });
    await twin.ack(m!);
    assert.equal(inflight(group), 0);
  });

  it("another group's message is InvalidReceiptHandleError (in an array: AckFailedError naming it)", async () => {
    const { c, topic } = await scenario(1, 2);
    const got = await receiveAtLeast(c, 2);
    const other = await start({ subscriptions: { [topic]: '*' } });
    await assert.rejects(other.ack(got[0]!), InvalidReceiptHandleError);
    await assert.rejects(
      other.ack(got),
      (e: unknown) => e instanceof AckFailedError && e.failures.length === 2 && e.acked === 0,
    );
    await c.ack(got);
  });

  it('an array holding something that is not a message is InvalidArgumentError, and nothing is acked', async () => {
    const { c, group } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    await assert.rejects(
      c.ack([m!, { receiptHandle: 5 } as never]),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'message[1]',
    );
    assert.equal(inflight(group), 1);
    await c.ack([m!]);
  });

  it('a malformed receipt handle is InvalidReceiptHandleError', async () => {
    const { c } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    const forged = { ...m!, receiptHandle: 'not a handle' } as PoppedMessage;
    Object.defineProperty(forged, 'consumerGroup', { value: m!.consumerGroup });
    await assert.rejects(c.ack(forged), InvalidReceiptHandleError);
    await c.ack(m!);
  });
});

describe('receive and changeInvisibleDuration: bad input', () => {
  const idle = (o: Partial<SimpleConsumerOptions> = {}) =>
    new SimpleConsumer({ namesrvAddr: '127.0.0.1:1', consumerGroup: 'G', subscriptions: { T: '*' }, ...o });
  const field = (p: Promise<unknown>, name: string) =>
    assert.rejects(p, (e: unknown) => e instanceof InvalidArgumentError && e.field === name);

  // An idle consumer (never started, NameServer unreachable): the argument error comes before any I/O.
  it('receive(0) is InvalidArgumentError before any I/O', () => field(idle().receive(0), 'maxMessages'));
  it('receive(33) is InvalidArgumentError before any I/O (the broker allows 32)', () =>
    field(idle().receive(33), 'maxMessages'));
  it('a negative invisible duration is InvalidArgumentError', () =>
    field(idle().receive(1, -1), 'invisibleDurationMs'));
  it('an invisible duration over 12 h is InvalidArgumentError (receive, changeInvisibleDuration, option)', async () => {
    await field(idle().receive(1, TWELVE_HOURS + 1), 'invisibleDurationMs');
    await field(idle().changeInvisibleDuration({} as PoppedMessage, TWELVE_HOURS + 1), 'invisibleDurationMs');
    assert.throws(
      () => idle({ invisibleDuration: TWELVE_HOURS + 1 }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'invisibleDuration',
    );
  });

  it('changeInvisibleDuration to exactly 12 h is accepted and returns the message with its new handle', async () => {
    const { c, group } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    const old = m!.receiptHandle;
    const back = await c.changeInvisibleDuration(m!, TWELVE_HOURS);
    assert.equal(back, m);
    assert.notEqual(back.receiptHandle, old);
    assert.equal(back.receiptHandle.split(' ')[2], String(TWELVE_HOURS));
    await c.ack(back);
    assert.equal(inflight(group), 0);
  });

  it('changeInvisibleDuration of an acked message is InvalidReceiptHandleError', async () => {
    const { c } = await scenario(1, 1);
    const [m] = await receiveAtLeast(c, 1);
    await c.ack(m!);
    await assert.rejects(c.changeInvisibleDuration(m!, 5000), InvalidReceiptHandleError);
  });

  it('maxInFlightPops outside [1, 1024] is InvalidArgumentError', () => {
    for (const v of [0, 1025, 1.5])
      assert.throws(
        () => idle({ maxInFlightPops: v }),
        (e: unknown) => e instanceof InvalidArgumentError && e.field === 'maxInFlightPops',
      );
  });
});

describe('bounded POPs in flight', () => {
  it('with maxInFlightPops 1 a second receive waits for the first POP; aborted while waiting it sends nothing', async () => {
    const topic = unique('AckT');
    await h.cluster.createTopic(topic, 1);
    const c = await start({ subscriptions: { [topic]: '*' }, maxInFlightPops: 1, awaitDuration: 5000 });
    const first = c.receive(1);
    const ac = new AbortController();
    const second = c.receive(1, undefined, { signal: ac.signal });
    await sleep(50);
    ac.abort();
    await assert.rejects(second, AbortError);
    assert.deepEqual(c['parked'].size, { parked: 0, leftover: 0 }, 'the waiting receive parked no POP');
    const [id] = await h.send(topic, 1);
    const got = await first;
    assert.equal(got[0]?.msgId, id);
    await c.ack(got);
  });
});

describe('embedded broker BATCH_ACK_MESSAGE', () => {
  const call = async (body: Uint8Array | undefined) => {
    const pool = new ConnectionPool();
    try {
      return await pool.request(
        broker().address,
        createRequest(RequestCode.BATCH_ACK_MESSAGE, undefined, body),
        5000,
      );
    } finally {
      await pool.close();
    }
  };

  it('an empty body or no acks is NO_MESSAGE', async () => {
    assert.equal((await call(undefined)).code, ResponseCode.NO_MESSAGE);
    assert.equal((await call(Buffer.from('{"acks":[]}'))).code, ResponseCode.NO_MESSAGE);
  });

  it('an unreadable body is SYSTEM_ERROR naming the problem', async () => {
    const r = await call(Buffer.from('{"acks":[{"c":1}]}'));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /acks\[0\]\.\w+ is not a string/);
  });

  it('a batch with an offset no checkpoint holds applies nothing and answers NO_MESSAGE', async () => {
    const { c, group, topic } = await scenario(1, 3);
    const got = await receiveAtLeast(c, 3);
    const [so, pt, it] = got[0]!.receiptHandle.split(' ').map(Number) as [number, number, number];
    const entry = {
      consumerGroup: group,
      topic,
      retry: '0' as const,
      startOffset: so,
      queueId: 0,
      reviveQueueId: 0,
      popTime: pt,
      invisibleTime: it,
    };
    // The second entry names a checkpoint that does not exist (another pop time).
    const body = encodeBatchAckBody({
      brokerName: 'broker-a',
      acks: [
        { ...entry, indexes: [0, 1] },
        { ...entry, popTime: pt + 1, indexes: [2] },
      ],
    });
    const r = await call(body);
    assert.equal(r.code, ResponseCode.NO_MESSAGE);
    assert.match(r.remark ?? '', /1 of 3 offsets/);
    assert.equal(inflight(group), 3, 'nothing applied');
    await c.ack(got);
    assert.equal(inflight(group), 0);
  });
});
