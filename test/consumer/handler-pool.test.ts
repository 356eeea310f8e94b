import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { HandlerCall, HandlerPool, type ConsumeOutcome } from '../../src/consumer/core/handler-pool.js';

const noTrace = () => ({
  consumerGroup: 'g',
  topic: 't',
  brokerName: 'b',
  queueId: 0,
  offsets: [],
  msgIds: [],
});

/** A call from two functions, as the consume services build theirs. */
class TestCall extends HandlerCall {
  constructor(
    private readonly fn: () => unknown,
    private readonly onDone: (o: ConsumeOutcome) => void,
  ) {
    super();
  }
  call(): unknown {
    return this.fn();
  }
  trace() {
    return noTrace();
  }
  done(o: ConsumeOutcome): void {
    this.onDone(o);
  }
}

test('a long queue of synchronous handlers runs in order without recursing', () => {
  const pool = new HandlerPool(1, 60_000);
  const ran: number[] = [];
  let ok = 0;
  // The first call is asynchronous, so the other 50,000 wait and are started by the drain loop.
  let release: () => void = () => undefined;
  pool.submit(
    new TestCall(
      () => new Promise<void>((r) => (release = r)),
      () => ok++,
    ),
  );
  for (let i = 0; i < 50_000; i++)
    pool.submit(
      new TestCall(
        () => void ran.push(i),
        (o) => (o.ok ? ok++ : undefined),
      ),
    );
  assert.equal(pool.queued, 50_000);
  release();
  return new Promise<void>((resolve) =>
    setImmediate(() => {
      assert.equal(ok, 50_001);
      assert.equal(ran.length, 50_000);
      assert.ok(
        ran.every((v, i) => v === i),
        'in submission order',
      );
      assert.equal(pool.inFlight, 0);
      assert.equal(pool.queued, 0);
      resolve();
    }),
  );
});

test('outcomes: a value or a resolved thenable is ok, a throw or a rejection is a failure', async () => {
  const pool = new HandlerPool(4, 60_000);
  const boom = new Error('boom');
  const outcomes = await Promise.all([
    pool.run(() => 'value', noTrace),
    pool.run(() => Promise.resolve(), noTrace),
    pool.run(() => {
      throw boom;
    }, noTrace),
    pool.run(() => Promise.reject(boom), noTrace),
  ]);
  assert.deepEqual(
    outcomes.map((o: ConsumeOutcome) => (o.ok ? 'ok' : o.error === boom && !o.timedOut ? 'failed' : 'other')),
    ['ok', 'ok', 'failed', 'failed'],
  );
  pool.close();
});

test('no more than `limit` calls run at once', async () => {
  const pool = new HandlerPool(3, 60_000);
  let running = 0;
  let peak = 0;
  const calls = Array.from({ length: 20 }, () =>
    pool.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running--;
    }, noTrace),
  );
  await Promise.all(calls);
  assert.equal(peak, 3);
  pool.close();
});

test('a pool that went idle still times out a hung handler that comes later, and frees its slot', async (t) => {
  // consumeTimeout 80 ms: the budget sweep runs every 20 ms and stops once it finds the pool idle.
  const pool = new HandlerPool(2, 80);
  // The sweep timer is unref'd (a consumer's keep-alive holds the process): hold it here.
  const keepAlive = setInterval(() => undefined, 1000);
  t.after(() => clearInterval(keepAlive));
  assert.deepEqual(await pool.run(() => undefined, noTrace), { ok: true });
  await new Promise((r) => setTimeout(r, 100));
  const hung = pool.run(() => new Promise(() => undefined), noTrace);
  const quick = pool.run(async () => undefined, noTrace);
  assert.equal(pool.inFlight, 2);
  assert.deepEqual(await quick, { ok: true });
  const outcome = await hung;
  assert.equal(outcome.ok, false);
  assert.equal(!outcome.ok && outcome.timedOut, true);
  assert.equal(pool.inFlight, 0);
  assert.deepEqual(await pool.run(() => 'after', noTrace), { ok: true }, 'the slot was given back');
  pool.close();
});
