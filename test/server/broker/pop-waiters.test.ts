import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PopWaiters } from '../../../src/server/broker/pop/pop-waiters.js';

test('PopWaiters: a wait returns at once when one of its topics was notified since its mark', async () => {
  const waiters = new PopWaiters();
  const owner = {};
  const mark = waiters.mark(['t', '%RETRY%g_t']);
  waiters.notify('other');
  assert.equal(waiters.mark(['t', '%RETRY%g_t']), mark, 'another topic leaves the mark alone');
  waiters.notify('%RETRY%g_t');
  let done = false;
  const waiting = waiters.wait(['t', '%RETRY%g_t'], 60_000, owner, mark).then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  assert.ok(done, 'resolved without waiting');
  assert.equal(waiters.size, 0, 'never registered');
  await waiting;
});

test('PopWaiters: a wait with an unchanged mark waits for the next notify', async () => {
  const waiters = new PopWaiters();
  const owner = {};
  const mark = waiters.mark(['t']);
  let done = false;
  const waiting = waiters.wait(['t'], 60_000, owner, mark).then(() => (done = true));
  await Promise.resolve();
  assert.equal(done, false);
  assert.equal(waiters.size, 1);
  waiters.notify('t');
  await waiting;
  assert.equal(waiters.size, 0);
});
