/**
 * AbortSignal at the remoting layer: the helpers (remoting/abort.ts), a request aborted before
 * it is sent or while it waits for its response, on a connection and through the pool.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EventEmitter, getEventListeners, once } from 'node:events';
import { RocketMQError, InvalidArgumentError } from '../../src/errors.js';
import { AbortError, abortErrorOf } from '../../src/errors/abort.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { checkSignal, raceAbort, signalOf, throwIfAborted, whenAborted } from '../../src/remoting/abort.js';
import { Connection } from '../../src/remoting/connection.js';
import { ConnectionPool } from '../../src/remoting/pool.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { capturingLogger, waitUntil } from './helpers.js';

const ECHO = 1001;
const HELD = 1003;

/** A server that answers ECHO at once and HELD only when released; counts what it received. */
async function heldServer(): Promise<{
  server: RemotingServer;
  address: string;
  received: number[];
  release: () => void;
}> {
  const server = new RemotingServer();
  const received: number[] = [];
  const held: Array<() => void> = [];
  server.registerProcessor(ECHO, (req) => {
    received.push(req.code);
    return createResponse(req, ResponseCode.SUCCESS, undefined, req.extFields);
  });
  server.registerProcessor(HELD, (req, conn) => {
    received.push(req.code);
    return new Promise((resolve) =>
      held.push(() => resolve(conn.closed ? undefined : createResponse(req, ResponseCode.SUCCESS))),
    );
  });
  const { port } = await server.listen();
  return {
    server,
    address: `127.0.0.1:${port}`,
    received,
    release: () => held.splice(0).forEach((f) => f()),
  };
}

test('AbortError looks like the platform AbortError and is a non-retriable RocketMQError', () => {
  const controller = new AbortController();
  const reason = new Error('user pressed stop');
  controller.abort(reason);
  const err = abortErrorOf(controller.signal, 'send');
  assert.ok(err instanceof AbortError);
  assert.ok(err instanceof RocketMQError);
  assert.equal(err.name, 'AbortError');
  assert.equal(err.code, 'ABORT_ERR');
  assert.equal(err.retriable, false);
  assert.equal(err.cause, reason);
  assert.match(err.message, /send was aborted: user pressed stop/);
  // The default reason (a DOMException) is named AbortError too, and becomes the cause.
  const plain = new AbortController();
  plain.abort();
  const ours = abortErrorOf(plain.signal);
  assert.equal(ours.name, (plain.signal.reason as Error).name);
  assert.equal(ours.cause, plain.signal.reason);
  assert.equal(ours.message, 'the operation was aborted');
});

test("AbortError has the name and code of Node's own AbortError", async () => {
  const controller = new AbortController();
  controller.abort();
  const node = (await once(new EventEmitter(), 'never', { signal: controller.signal }).catch(
    (e: unknown) => e,
  )) as Error & { code: string };
  const ours = abortErrorOf(controller.signal);
  assert.equal(ours.name, node.name);
  assert.equal(ours.code, node.code);
});

test('a signal that is not an AbortSignal is an InvalidArgumentError naming the field', () => {
  assert.throws(() => checkSignal('signal', { aborted: false }), InvalidArgumentError);
  assert.throws(
    () => signalOf({ signal: 'stop' as unknown as AbortSignal }),
    /signal: must be an AbortSignal/,
  );
  assert.throws(() => signalOf(42 as unknown as object), /options: must be an object/);
  assert.throws(
    () => signalOf({ sigal: new AbortController().signal } as object),
    /sigal: is not a known option; did you mean signal\?/,
  );
  assert.equal(
    signalOf({ queue: 1 } as object, false),
    undefined,
    'options that extend CallOptions check their own keys',
  );
  assert.equal(signalOf(undefined), undefined);
  assert.equal(signalOf({}), undefined);
  const s = new AbortController().signal;
  assert.equal(signalOf({ signal: s }), s);
});

test('many calls on one signal leave no abort listener behind once they settle', async () => {
  const controller = new AbortController();
  const { signal } = controller;
  const results = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => raceAbort(Promise.resolve(i), signal)),
  );
  assert.equal(results.length, 1000);
  await Promise.allSettled(
    Array.from({ length: 1000 }, () => raceAbort(Promise.reject(new Error('failed')), signal)),
  );
  const disposers = Array.from({ length: 1000 }, () => whenAborted(signal, () => undefined));
  assert.equal(getEventListeners(signal, 'abort').length, 1, 'one listener for every waiting call');
  for (const dispose of disposers) dispose();
  assert.equal(getEventListeners(signal, 'abort').length, 0);
});

test('raceAbort rejects at once when the signal aborts first, and at the call when it aborted before', async () => {
  const controller = new AbortController();
  let release: (v: string) => void = () => undefined;
  const slow = new Promise<string>((resolve) => (release = resolve));
  const raced = raceAbort(slow, controller.signal, 'the wait');
  controller.abort();
  await assert.rejects(
    raced,
    (e: unknown) => e instanceof AbortError && /the wait was aborted/.test(e.message),
  );
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  release('late');
  await assert.rejects(raceAbort(Promise.resolve(1), controller.signal), AbortError);
  assert.throws(() => throwIfAborted(controller.signal), AbortError);
  assert.doesNotThrow(() => throwIfAborted(undefined));
});

test('a request aborted before it is made rejects at once and sends nothing', async () => {
  const { server, address, received } = await heldServer();
  const conn = await Connection.connect(address);
  try {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(conn.request(createRequest(ECHO), 5000, controller.signal), AbortError);
    assert.equal(conn.pendingCount, 0);
    // A normal request afterwards is answered, and it is the first the server saw.
    await conn.request(createRequest(ECHO), 5000);
    assert.deepEqual(received, [ECHO]);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a request aborted while it waits leaves the table at once; its late response is dropped quietly', async () => {
  const { server, address, received, release } = await heldServer();
  const logger = capturingLogger();
  const conn = await Connection.connect(address, { logger, maxInFlight: 1 });
  try {
    const controller = new AbortController();
    const cmd = createRequest(HELD);
    const aborted = conn.request(cmd, 60_000, controller.signal);
    // Queued behind it (maxInFlight 1): gets the slot the aborted request gives back.
    const queuedEcho = conn.request(createRequest(ECHO, { n: 'queued' }), 60_000);
    await waitUntil(() => received.length === 1);
    assert.equal(conn.pendingCount, 2);
    controller.abort(new Error('caller left'));
    await assert.rejects(aborted, (e: unknown) => e instanceof AbortError && e.cause instanceof Error);
    assert.deepEqual((await queuedEcho).extFields, { n: 'queued' });
    assert.equal(conn.pendingCount, 0);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    // The held request is answered now: no warning about a stray response.
    release();
    await waitUntil(() => logger.entries.some((e) => e.meta?.opaque === cmd.opaque));
    const entry = logger.entries.find((e) => e.meta?.opaque === cmd.opaque);
    assert.equal(entry?.level, 'debug');
    assert.match(entry?.msg ?? '', /aborted request/);
    await conn.request(createRequest(ECHO), 5000);
    assert.equal(conn.pendingCount, 0);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a request that settles normally removes its listener from the signal', async () => {
  const { server, address } = await heldServer();
  const pool = new ConnectionPool();
  try {
    const { signal } = new AbortController();
    await Promise.all(
      Array.from({ length: 200 }, () => pool.request(address, createRequest(ECHO), 5000, signal)),
    );
    assert.equal(getEventListeners(signal, 'abort').length, 0);
  } finally {
    await pool.close();
    await server.close();
  }
});

test('the pool: an aborted request or oneway sends nothing, and the connection stays usable', async () => {
  const { server, address, received } = await heldServer();
  const pool = new ConnectionPool();
  try {
    const controller = new AbortController();
    controller.abort();
    // Before the first connect, and again on the open connection.
    await assert.rejects(pool.request(address, createRequest(ECHO), 5000, controller.signal), AbortError);
    await assert.rejects(pool.oneway(address, createRequest(ECHO), 5000, controller.signal), AbortError);
    await pool.request(address, createRequest(ECHO), 5000);
    await assert.rejects(pool.request(address, createRequest(ECHO), 5000, controller.signal), AbortError);
    await assert.rejects(pool.oneway(address, createRequest(ECHO), 5000, controller.signal), AbortError);
    assert.deepEqual(received, [ECHO]);
    assert.equal(pool.size, 1);
  } finally {
    await pool.close();
    await server.close();
  }
});

test('a queued request aborted before it gets a slot is never written', async () => {
  const { server, address, received, release } = await heldServer();
  const conn = await Connection.connect(address, { maxInFlight: 1 });
  try {
    const holding = conn.request(createRequest(HELD), 60_000);
    const controller = new AbortController();
    const queued = conn.request(createRequest(ECHO), 60_000, controller.signal);
    assert.equal(conn.pendingCount, 2);
    controller.abort();
    await assert.rejects(queued, AbortError);
    assert.equal(conn.pendingCount, 1);
    await waitUntil(() => received.length === 1);
    release();
    await holding;
    await conn.request(createRequest(ECHO), 5000);
    assert.deepEqual(received, [HELD, ECHO], 'the aborted ECHO never reached the server');
    assert.equal(conn.pendingCount, 0);
  } finally {
    conn.close();
    await server.close();
  }
});

test('every call waiting on one signal is aborted by it, each once, and calls that left are not', async () => {
  const controller = new AbortController();
  const seen: number[] = [];
  const disposers = [0, 1, 2, 3].map((i) => whenAborted(controller.signal, () => seen.push(i)));
  disposers[1]!();
  controller.abort();
  assert.deepEqual(seen, [0, 2, 3]);
  for (const dispose of disposers) dispose();
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  // A call made after the abort hears it at once.
  whenAborted(controller.signal, () => seen.push(4));
  assert.deepEqual(seen, [0, 2, 3, 4]);
});
