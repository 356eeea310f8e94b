import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Lifecycle, type StartStep } from '../../src/client/lifecycle.js';
import { IllegalStateError, RocketMQError } from '../../src/errors.js';
import { StartCancelledError } from '../../src/errors/lifecycle.js';

/** A client whose start waits for `gate` (when given) and which records what it opened and closed. */
function fakeClient(opts: { gate?: Promise<void>; fail?: () => Error | undefined } = {}) {
  const log: string[] = [];
  let open = 0;
  const life = new Lifecycle('fake client', {
    start: async (step: StartStep) => {
      log.push('open a');
      open++;
      await step(opts.gate);
      const failure = opts.fail?.();
      if (failure !== undefined) throw failure;
      log.push('open b');
      open++;
      await step();
    },
    stop: async () => {
      await Promise.resolve();
      log.push(`close ${open}`);
      open = 0;
    },
  });
  return { life, log, openCount: () => open };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test('a client goes CREATED → STARTING → RUNNING → STOPPING → STOPPED', async () => {
  const { life, log } = fakeClient();
  assert.equal(life.state, 'CREATED');
  const started = life.start();
  assert.equal(life.state, 'STARTING');
  assert.equal(life.active, true);
  assert.equal(life.running, false);
  await started;
  assert.equal(life.state, 'RUNNING');
  assert.equal(life.running, true);
  const stopped = life.shutdown();
  assert.equal(life.state, 'STOPPING');
  assert.equal(life.closed, true);
  await stopped;
  assert.equal(life.state, 'STOPPED');
  assert.deepEqual(log, ['open a', 'open b', 'close 2']);
});

test('start() while starting returns the pending promise and start() while running resolves at once', async () => {
  const gate = deferred();
  const { life, log } = fakeClient({ gate: gate.promise });
  const first = life.start();
  assert.equal(life.start(), first);
  gate.resolve();
  await first;
  await life.start();
  assert.deepEqual(log, ['open a', 'open b']);
  await life.shutdown();
});

test('shutdown() during start() stops the start at its next await, closes what it opened and rejects the start', async () => {
  const gate = deferred();
  const { life, log, openCount } = fakeClient({ gate: gate.promise });
  const started = life.start();
  await new Promise<void>((r) => setImmediate(r));
  const stopped = life.shutdown();
  assert.equal(life.state, 'STOPPING');
  let startSettled = false;
  const rejection = assert.rejects(started, (err: unknown) => {
    startSettled = true;
    assert.ok(err instanceof StartCancelledError);
    assert.ok(err instanceof RocketMQError);
    assert.equal(err.code, 'ERR_START_CANCELLED');
    assert.equal(err.retriable, false);
    // The rejection comes after the cleanup: nothing is open any more.
    assert.equal(openCount(), 0);
    return true;
  });
  gate.resolve();
  await stopped;
  await rejection;
  assert.ok(startSettled);
  assert.equal(life.state, 'STOPPED');
  // 'open b' never ran: the start stopped at the await after 'open a'.
  assert.deepEqual(log, ['open a', 'close 1']);
});

test('shutdown() in the same tick as start() opens nothing', async () => {
  const { life, log } = fakeClient();
  const started = life.start();
  const stopped = life.shutdown();
  await assert.rejects(started, StartCancelledError);
  await stopped;
  assert.equal(life.state, 'STOPPED');
  assert.deepEqual(log, ['close 0']);
});

test('a second shutdown() returns the first one’s promise', async () => {
  const { life, log } = fakeClient();
  await life.start();
  const first = life.shutdown();
  assert.equal(life.shutdown(), first);
  await first;
  assert.equal(life.shutdown(), first);
  assert.deepEqual(log, ['open a', 'open b', 'close 2']);
});

test('shutdown() of a client never started resolves and leaves it STOPPED', async () => {
  const { life, log } = fakeClient();
  await life.shutdown();
  assert.equal(life.state, 'STOPPED');
  assert.deepEqual(log, []);
});

test('start() after shutdown() rejects with IllegalStateError', async () => {
  const { life } = fakeClient();
  await life.start();
  await life.shutdown();
  await assert.rejects(life.start(), IllegalStateError);
  const never = fakeClient();
  await never.life.shutdown();
  await assert.rejects(never.life.start(), /shut down/);
});

test('a failed start() closes what it opened, goes back to CREATED, and a later start() may retry', async () => {
  let failing = true;
  const { life, log, openCount } = fakeClient({
    fail: () => (failing ? new RocketMQError('ERR_TEST', 'no NameServer') : undefined),
  });
  await assert.rejects(life.start(), /no NameServer/);
  assert.equal(life.state, 'CREATED');
  assert.equal(openCount(), 0);
  failing = false;
  await life.start();
  assert.equal(life.state, 'RUNNING');
  await life.shutdown();
  assert.deepEqual(log, ['open a', 'close 1', 'open a', 'open b', 'close 2']);
});

test('shutdown() while a failed start() is cleaning up leaves the client STOPPED, not CREATED', async () => {
  const gate = deferred();
  const life = new Lifecycle('fake client', {
    start: () => Promise.reject(new RocketMQError('ERR_TEST', 'boom')),
    stop: () => gate.promise,
  });
  const started = life.start();
  await new Promise<void>((r) => setImmediate(r));
  const stopped = life.shutdown();
  gate.resolve();
  await assert.rejects(started, /boom/);
  await stopped;
  assert.equal(life.state, 'STOPPED');
});

test('requireRunning names the call and the state', async () => {
  const { life } = fakeClient();
  assert.throws(
    () => life.requireRunning('poll()'),
    /poll\(\) needs a started fake client \(state CREATED\)/,
  );
  await life.start();
  life.requireRunning('poll()');
  await life.shutdown();
  assert.throws(() => life.requireRunning('poll()'), IllegalStateError);
});
