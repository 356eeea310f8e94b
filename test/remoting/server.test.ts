import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, createResponse, FLAG_ONEWAY, SerializeType } from '../../src/protocol/command.js';
import { decodeFrame } from '../../src/protocol/frame.js';
import { Connection } from '../../src/remoting/connection.js';
import { FrameParser } from '../../src/remoting/frame-parser.js';
import { RemotingServer } from '../../src/remoting/server.js';
import {
  closedWithin,
  collect,
  delay,
  HEX_14_2,
  jsonHeader,
  rawConnect,
  rawJsonFrame,
  waitUntil,
} from './helpers.js';

function frames(bytes: Buffer): ReturnType<typeof decodeFrame>[] {
  const out: ReturnType<typeof decodeFrame>[] = [];
  new FrameParser().push(bytes, (f) => out.push(decodeFrame(Buffer.from(f))));
  return out;
}

test('the server dispatches by code; unknown codes get REQUEST_CODE_NOT_SUPPORTED with Java remark', async () => {
  const server = new RemotingServer();
  server.registerProcessor(105, (req) => createResponse(req, 0, undefined, { route: req.extFields?.topic }));
  const { host, port } = await server.listen();
  assert.equal(host, '127.0.0.1');
  assert.equal(server.address, `127.0.0.1:${port}`);
  const conn = await Connection.connect(server.address);
  try {
    const r = await conn.request(createRequest(105, { topic: 'T1' }), 1000);
    assert.deepEqual(r.extFields, { route: 'T1' });
    const unknown = await conn.request(createRequest(777), 1000);
    assert.equal(unknown.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    assert.equal(unknown.remark, ' request type 777 not supported');
  } finally {
    conn.close();
    await server.close();
  }
});

test('a default processor takes codes without their own processor', async () => {
  const server = new RemotingServer();
  server.setDefaultProcessor((req) => createResponse(req, 0, `default ${req.code}`));
  await server.listen();
  const conn = await Connection.connect(server.address);
  try {
    assert.equal((await conn.request(createRequest(42), 1000)).remark, 'default 42');
  } finally {
    conn.close();
    await server.close();
  }
});

test('a throwing or rejecting handler is answered with SYSTEM_ERROR carrying the message', async () => {
  const server = new RemotingServer();
  server.registerProcessor(1, () => {
    throw new Error('sync boom');
  });
  server.registerProcessor(2, async () => {
    await delay(1);
    throw new Error('async boom');
  });
  await server.listen();
  const conn = await Connection.connect(server.address);
  try {
    const a = await conn.request(createRequest(1), 1000);
    assert.equal(a.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(a.remark, 'sync boom');
    const b = await conn.request(createRequest(2), 1000);
    assert.equal(b.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(b.remark, 'async boom');
  } finally {
    conn.close();
    await server.close();
  }
});

test('a binary (ROCKETMQ) request from the §14.2 vector is answered in binary', async () => {
  const server = new RemotingServer();
  server.registerProcessor(105, (req) => createResponse(req, 0, undefined, { topic: req.extFields?.topic }));
  const { port } = await server.listen();
  const raw = await rawConnect(port);
  const received = collect(raw);
  try {
    raw.write(Buffer.from(HEX_14_2, 'hex'));
    await waitUntil(() => frames(received.bytes()).length === 1);
    const bytes = received.bytes();
    assert.equal(bytes.readUInt8(4), SerializeType.ROCKETMQ, 'type byte of the response');
    const [response] = frames(bytes);
    assert.equal(response?.opaque, 1);
    assert.equal(response?.flag, 1);
    assert.deepEqual(response?.extFields, { topic: 'TopicTest' });
  } finally {
    raw.destroy();
    await server.close();
  }
});

test('a oneway request is never answered, but a oneway with an unknown code is (like Java 4.9)', async () => {
  const server = new RemotingServer();
  let handled = 0;
  server.registerProcessor(10, (req) => {
    handled++;
    return createResponse(req, 0);
  });
  const { port } = await server.listen();
  const raw = await rawConnect(port);
  const received = collect(raw);
  try {
    raw.write(rawJsonFrame(jsonHeader({ code: 10, flag: FLAG_ONEWAY, opaque: 7 })));
    await waitUntil(() => handled === 1);
    await delay(30);
    assert.equal(received.bytes().length, 0, 'no answer to a oneway request');
    raw.write(rawJsonFrame(jsonHeader({ code: 10, flag: 0, opaque: 8 })));
    raw.write(rawJsonFrame(jsonHeader({ code: 555, flag: FLAG_ONEWAY, opaque: 9 })));
    await waitUntil(() => frames(received.bytes()).length === 2);
    const [first, second] = frames(received.bytes());
    assert.equal(first?.opaque, 8);
    assert.equal(first?.code, 0);
    assert.equal(second?.opaque, 9);
    assert.equal(second?.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  } finally {
    raw.destroy();
    await server.close();
  }
});

test('a frame trickled one byte per write is still answered', async () => {
  const server = new RemotingServer();
  server.registerProcessor(10, (req) => createResponse(req, 0, 'whole'));
  const { port } = await server.listen();
  const raw = await rawConnect(port);
  const received = collect(raw);
  try {
    const frame = rawJsonFrame(jsonHeader({ code: 10, flag: 0, opaque: 3 }), Buffer.from('xyz'));
    for (const byte of frame) {
      raw.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    await waitUntil(() => frames(received.bytes()).length === 1);
    assert.equal(frames(received.bytes())[0]?.remark, 'whole');
  } finally {
    raw.destroy();
    await server.close();
  }
});

test('server hooks see each request before dispatch and each response before it is written', async () => {
  const seen: string[] = [];
  const server = new RemotingServer({
    hooks: [
      {
        beforeRequest: (_addr, cmd) => seen.push(`req ${cmd.code}`),
        afterResponse: (_addr, cmd, res) => seen.push(`res ${cmd.code} ${res.code}`),
      },
    ],
  });
  server.registerProcessor(5, async (req) => createResponse(req, 0));
  await server.listen();
  const conn = await Connection.connect(server.address);
  try {
    await conn.request(createRequest(5), 1000);
    assert.deepEqual(seen, ['req 5', 'res 5 0']);
  } finally {
    conn.close();
    await server.close();
  }
});

test('close resolves only after every socket is gone, and emits disconnect for each', async () => {
  const server = new RemotingServer();
  const { port } = await server.listen();
  const disconnects: Connection[] = [];
  server.on('disconnect', (c: Connection) => disconnects.push(c));
  const clients = await Promise.all([1, 2, 3].map(() => Connection.connect(server.address)));
  const raw = await rawConnect(port);
  await waitUntil(() => server.connections.size === 4);
  const rawClosed = closedWithin(raw, 2000);
  await server.close();
  assert.equal(server.connections.size, 0);
  assert.equal(disconnects.length, 4);
  assert.equal(await rawClosed, true);
  await Promise.all(clients.map((c) => c.whenClosed()));
  assert.ok(clients.every((c) => c.closed));
  await assert.rejects(server.listen());
});

test('bad options are rejected with InvalidArgumentError naming the option', () => {
  assert.throws(
    () => new RemotingServer({ port: 70000 }),
    (e: unknown) => e instanceof InvalidArgumentError && e.field === 'port',
  );
  assert.throws(
    () => new RemotingServer({ maxFrameSize: -1 }),
    (e: unknown) => e instanceof InvalidArgumentError && e.field === 'maxFrameSize',
  );
});
