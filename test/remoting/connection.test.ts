import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as net from 'node:net';
import {
  BackpressureError,
  ConnectionClosedError,
  InvalidArgumentError,
  TimeoutError,
} from '../../src/errors.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import {
  createRequest,
  createResponse,
  FLAG_ONEWAY,
  FLAG_RESPONSE,
  type RemotingCommand,
} from '../../src/protocol/command.js';
import { Connection, nextOpaque } from '../../src/remoting/connection.js';
import type { RpcHook } from '../../src/remoting/hooks.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { capturingLogger, delay, waitUntil } from './helpers.js';

const ECHO = 1001;
const SLOW = 1002;
const SILENT = 1003;

async function echoServer(): Promise<{
  server: RemotingServer;
  port: number;
  release: () => void;
  held: Array<() => void>;
}> {
  const server = new RemotingServer();
  const held: Array<() => void> = [];
  server.registerProcessor(ECHO, (req) =>
    createResponse(req, ResponseCode.SUCCESS, undefined, req.extFields, req.body),
  );
  server.registerProcessor(SLOW, async (req) => {
    await delay(Number(req.extFields?.delayMs ?? '100'));
    return createResponse(req, ResponseCode.SUCCESS);
  });
  // Never answers until released: keeps requests in flight.
  server.registerProcessor(
    SILENT,
    (req, conn) =>
      new Promise((resolve) => held.push(() => resolve(conn.closed ? undefined : createResponse(req, 0)))),
  );
  const { port } = await server.listen();
  return { server, port, held, release: () => held.splice(0).forEach((f) => f()) };
}

test('request and response are matched by opaque, with headers and body', async () => {
  const { server, port } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  try {
    const bodies = Array.from({ length: 20 }, (_, i) => Buffer.from(`body-${i}`));
    const responses = await Promise.all(
      bodies.map((b, i) => conn.request(createRequest(ECHO, { i: String(i) }, b), 2000)),
    );
    responses.forEach((r, i) => {
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal(r.flag & FLAG_RESPONSE, FLAG_RESPONSE);
      assert.deepEqual(r.extFields, { i: String(i) });
      assert.equal(Buffer.from(r.body ?? []).toString(), `body-${i}`);
    });
    assert.equal(conn.remoteAddress, `127.0.0.1:${port}`);
    assert.match(conn.localAddress, /^127\.0\.0\.1:\d+$/);
    assert.equal(conn.pendingCount, 0);
  } finally {
    conn.close();
    await server.close();
  }
});

test('opaque is a per-process int32 counter that wraps like AtomicInteger', () => {
  const a = nextOpaque();
  const b = nextOpaque();
  assert.equal(b, (a + 1) | 0);
  assert.ok(Number.isInteger(a) && a <= 0x7fffffff && a >= -0x80000000);
});

test('a timed-out request settles once with TimeoutError and its late response is dropped and logged', async () => {
  const { server, port } = await echoServer();
  const logger = capturingLogger();
  const conn = await Connection.connect(`127.0.0.1:${port}`, { logger });
  try {
    let settlements = 0;
    const cmd = createRequest(SLOW, { delayMs: '150' });
    const started = Date.now();
    const err = await conn.request(cmd, 40).then(
      () => {
        settlements++;
        return undefined;
      },
      (e: unknown) => {
        settlements++;
        return e;
      },
    );
    assert.ok(err instanceof TimeoutError);
    assert.equal(err.address, `127.0.0.1:${port}`);
    assert.equal(err.requestCode, SLOW);
    assert.ok(err.elapsedMs >= 35 && err.elapsedMs <= Date.now() - started + 1, `elapsed ${err.elapsedMs}`);
    assert.equal(conn.pendingCount, 0);
    await waitUntil(() => logger.entries.some((e) => e.level === 'warn' && e.meta?.opaque === cmd.opaque));
    assert.equal(settlements, 1);
    const dropped = logger.entries.find((e) => e.meta?.opaque === cmd.opaque);
    assert.match(dropped?.msg ?? '', /matches no pending request/);
    // The connection is still usable.
    const ok = await conn.request(createRequest(ECHO), 1000);
    assert.equal(ok.code, 0);
  } finally {
    conn.close();
    await server.close();
  }
});

test('close rejects every pending request at once with one ConnectionClosedError and empties the table', async () => {
  const { server, port, release } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`, { maxInFlight: 2 });
  try {
    const pending = Array.from({ length: 5 }, () => conn.request(createRequest(SILENT), 5000));
    await waitUntil(() => [...server.connections].length === 1);
    assert.equal(conn.pendingCount, 5);
    const closeEvent = once(conn, 'close');
    conn.close();
    const results = await Promise.allSettled(pending);
    const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as unknown) : undefined));
    assert.ok(reasons.every((r) => r instanceof ConnectionClosedError));
    assert.ok(
      reasons.every((r) => r === reasons[0]),
      'one error for all',
    );
    assert.equal(conn.pendingCount, 0);
    assert.equal(conn.closed, true);
    await closeEvent;
    await assert.rejects(conn.request(createRequest(ECHO), 100), ConnectionClosedError);
  } finally {
    release();
    await server.close();
  }
});

test('the peer hanging up rejects in-flight requests with ConnectionClosedError', async () => {
  const { server, port, release } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  try {
    const p = conn.request(createRequest(SILENT), 5000);
    await waitUntil(() => server.connections.size === 1);
    await server.close();
    await assert.rejects(p, ConnectionClosedError);
    assert.equal(conn.closed, true);
  } finally {
    release();
    conn.close();
  }
});

test('a oneway request resolves once written and never waits for an answer', async () => {
  const server = new RemotingServer();
  const seen: RemotingCommand[] = [];
  // This handler returns a response; the server must not send it for a oneway request.
  server.registerProcessor(ECHO, (req) => {
    seen.push(req);
    return createResponse(req, 0);
  });
  const { port } = await server.listen();
  const logger = capturingLogger();
  const conn = await Connection.connect(`127.0.0.1:${port}`, { logger });
  try {
    const cmd = createRequest(ECHO);
    await conn.oneway(cmd);
    assert.equal(cmd.flag & FLAG_ONEWAY, FLAG_ONEWAY);
    assert.equal(conn.pendingCount, 0);
    await waitUntil(() => seen.length === 1);
    assert.equal(seen[0]?.flag, FLAG_ONEWAY);
    await delay(50);
    assert.equal(
      logger.entries.filter((e) => /matches no pending/.test(e.msg)).length,
      0,
      'no response came back',
    );
  } finally {
    conn.close();
    await server.close();
  }
});

test('a server-initiated request reaches the client handler and is answered', async () => {
  const server = new RemotingServer();
  const { port } = await server.listen();
  const conn = await Connection.connect(`127.0.0.1:${port}`, {
    requestHandler: async (req) =>
      req.code === RequestCode.CHECK_TRANSACTION_STATE
        ? createResponse(req, ResponseCode.SUCCESS, 'checked', { txId: req.extFields?.txId })
        : undefined,
  });
  try {
    await waitUntil(() => server.connections.size === 1);
    const serverSide = [...server.connections][0] as Connection;
    const response = await serverSide.request(
      createRequest(RequestCode.CHECK_TRANSACTION_STATE, { txId: 'tx-1' }),
      1000,
    );
    assert.equal(response.code, ResponseCode.SUCCESS);
    assert.equal(response.remark, 'checked');
    assert.deepEqual(response.extFields, { txId: 'tx-1' });
  } finally {
    conn.close();
    await server.close();
  }
});

test('a client without a handler answers server requests with REQUEST_CODE_NOT_SUPPORTED, and a throwing one with SYSTEM_ERROR', async () => {
  const server = new RemotingServer();
  const { port } = await server.listen();
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  try {
    await waitUntil(() => server.connections.size === 1);
    const serverSide = [...server.connections][0] as Connection;
    const r1 = await serverSide.request(createRequest(307), 1000);
    assert.equal(r1.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    assert.equal(r1.remark, ' request type 307 not supported');
    conn.setRequestHandler(() => {
      throw new Error('no running info');
    });
    const r2 = await serverSide.request(createRequest(307), 1000);
    assert.equal(r2.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r2.remark, 'no running info');
  } finally {
    conn.close();
    await server.close();
  }
});

test('requests beyond maxInFlight wait in the queue; a full queue rejects with BackpressureError', async () => {
  const { server, port, release, held } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`, { maxInFlight: 2, maxQueued: 3 });
  try {
    const accepted = Array.from({ length: 5 }, () => conn.request(createRequest(SILENT), 5000));
    await assert.rejects(conn.request(createRequest(SILENT), 5000), BackpressureError);
    assert.equal(conn.pendingCount, 5);
    await waitUntil(() => held.length === 2);
    await delay(30);
    assert.equal(held.length, 2, 'only maxInFlight requests reach the server');
    release();
    await waitUntil(() => conn.pendingCount < 5);
    while (conn.pendingCount > 0) {
      release();
      await delay(5);
    }
    const results = await Promise.all(accepted);
    assert.equal(results.length, 5);
    assert.ok(results.every((r) => r.code === 0));
  } finally {
    conn.close();
    await server.close();
  }
});

test('at most maxInFlight requests are on the wire at once', async () => {
  const server = new RemotingServer();
  let active = 0;
  let peak = 0;
  server.registerProcessor(ECHO, async (req) => {
    peak = Math.max(peak, ++active);
    await delay(2);
    active--;
    return createResponse(req, 0);
  });
  const { port } = await server.listen();
  const conn = await Connection.connect(`127.0.0.1:${port}`, { maxInFlight: 3 });
  try {
    await Promise.all(Array.from({ length: 30 }, () => conn.request(createRequest(ECHO), 5000)));
    assert.equal(peak, 3);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a queued request times out too, and the timeout counts the wait', async () => {
  const { server, port, release } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`, { maxInFlight: 1 });
  try {
    const first = conn.request(createRequest(SILENT), 5000);
    await assert.rejects(conn.request(createRequest(ECHO), 30), TimeoutError);
    assert.equal(conn.pendingCount, 1);
    release();
    await first;
  } finally {
    conn.close();
    await server.close();
  }
});

test('rpc hooks run before the request is written and after the response arrives', async () => {
  const server = new RemotingServer();
  server.registerProcessor(ECHO, (req) => createResponse(req, 0, undefined, req.extFields));
  const { port } = await server.listen();
  const calls: string[] = [];
  const hook: RpcHook = {
    beforeRequest(address, cmd) {
      calls.push(`before ${address} ${cmd.code}`);
      cmd.extFields = { ...cmd.extFields, Signature: 'sig' };
    },
    afterResponse(address, cmd, response) {
      calls.push(`after ${address} ${cmd.code} ${response.opaque === cmd.opaque}`);
    },
  };
  const conn = await Connection.connect(`127.0.0.1:${port}`, { hooks: [hook] });
  try {
    const response = await conn.request(createRequest(ECHO, { a: '1' }), 1000);
    assert.deepEqual(response.extFields, { a: '1', Signature: 'sig' });
    assert.deepEqual(calls, [`before 127.0.0.1:${port} ${ECHO}`, `after 127.0.0.1:${port} ${ECHO} true`]);
    await conn.oneway(createRequest(ECHO));
    assert.equal(calls.length, 3);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a socket that is already destroyed gives a closed connection', async () => {
  const socket = new net.Socket();
  socket.destroy();
  const conn = new Connection(socket);
  assert.equal(conn.closed, true);
  await assert.rejects(conn.request(createRequest(ECHO), 10), ConnectionClosedError);
});

test('a short timeout issued after a long one still fires on time (one timer per connection)', async () => {
  const { server, port, release } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  try {
    const long = conn.request(createRequest(SILENT), 5000);
    const started = Date.now();
    await assert.rejects(conn.request(createRequest(SILENT), 40), TimeoutError);
    const waited = Date.now() - started;
    assert.ok(waited >= 35 && waited < 1000, `short timeout fired after ${waited} ms`);
    const second = conn.request(createRequest(SILENT), 5000);
    await assert.rejects(conn.request(createRequest(SILENT), 30), TimeoutError);
    assert.equal(conn.pendingCount, 2);
    release();
    await Promise.all([long, second]);
    assert.equal(conn.pendingCount, 0);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a non-positive timeout is an InvalidArgumentError', async () => {
  const { server, port } = await echoServer();
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  try {
    await assert.rejects(conn.request(createRequest(ECHO), 0), InvalidArgumentError);
    await assert.rejects(conn.request(createRequest(ECHO), Number.NaN), InvalidArgumentError);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a server stops reading from a client once maxInFlight of its requests are being handled', async () => {
  const server = new RemotingServer({ maxInFlight: 2 });
  const held: Array<() => void> = [];
  server.registerProcessor(
    SILENT,
    (req) => new Promise((resolve) => held.push(() => resolve(createResponse(req, 0)))),
  );
  await server.listen();
  const conn = await Connection.connect(server.address);
  try {
    const results: Array<Promise<RemotingCommand>> = [];
    for (let i = 0; i < 2; i++) {
      results.push(conn.request(createRequest(SILENT), 5000));
      await waitUntil(() => held.length === i + 1); // each read by itself
    }
    for (let i = 0; i < 3; i++) results.push(conn.request(createRequest(SILENT), 5000));
    await delay(50);
    assert.equal(held.length, 2, 'the third request waits in the socket, unread');
    while (held.length > 0 || conn.pendingCount > 0) {
      held.splice(0).forEach((f) => f());
      await delay(5);
    }
    assert.equal((await Promise.all(results)).length, 5);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a peer that stops reading: writes wait for drain, then oneway fails with BackpressureError', async () => {
  const sockets: net.Socket[] = [];
  const raw = net.createServer((s) => {
    s.pause(); // never reads: the kernel buffers fill and our writes must wait for 'drain'
    sockets.push(s);
  });
  raw.listen(0, '127.0.0.1');
  await once(raw, 'listening');
  const conn = await Connection.connect(`127.0.0.1:${(raw.address() as net.AddressInfo).port}`, {
    maxQueued: 5,
  });
  const body = Buffer.alloc(1024 * 1024, 1);
  const pending: Array<Promise<unknown>> = [];
  let backpressure: unknown;
  try {
    for (let i = 0; i < 200 && backpressure === undefined; i++) {
      const outcome = conn.oneway(createRequest(ECHO, undefined, body)).then(
        () => undefined,
        (e: unknown) => {
          if (e instanceof BackpressureError) backpressure = e;
          return e;
        },
      );
      pending.push(outcome);
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(backpressure instanceof BackpressureError, `got ${String(backpressure)}`);
    conn.close();
    const outcomes = await Promise.all(pending);
    const closed = outcomes.filter((o) => o instanceof ConnectionClosedError);
    assert.ok(closed.length >= 5, `queued writes fail with ConnectionClosedError (${closed.length})`);
    assert.ok(
      outcomes.every(
        (o) => o === undefined || o instanceof ConnectionClosedError || o instanceof BackpressureError,
      ),
    );
  } finally {
    conn.close();
    for (const s of sockets) s.destroy();
    raw.close();
    await once(raw, 'close');
  }
});
