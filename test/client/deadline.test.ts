import { describe, it, test } from 'node:test';
import { getEventListeners } from 'node:events';
import * as assert from 'node:assert/strict';
import { Deadline } from '../../src/client/deadline.js';
import { AbortError } from '../../src/errors/abort.js';

describe('Deadline', () => {
  it('counts down on the injected clock and never goes negative', () => {
    let now = 500;
    const d = Deadline.after(100, () => now);
    assert.equal(d.at, 600);
    assert.equal(d.remaining(), 100);
    now = 570;
    assert.equal(d.remaining(), 30);
    assert.equal(d.expired(), false);
    now = 700;
    assert.equal(d.remaining(), 0);
    assert.equal(d.expired(), true);
  });

  it('cap: the earlier of the deadline and `ms` from now, on the same clock', () => {
    let now = 0;
    const d = Deadline.after(100, () => now);
    assert.equal(d.cap(30).at, 30);
    assert.equal(d.cap(500), d, 'a longer cap keeps the deadline itself');
    const c = d.cap(30);
    now = 20;
    assert.equal(c.remaining(), 10, 'the capped deadline reads the injected clock');
  });

  it('race: the promise when it settles first, the timeout error otherwise, at once when spent', async () => {
    const live = Deadline.after(1000);
    assert.equal(await live.race(Promise.resolve(7), () => new Error('late')), 7);
    await assert.rejects(
      live.race(Promise.reject(new Error('own')), () => new Error('late')),
      /own/,
    );
    const spent = Deadline.after(0);
    let rejectedLater = false;
    const never = new Promise<number>((_, reject) =>
      setImmediate(() => {
        rejectedLater = true;
        reject(new Error('swallowed'));
      }),
    );
    await assert.rejects(
      spent.race(never, () => new Error('timed out')),
      /timed out/,
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(rejectedLater, 'the raced promise settled later without an unhandled rejection');
    // The race's timer is unref'd (it never holds the process open): keep the loop alive meanwhile.
    const keepAlive = setTimeout(() => undefined, 5000);
    try {
      const short = Deadline.after(20);
      await assert.rejects(
        short.race(new Promise(() => undefined), () => new Error('timer')),
        /timer/,
      );
    } finally {
      clearTimeout(keepAlive);
    }
  });
});

test('a deadline with a signal: race ends on abort, cap keeps the signal, withoutSignal drops it', async () => {
  const controller = new AbortController();
  const d = Deadline.after(60_000, Date.now, controller.signal);
  assert.equal(d.cap(10).signal, controller.signal);
  assert.equal(d.withoutSignal().signal, undefined);
  assert.equal(d.withoutSignal().at, d.at);
  const never = new Promise<never>(() => undefined);
  const raced = d.race(never, () => new Error('timeout'));
  controller.abort();
  await assert.rejects(raced, AbortError);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});
