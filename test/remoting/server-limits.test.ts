/**
 * The embedded servers' resource limits, one scenario each: maximum connections, in-flight
 * requests per connection, maximum frame size, idle connections, and slow readers.
 */
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import type * as net from 'node:net';
import { test } from 'node:test';
import { resolveClientConnection } from '../../src/client/connection-options.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { createRequest, createResponse, type RemotingCommand } from '../../src/protocol/command.js';
import { encodeFrameToBuffer } from '../../src/protocol/frame.js';
import { Connection } from '../../src/remoting/connection.js';
import { RemotingServer, validateRemotingServerOptions } from '../../src/remoting/server.js';
import { makeTestCerts } from '../helpers/tls-certs.js';
import { closedWithin, delay, rawConnect, waitUntil } from './helpers.js';

const ECHO = 7;

async function server(
  options: ConstructorParameters<typeof RemotingServer>[0],
): Promise<{ s: RemotingServer; port: number }> {
  const s = new RemotingServer(options);
  s.registerProcessor(ECHO, (r) => createResponse(r, 0));
  const { port } = await s.listen();
  return { s, port };
}

test('the limits have Java defaults where Java has one and are validated', () => {
  const o = validateRemotingServerOptions();
  assert.equal(o.maxFrameSize, 16 * 1024 * 1024);
  assert.equal(o.serverChannelMaxIdleTimeSeconds, 120);
  assert.equal(o.maxConnections, 10000);
  assert.equal(o.maxInFlight, 4096);
  assert.equal(o.writeBufferHighWaterMark, 4 * 1024 * 1024);
  for (const bad of [
    { maxConnections: 0 },
    { serverChannelMaxIdleTimeSeconds: -1 },
    { writeBufferHighWaterMark: 0 },
  ]) {
    assert.throws(
      () => validateRemotingServerOptions(bad),
      (err: unknown) => err instanceof InvalidArgumentError && err.field === Object.keys(bad)[0],
    );
  }
});

test('connections beyond maxConnections are closed on accept; the others keep working', async () => {
  const { s, port } = await server({ maxConnections: 2 });
  const a = await Connection.connect(`127.0.0.1:${port}`);
  const b = await Connection.connect(`127.0.0.1:${port}`);
  await waitUntil(() => s.connections.size === 2);
  const third = await rawConnect(port);
  try {
    assert.equal(await closedWithin(third, 2000), true, 'the third connection is closed');
    assert.equal((await a.request(createRequest(ECHO), 1000)).code, 0);
    a.close();
    await waitUntil(() => s.connections.size === 1);
    const c = await Connection.connect(`127.0.0.1:${port}`);
    assert.equal((await c.request(createRequest(ECHO), 1000)).code, 0, 'a slot freed is usable again');
    c.close();
  } finally {
    b.close();
    third.destroy();
    await s.close();
  }
});

test('a connection has at most maxInFlight requests being handled; the rest wait unread', async () => {
  const { s, port } = await server({ maxInFlight: 3 });
  const release: Array<() => void> = [];
  let started = 0;
  s.registerProcessor(8, (r) => {
    started++;
    return new Promise<RemotingCommand>((resolve) => release.push(() => resolve(createResponse(r, 0))));
  });
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  try {
    const all = Array.from({ length: 10 }, () => conn.request(createRequest(8), 5000));
    await waitUntil(() => started === 3);
    await delay(50);
    assert.equal(started, 3, 'no fourth request is read while three are in flight');
    while (release.length > 0 || started < 10) {
      release.shift()?.();
      await delay(5);
    }
    assert.equal((await Promise.all(all)).length, 10);
  } finally {
    conn.close();
    await s.close();
  }
});

test('a frame longer than maxFrameSize closes the connection before it is buffered', async () => {
  const { s, port } = await server({ maxFrameSize: 1024 });
  const socket = await rawConnect(port);
  try {
    const head = Buffer.alloc(8);
    head.writeInt32BE(1024, 0); // 1028 bytes with the length field
    socket.write(head);
    assert.equal(await closedWithin(socket, 2000), true);
    await waitUntil(() => s.connections.size === 0);
  } finally {
    socket.destroy();
    await s.close();
  }
});

test('an idle connection is closed after serverChannelMaxIdleTimeSeconds; a busy one is not', async () => {
  const { s, port } = await server({ serverChannelMaxIdleTimeSeconds: 0.2 });
  const idle = await rawConnect(port);
  const busy = await Connection.connect(`127.0.0.1:${port}`);
  try {
    const startedAt = Date.now();
    const closing = closedWithin(idle, 5000);
    while (Date.now() - startedAt < 600) {
      assert.equal((await busy.request(createRequest(ECHO), 1000)).code, 0);
      await delay(50);
    }
    assert.equal(await closing, true, 'the idle one is closed');
    assert.ok(Date.now() - startedAt >= 150, 'not before the idle time');
    assert.equal(busy.closed, false, 'the busy one is still open');
  } finally {
    idle.destroy();
    busy.close();
    await s.close();
  }
});

test("a client that never reads its responses cannot grow the broker's memory", async () => {
  const highWaterMark = 256 * 1024;
  const big = Buffer.alloc(64 * 1024, 1);
  const { s, port } = await server({ writeBufferHighWaterMark: highWaterMark });
  let handled = 0;
  s.registerProcessor(9, (r) => {
    handled++;
    return createResponse(r, 0, undefined, undefined, big);
  });
  // A raw socket with no 'data' listener never reads: responses pile up at the server.
  const socket: net.Socket = await rawConnect(port);
  const requests = 4000; // 250 MiB of responses if the server kept reading
  try {
    const frame = encodeFrameToBuffer(createRequest(9));
    for (let i = 0; i < requests && !socket.destroyed; i++) {
      if (!socket.write(frame)) await Promise.race([once(socket, 'drain'), delay(200)]);
    }
    await waitUntil(() => s.connections.size === 1);
    const conn = [...s.connections][0]!;
    let peak = 0;
    for (let i = 0; i < 20; i++) {
      peak = Math.max(peak, conn.bufferedOutboundBytes);
      await delay(10);
    }
    assert.ok(handled < requests, `the server stopped reading (${handled} of ${requests} handled)`);
    // The high-water mark, plus what one read chunk's requests produce before the pause.
    assert.ok(peak < highWaterMark + 64 * big.length, `outbound buffer ${peak} bytes stays bounded`);
  } finally {
    socket.destroy();
    await s.close();
  }
});

test('the limits apply to TLS connections too: an idle TLS connection is closed', async () => {
  const certs = makeTestCerts();
  const s = new RemotingServer({
    serverChannelMaxIdleTimeSeconds: 0.2,
    tls: { cert: certs.cert, key: certs.key, mode: 'permissive' },
  });
  await s.listen();
  try {
    const conn = await Connection.connect(s.address, {
      tls: resolveClientConnection({ tls: { rejectUnauthorized: false } }).tls,
    });
    const closed = new Promise<void>((resolve) => conn.once('close', () => resolve()));
    await Promise.race([closed, delay(5000)]);
    assert.equal(conn.closed, true, 'closed by the server within 5 s');
  } finally {
    await s.close();
    certs.cleanup();
  }
});
