/**
 * A peer that sends bytes which are not a valid frame: the connection closes with a
 * ProtocolError, in-flight requests fail with it, and nothing else is affected.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as net from 'node:net';
import { ProtocolError } from '../../src/errors.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { decodeFrame, encodeFrameToBuffer } from '../../src/protocol/frame.js';
import { Connection } from '../../src/remoting/connection.js';
import { FrameParser } from '../../src/remoting/frame-parser.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { closedWithin, jsonHeader, rawConnect, rawJsonFrame } from './helpers.js';

const MAX_FRAME = 4096;

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return b;
}

/** Each case: bytes, and what the error message must mention. `opaque` is the request being answered. */
const CASES: Array<{ name: string; bytes: (opaque: number) => Buffer; message: RegExp }> = [
  { name: 'a negative length', bytes: () => int32(-5), message: /negative/ },
  {
    name: 'a length over the maximum frame size',
    bytes: () => int32(MAX_FRAME),
    message: /maximum frame size 4096/,
  },
  {
    name: 'a header length past the frame end',
    bytes: () => Buffer.concat([int32(8), Buffer.from('000000ff', 'hex'), Buffer.from('{}  ')]),
    message: /header length 255 past the frame end/,
  },
  {
    name: 'an unknown serialize type',
    bytes: (opaque) => rawJsonFrame(jsonHeader({ code: 0, flag: 1, opaque }), undefined, 7),
    message: /unknown serialize type 7/,
  },
  {
    name: 'invalid JSON in the header',
    bytes: () => rawJsonFrame('{"code":0,"flag":1,"opaque":'),
    message: /invalid JSON/,
  },
  {
    name: 'a truncated binary header',
    bytes: () => rawJsonFrame('\u0000\u0000\u0000', undefined, 1),
    message: /binary header truncated/,
  },
];

test('the raw fixtures really are rejected by a bare parser + decoder (sanity of the cases)', () => {
  for (const c of CASES) {
    assert.throws(
      () => new FrameParser(MAX_FRAME).push(c.bytes(1), (frame) => decodeFrame(frame)),
      ProtocolError,
      c.name,
    );
  }
});

/** A raw server: request code 1 → malformed bytes of the current case; 4 → no answer; others → a valid response. */
async function rawServer(
  bad: (opaque: number) => Buffer,
): Promise<{ server: net.Server; port: number; sockets: Set<net.Socket> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const parser = new FrameParser();
    socket.on('data', (chunk: Buffer) =>
      parser.push(chunk, (frame) => {
        const opaque = readOpaque(frame);
        const code = readCode(frame);
        if (code === 1) setTimeout(() => socket.write(bad(opaque)), 20);
        else if (code !== 4)
          socket.write(encodeFrameToBuffer(createResponse({ ...createRequest(code), opaque }, 0, 'fine')));
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as net.AddressInfo).port, sockets };
}

function readHeader(frame: Buffer): { code: number; opaque: number } {
  const headerLength = frame.readUInt32BE(0) & 0xffffff;
  return JSON.parse(frame.subarray(4, 4 + headerLength).toString()) as { code: number; opaque: number };
}
const readOpaque = (frame: Buffer): number => readHeader(frame).opaque;
const readCode = (frame: Buffer): number => readHeader(frame).code;

for (const c of CASES) {
  test(`a broker that answers with ${c.name} closes only that client connection with ProtocolError`, async () => {
    const { server, port, sockets } = await rawServer(c.bytes);
    const address = `127.0.0.1:${port}`;
    const victim = await Connection.connect(address, { maxFrameSize: MAX_FRAME });
    const bystander = await Connection.connect(address, { maxFrameSize: MAX_FRAME });
    try {
      const closeEvent = once(victim, 'close');
      assert.equal((await victim.request(createRequest(2), 2000)).remark, 'fine');
      const unanswered = victim.request(createRequest(4), 5000).catch((e: unknown) => e);
      const inFlight = victim.request(createRequest(1), 5000);
      await assert.rejects(
        inFlight,
        (err: unknown) => err instanceof ProtocolError && c.message.test(err.message),
      );
      assert.equal(
        await unanswered,
        await inFlight.catch((e: unknown) => e),
        'every in-flight request gets the same error',
      );
      const [emitted] = (await closeEvent) as [unknown];
      assert.ok(emitted instanceof ProtocolError);
      assert.match(emitted.message, c.message);
      assert.equal(victim.closed, true);
      assert.equal(victim.pendingCount, 0);
      const fine = await bystander.request(createRequest(2), 2000);
      assert.equal(fine.remark, 'fine');
    } finally {
      victim.close();
      bystander.close();
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    }
  });

  test(`a client that sends ${c.name} is disconnected by the server; other clients keep working`, async () => {
    const server = new RemotingServer({ maxFrameSize: MAX_FRAME });
    server.registerProcessor(2, (req) => createResponse(req, 0, 'fine'));
    const errors: unknown[] = [];
    server.on('connection', (conn: Connection) => conn.on('close', (err: unknown) => errors.push(err)));
    const { port } = await server.listen();
    const good = await Connection.connect(`127.0.0.1:${port}`);
    const raw = await rawConnect(port);
    raw.on('error', () => {});
    try {
      raw.write(c.bytes(0));
      assert.equal(await closedWithin(raw, 2000), true, 'server must close the connection');
      assert.equal(errors.length, 1);
      assert.ok(errors[0] instanceof ProtocolError);
      assert.match(errors[0].message, c.message);
      const fine = await good.request(createRequest(2), 2000);
      assert.equal(fine.remark, 'fine');
      assert.equal(server.connections.size, 1);
    } finally {
      raw.destroy();
      good.close();
      await server.close();
    }
  });
}
