/** Send backpressure: waiting for room, first come first served, a typed error on timeout. */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { BackpressureError } from '../../src/errors.js';
import { SendPermits } from '../../src/producer/backpressure.js';
import { decodeBatch } from '../../src/protocol/message/batch.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import { Producer } from '../../src/producer/producer.js';
import type { RemotingCommand } from '../../src/protocol/command.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { uniqueTopic, watchRequests } from './cluster-helpers.js';

describe('SendPermits (backpressure)', () => {
  it('a send beyond the count waits, first come first served, and goes once one finishes', async () => {
    const permits = new SendPermits(2, 1 << 20);
    assert.equal(permits.acquire(10, 1000), undefined);
    assert.equal(permits.acquire(10, 1000), undefined);
    const order: string[] = [];
    const third = permits.acquire(10, 1000)?.then(() => order.push('third'));
    const fourth = permits.acquire(10, 1000)?.then(() => order.push('fourth'));
    assert.ok(third && fourth);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, []);
    permits.release(10);
    await third;
    assert.deepEqual(order, ['third']);
    permits.release(10);
    await fourth;
    assert.deepEqual(order, ['third', 'fourth']);
    assert.deepEqual(permits.inFlight, { count: 2, bytes: 20 });
  });

  it('bytes count too; a wait longer than the timeout rejects with BackpressureError and frees its place', async () => {
    const permits = new SendPermits(100, 100);
    assert.equal(permits.acquire(80, 1000), undefined);
    const big = permits.acquire(50, 30);
    assert.ok(big);
    await assert.rejects(big, BackpressureError);
    // The waiter that gave up left no trace: a small send fits at once.
    assert.equal(permits.acquire(10, 1000), undefined);
    assert.deepEqual(permits.inFlight, { count: 2, bytes: 90 });
  });

  /**
   * Ten sends fill `backPressureForAsyncSendNum` on a hung broker; the 11th must wait for room and
   * give up within `sendMsgTimeout`. `onWire` checks what went out meanwhile.
   */
  async function eleventhSendWaits(
    options: Partial<ProducerOptions>,
    onWire: (requests: RemotingCommand[]) => void,
  ): Promise<void> {
    const cluster = await EmbeddedCluster.start({ brokers: 1, faultInjection: true });
    const p = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: uniqueTopic('PGB_bp'),
      backPressureForAsyncSendNum: 10,
      sendMsgTimeout: 400,
      retryTimesWhenSendFailed: 0,
      ...options,
    });
    try {
      const topic = uniqueTopic('Backpressure');
      await cluster.createTopic(topic, 1);
      await p.start();
      await p.send({ topic, body: 'warm' });
      const seen = watchRequests(p);
      cluster.broker('broker-a').faults.set({ hang: true });
      const stuck = Array.from({ length: 10 }, (_, i) =>
        p.send({ topic, body: `stuck ${i}` }).catch((e: unknown) => e),
      );
      const started = Date.now();
      const extra = p.send({ topic, body: 'one too many' }).then(
        () => 'sent',
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 150));
      onWire(seen.map((e) => e.request));
      for (const e of await Promise.all(stuck)) assert.ok(e instanceof Error);
      // Room came only when the hung sends gave up, with its own budget (almost) spent.
      const outcome = await extra;
      assert.ok(outcome instanceof Error, 'the waiting send could not finish within sendMsgTimeout');
      assert.ok(Date.now() - started < 400 + 300, 'and it did not wait beyond its budget');
      cluster.broker('broker-a').faults.clear();
      assert.equal((await p.send({ topic, body: 'room again' })).status, 'SEND_OK');
      // Every send, batched or not, has given back its in-flight count (shutdown waits for none).
      assert.equal((p as unknown as { sends: { size: number } }).sends.size, 0);
    } finally {
      cluster.broker('broker-a').faults.clear();
      await p.shutdown();
      await cluster.stop();
    }
  }

  it('a producer at its in-flight limit holds the next send back (never more than the limit on the wire), bounded by sendMsgTimeout', async () => {
    await eleventhSendWaits({}, (sent) =>
      assert.equal(
        sent.filter((r) => r.code === 310).length,
        10,
        'the 11th send waits for room instead of going out',
      ),
    );
  });

  it('with autoBatch, held and batched messages count against the limit: the 11th send waits, bounded by sendMsgTimeout', async () => {
    await eleventhSendWaits({ autoBatch: true }, (sent) => {
      assert.deepEqual(
        sent.map((r) => r.code),
        [320],
        'the ten went as one batch; the 11th waits for room',
      );
      assert.equal(decodeBatch(sent[0]!.body!).length, 10);
    });
  });
});
