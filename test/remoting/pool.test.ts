import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as net from 'node:net';
import { Worker } from 'node:worker_threads';
import { ConnectError, IllegalStateError, InvalidArgumentError, TimeoutError } from '../../src/errors.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { Connection } from '../../src/remoting/connection.js';
import { ConnectionPool } from '../../src/remoting/pool.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { waitUntil } from './helpers.js';

async function server(): Promise<RemotingServer> {
  const s = new RemotingServer();
  s.registerProcessor(1, (req) => createResponse(req, 0, 'pong'));
  await s.listen();
  return s;
}

test('concurrent get() calls share one connect promise and one connection', async () => {
  const s = await server();
  const pool = new ConnectionPool();
  try {
    const p1 = pool.get(s.address);
    const p2 = pool.get(s.address);
    assert.equal(p1, p2);
    const [a, b] = await Promise.all([p1, p2]);
    assert.equal(a, b);
    await waitUntil(() => s.connections.size === 1);
    assert.equal((await pool.request(s.address, createRequest(1), 1000)).remark, 'pong');
    assert.equal(s.connections.size, 1);
  } finally {
    await pool.close();
    await s.close();
  }
});

test('a closed connection leaves the pool and the next get() reconnects', async () => {
  const s = await server();
  const pool = new ConnectionPool();
  try {
    const first = await pool.get(s.address);
    first.close();
    const second = await pool.get(s.address);
    assert.notEqual(first, second);
    assert.equal(second.closed, false);
    pool.closeConnection(s.address);
    await second.whenClosed();
    const third = await pool.get(s.address);
    assert.notEqual(third, second);
    assert.equal((await pool.request(s.address, createRequest(1), 1000)).remark, 'pong');
  } finally {
    await pool.close();
    await s.close();
  }
});

test('a refused connection is a ConnectError and is not cached', async () => {
  const probe = net.createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = `127.0.0.1:${(probe.address() as net.AddressInfo).port}`;
  probe.close();
  await once(probe, 'close');
  const pool = new ConnectionPool();
  try {
    await assert.rejects(
      pool.get(address),
      (e: unknown) => e instanceof ConnectError && e.address === address,
    );
    assert.equal(pool.size, 0);
    await assert.rejects(pool.request(address, createRequest(1), 1000), ConnectError);
  } finally {
    await pool.close();
  }
});

test('an invalid address is an InvalidArgumentError', async () => {
  await assert.rejects(Connection.connect('no-port'), InvalidArgumentError);
  await assert.rejects(Connection.connect('127.0.0.1:99999'), InvalidArgumentError);
});

/**
 * A listener whose thread is blocked never accepts; once its small backlog is full the kernel
 * drops further SYNs, so a connect hangs. The worker blocks in Atomics.wait (no CPU).
 */
async function hangingListener(): Promise<{ port: number; stop: () => Promise<void> }> {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const net = require('node:net'); const { parentPort, workerData } = require('node:worker_threads');
     const s = net.createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(s.address().port); Atomics.wait(workerData, 0, 0, 10000); });`,
    { eval: true, workerData: signal },
  );
  // The worker blocks inside the listen callback, before its event loop could accept anything.
  const [port] = (await once(worker, 'message')) as [number];
  const fillers = Array.from({ length: 4 }, () =>
    net.connect({ host: '127.0.0.1', port }).on('error', () => {}),
  );
  await new Promise((r) => setTimeout(r, 50));
  return {
    port,
    stop: async () => {
      for (const f of fillers) f.destroy();
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
      await worker.terminate();
    },
  };
}

test('a connect that never completes fails with ConnectError after connectTimeoutMs', async () => {
  const listener = await hangingListener();
  const pool = new ConnectionPool({ connectTimeoutMs: 150 });
  try {
    const started = Date.now();
    await assert.rejects(
      pool.get(`127.0.0.1:${listener.port}`),
      (e: unknown) => e instanceof ConnectError && /timed out after 150 ms/.test(e.message),
    );
    assert.ok(Date.now() - started >= 140);
    assert.equal(pool.size, 0);
  } finally {
    await pool.close();
    await listener.stop();
  }
});

test('pool.request counts connect time against its timeout', async () => {
  const listener = await hangingListener();
  const pool = new ConnectionPool({ connectTimeoutMs: 2000 });
  try {
    await assert.rejects(
      pool.request(`127.0.0.1:${listener.port}`, createRequest(1), 100),
      (e: unknown) => e instanceof TimeoutError && e.requestCode === 1,
    );
    await assert.rejects(pool.oneway(`127.0.0.1:${listener.port}`, createRequest(1), 100), TimeoutError);
  } finally {
    await pool.close();
    await listener.stop();
  }
});

test('pool.oneway writes without waiting for an answer; a closed pool refuses work', async () => {
  const s = new RemotingServer();
  let got = 0;
  s.registerProcessor(9, () => {
    got++;
    return undefined;
  });
  await s.listen();
  const pool = new ConnectionPool();
  await pool.oneway(s.address, createRequest(9), 1000);
  await waitUntil(() => got === 1);
  const conn = await pool.get(s.address);
  await pool.close();
  assert.equal(conn.closed, true);
  await assert.rejects(pool.get(s.address), IllegalStateError);
  await s.close();
});

test('the pool reports each connection opened and closed; a throwing listener is logged, not thrown', async () => {
  const s = await server();
  const warnings: string[] = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: (msg: string) => void warnings.push(msg),
    error: () => {},
  };
  const pool = new ConnectionPool({ logger });
  const events: string[] = [];
  pool.on('connect', (e) => events.push(`connect ${e.address}`));
  pool.on('disconnect', (e) =>
    events.push(`disconnect ${e.address} ${e.error === undefined ? 'orderly' : 'error'}`),
  );
  pool.once('connect', () => {
    throw new Error('listener bug');
  });
  try {
    const first = await pool.get(s.address);
    await waitUntil(() => events.length === 1);
    first.close();
    assert.equal(
      (await pool.request(s.address, createRequest(1), 1000)).remark,
      'pong',
      'the pool still works',
    );
    assert.deepEqual(warnings, ["a 'connect' listener threw"]);
  } finally {
    await pool.close();
    await s.close();
  }
  assert.deepEqual(events, [
    `connect ${s.address}`,
    `disconnect ${s.address} orderly`,
    `connect ${s.address}`,
    `disconnect ${s.address} orderly`,
  ]);
});
