/**
 * AbortSignal on the producer's calls against the embedded cluster (one broker, fault
 * injection): aborted before the call nothing is sent; aborted while it waits (a hung broker,
 * no backpressure room, a held autoBatch slot, no reply) it rejects with AbortError at once and
 * leaves nothing behind: no permit, no in-flight count, no request entry, no listener; and the
 * next call works.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { InvalidArgumentError } from '../../src/errors.js';
import { AbortError } from '../../src/errors/abort.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import { pendingRequestCount } from '../../src/producer/request-reply.js';
import type { SendPermits } from '../../src/producer/backpressure.js';
import type { ProduceAccumulator } from '../../src/producer/auto-batch.js';
import { readTopic, uniqueTopic, waitFor } from './cluster-helpers.js';
import { countRequests, pendingRequests } from '../helpers/request-counter.js';

const SEND_CODES = [RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE];

/** Counts the send requests this process writes. */
const countSends = (): ReturnType<typeof countRequests> => countRequests(SEND_CODES);

/** What a producer still holds: sends in flight, permits, waiters, requests on its connections. */
function leftovers(p: Producer): { inFlight: number; permits: number; waiting: number; requests: number } {
  const permits = (p as unknown as { permits: SendPermits }).permits;
  const requests = pendingRequests(p.client.pool);
  return {
    inFlight: (p as unknown as { sends: { size: number } }).sends.size,
    permits: permits.inFlight.count,
    waiting: permits.waiting,
    requests,
  };
}

const NOTHING = { inFlight: 0, permits: 0, waiting: 0, requests: 0 };

let cluster: EmbeddedCluster;
let topic: string;
const producers: Producer[] = [];

async function startProducer(options: Partial<ProducerOptions> = {}, tx = false): Promise<Producer> {
  const o = { namesrvAddr: cluster.namesrvAddr, producerGroup: `PG_ABORT_${producers.length}`, ...options };
  const p = tx ? new TransactionProducer({ ...o, checkListener: () => 'ROLLBACK' }) : new Producer(o);
  producers.push(p);
  await p.start();
  return p;
}

function aborted(): AbortSignal {
  const c = new AbortController();
  c.abort();
  return c.signal;
}

describe('producer calls with an AbortSignal', () => {
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, faultInjection: true });
    topic = uniqueTopic('Abort');
    await cluster.createTopic(topic, 4);
  });
  after(async () => {
    cluster.broker('broker-a').faults.clear();
    for (const p of producers) await p.shutdown();
    await cluster.stop();
  });

  it('a signal that is not an AbortSignal is an InvalidArgumentError', async () => {
    const p = await startProducer();
    const bad = { signal: 'stop' as unknown as AbortSignal };
    await assert.rejects(p.send({ topic, body: 'x' }, bad), InvalidArgumentError);
    await assert.rejects(p.sendBatch([{ topic, body: 'x' }], bad), InvalidArgumentError);
    await assert.rejects(p.sendOneway({ topic, body: 'x' }, bad), InvalidArgumentError);
    await assert.rejects(p.request({ topic, body: 'x' }, 1000, bad), InvalidArgumentError);
  });

  it('aborted before the call: send, sendBatch, sendOneway and request reject at once and send nothing', async () => {
    const p = await startProducer();
    await p.send({ topic, body: 'warm up the route' });
    const sends = countSends();
    try {
      const signal = aborted();
      for (const call of [
        () => p.send({ topic, body: 'a' }, { signal }),
        () => p.sendBatch([{ topic, body: 'b' }], { signal }),
        () => p.sendOneway({ topic, body: 'c' }, { signal }),
        () => p.request({ topic, body: 'd' }, 5000, { signal }),
      ])
        await assert.rejects(call(), (e: unknown) => e instanceof AbortError && e.code === 'ABORT_ERR');
      assert.equal(sends.count(), 0);
      assert.deepEqual(leftovers(p), NOTHING);
      assert.equal(pendingRequestCount(), 0);
    } finally {
      sends.stop();
    }
  });

  it('aborted while the broker hangs: rejects at once, is not retried, leaves nothing, and the next send works', async () => {
    const p = await startProducer({ sendMsgTimeout: 60_000, retryTimesWhenSendFailed: 2 });
    await p.send({ topic, body: 'warm up the route' });
    const sends = countSends();
    const broker = cluster.broker('broker-a');
    broker.faults.set({ hang: true });
    try {
      const controller = new AbortController();
      const sending = p.send({ topic, body: 'hung' }, { signal: controller.signal });
      await waitFor(() => sends.count() === 1, 10_000, 'the send on the wire');
      assert.equal(leftovers(p).requests, 1);
      controller.abort(new Error('user gave up'));
      await assert.rejects(
        sending,
        (e: unknown) => e instanceof AbortError && (e.cause as Error).message === 'user gave up',
      );
      assert.deepEqual(leftovers(p), NOTHING);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      broker.faults.clear();
      const r = await p.send({ topic, body: 'after' });
      assert.equal(r.status, 'SEND_OK');
      assert.equal(sends.count(), 2, 'the aborted send was not retried');
    } finally {
      broker.faults.clear();
      sends.stop();
    }
  });

  it('aborted while waiting for backpressure room: leaves the line, takes no permit', async () => {
    const p = await startProducer({ backPressureForAsyncSendNum: 10, sendMsgTimeout: 60_000 });
    await p.send({ topic, body: 'warm up the route' });
    const broker = cluster.broker('broker-a');
    broker.faults.set({ hang: true });
    const first = new AbortController();
    const second = new AbortController();
    try {
      const holding = Array.from({ length: 10 }, (_, i) =>
        p.send({ topic, body: `holds permit ${i}` }, { signal: first.signal }),
      );
      const waiting = p.send({ topic, body: 'waits for room' }, { signal: second.signal });
      assert.equal(leftovers(p).waiting, 1);
      second.abort();
      await assert.rejects(waiting, AbortError);
      assert.deepEqual({ ...leftovers(p), requests: 0 }, { ...NOTHING, inFlight: 10, permits: 10 });
      first.abort();
      for (const h of holding) await assert.rejects(h, AbortError);
      assert.deepEqual(leftovers(p), NOTHING);
    } finally {
      broker.faults.clear();
    }
    assert.equal((await p.send({ topic, body: 'room again' })).status, 'SEND_OK');
  });

  it('autoBatch: a message aborted before its batch goes leaves the batch; the others are stored', async () => {
    const batchTopic = uniqueTopic('AbortBatch');
    await cluster.createTopic(batchTopic, 1);
    const p = await startProducer({ autoBatch: true, batchMaxDelayMs: 1000 });
    await p.send({ topic: batchTopic, body: 'warm up the route' });
    const sends = countSends();
    try {
      const controller = new AbortController();
      const a = p.send({ topic: batchTopic, body: 'kept-1' });
      const b = p.send({ topic: batchTopic, body: 'aborted' }, { signal: controller.signal });
      const c = p.send({ topic: batchTopic, body: 'kept-2' });
      // Same turn: the batch is still held (it goes at the end of the turn).
      const accumulator = (p as unknown as { accumulator: ProduceAccumulator }).accumulator;
      const heldBefore = accumulator.held;
      controller.abort();
      assert.ok(accumulator.held < heldBefore, 'the aborted record left the held batch');
      await assert.rejects(b, AbortError);
      const [ra, rc] = await Promise.all([a, c]);
      assert.equal(rc.queueOffset, ra.queueOffset + 1, 'one batch of two, in order');
      assert.equal(sends.count(), 1);
      assert.deepEqual(leftovers(p), NOTHING);
      assert.equal(accumulator.held, 0);
      const stored = (await readTopic(cluster, batchTopic, 1)).map((m) => m.body.toString());
      assert.deepEqual(stored, ['warm up the route', 'kept-1', 'kept-2']);
    } finally {
      sends.stop();
    }
  });

  it('autoBatch: a lone aborted message empties its batch, which is dropped', async () => {
    const p = await startProducer({ autoBatch: true, batchMaxDelayMs: 1000 });
    await p.send({ topic, body: 'warm up the route' });
    const sends = countSends();
    try {
      const controller = new AbortController();
      const only = p.send({ topic, body: 'alone and aborted' }, { signal: controller.signal });
      controller.abort();
      await assert.rejects(only, AbortError);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(sends.count(), 0);
      assert.deepEqual(leftovers(p), NOTHING);
    } finally {
      sends.stop();
    }
  });

  it('request: aborted while waiting for the reply removes its pending entry', async () => {
    const p = await startProducer();
    await p.send({ topic, body: 'warm up the route' });
    const controller = new AbortController();
    const sends = countSends();
    try {
      // Nobody replies: the request waits until aborted.
      const requesting = p.request({ topic, body: 'ping' }, 60_000, { signal: controller.signal });
      await waitFor(() => sends.count() === 1 && leftovers(p).inFlight === 0, 10_000, 'the request sent');
      assert.equal(pendingRequestCount(), 1);
      controller.abort();
      await assert.rejects(requesting, AbortError);
      assert.equal(pendingRequestCount(), 0);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    } finally {
      sends.stop();
    }
  });

  it('sendMessageInTransaction aborted before the call sends no half message', async () => {
    const p = (await startProducer({}, true)) as TransactionProducer;
    const sends = countSends();
    try {
      let ran = false;
      await assert.rejects(
        p.sendMessageInTransaction(
          { topic, body: 'half' },
          () => {
            ran = true;
            return 'COMMIT';
          },
          { signal: aborted() },
        ),
        AbortError,
      );
      assert.equal(ran, false);
      assert.equal(sends.count(), 0);
    } finally {
      sends.stop();
    }
  });

  it('many sends on one signal leave no listener on it', async () => {
    const p = await startProducer();
    const controller = new AbortController();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => p.send({ topic, body: `n${i}` }, { signal: controller.signal })),
    );
    assert.equal(results.length, 50);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    assert.deepEqual(leftovers(p), NOTHING);
  });
});
