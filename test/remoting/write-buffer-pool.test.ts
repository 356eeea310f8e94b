import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { Connection } from '../../src/remoting/connection.js';
import { RemotingServer } from '../../src/remoting/server.js';
import {
  acquireWriteBuffer,
  POOLED_MAX_BYTES,
  POOLED_MIN_BYTES,
  releaseAfterWrite,
  releaseWriteBuffer,
  takeWriteRelease,
} from '../../src/remoting/write-buffer-pool.js';

test('a released buffer is handed out again for a size of its class, once', () => {
  const a = acquireWriteBuffer(5000);
  assert.equal(a.length, 5000);
  releaseWriteBuffer(a);
  // A second release of the same buffer must not put it in the pool twice.
  releaseWriteBuffer(a);
  const b = acquireWriteBuffer(6000);
  const c = acquireWriteBuffer(6000);
  assert.equal(b.buffer, a.buffer, 'same 8 KiB class');
  assert.notEqual(c.buffer, a.buffer);
  assert.equal(b.length, 6000);
  releaseWriteBuffer(b);
  releaseWriteBuffer(c);
});

test('sizes outside the pooled range and foreign buffers are never pooled', () => {
  const small = acquireWriteBuffer(POOLED_MIN_BYTES - 1);
  const large = acquireWriteBuffer(POOLED_MAX_BYTES + 1);
  releaseWriteBuffer(small);
  releaseWriteBuffer(large);
  const foreign = Buffer.from(new ArrayBuffer(8192));
  releaseWriteBuffer(foreign);
  const next = acquireWriteBuffer(8192);
  for (const b of [small, large, foreign]) assert.notEqual(next.buffer, b.buffer);
  releaseWriteBuffer(next);
});

test('a release registered for a response is taken once', () => {
  const response = {};
  const body = acquireWriteBuffer(10_000);
  releaseAfterWrite(response, body);
  const release = takeWriteRelease(response);
  assert.equal(takeWriteRelease(response), undefined);
  assert.ok(release);
  release();
  assert.equal(acquireWriteBuffer(10_000).buffer, body.buffer);
});

test('responses with pooled bodies arrive intact while the server recycles each body after its write', async () => {
  const server = new RemotingServer();
  const bodies = new Set<ArrayBufferLike>();
  // Each response's body is a pooled buffer filled with the request's number, released after
  // the write: a reuse before the socket took the bytes would show another number in a body.
  server.registerProcessor(11, (req) => {
    const n = Number(req.extFields?.n);
    const body = acquireWriteBuffer(6000 + (n % 3) * 3000);
    body.fill(n % 256);
    bodies.add(body.buffer);
    const response = createResponse(req, 0, undefined, undefined, body);
    releaseAfterWrite(response, body);
    return response;
  });
  await server.listen();
  const conn = await Connection.connect(server.address);
  try {
    for (let round = 0; round < 20; round++) {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => conn.request(createRequest(11, { n: round * 20 + i }), 3000)),
      );
      replies.forEach((r, i) => {
        const n = (round * 20 + i) % 256;
        assert.ok(
          r.body?.every((b) => b === n),
          `reply ${round * 20 + i} holds only ${n}`,
        );
      });
    }
    // 400 responses, but buffers came back to the pool and were handed out again.
    assert.ok(bodies.size < 100, `${bodies.size} distinct body buffers`);
  } finally {
    conn.close();
    await server.close();
  }
});
