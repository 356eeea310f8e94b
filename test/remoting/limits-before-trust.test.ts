/**
 * Issue 27, findings 3 and 7: what a peer that has not proved anything can cost a server. A TLS
 * server closes sockets that never send a byte or never finish the handshake (silent sockets
 * used to fill `maxConnections` and lock every client out), and a length prefix alone reserves
 * no frame memory (an 8-byte prefix used to reserve up to 16 MiB per connection). The attacker
 * uses raw sockets and the package's own `remoting`/`protocol` exports.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { resolveClientConnection } from '../../src/client/connection-options.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { createRequest, createResponse } from '../../src/protocol/index.js';
import { Connection, FrameParser, RemotingServer } from '../../src/remoting/index.js';
import type { TlsServerMode } from '../../src/remoting/tls-server.js';
import { validateRemotingServerOptions } from '../../src/remoting/server.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';
import { closedWithin, rawConnect, waitUntil } from './helpers.js';

const ECHO = 7;
const MAX_CONNECTIONS = 30;

describe('resource limits before trust', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.cleanup());

  async function tlsServer(mode: TlsServerMode): Promise<RemotingServer> {
    const s = new RemotingServer({
      maxConnections: MAX_CONNECTIONS,
      tlsHandshakeTimeoutMs: 300,
      tls: { cert: certs.cert, key: certs.key, mode },
    });
    s.registerProcessor(ECHO, (r) => createResponse(r, 0));
    await s.listen();
    return s;
  }

  for (const mode of ['permissive', 'enforcing'] as const) {
    it(`a TLS server (${mode}) closes ${MAX_CONNECTIONS} silent sockets, so a real client gets in`, async () => {
      const s = await tlsServer(mode);
      const port = Number(s.address.split(':')[1]);
      const silent: net.Socket[] = [];
      try {
        for (let i = 0; i < MAX_CONNECTIONS; i++) silent.push(await rawConnect(port));
        // One more never finishes its handshake: a TLS record header byte, then nothing.
        const stalled = silent[0]!;
        stalled.write(Buffer.from([0x16]));
        const closed = await Promise.all(silent.map((sock) => closedWithin(sock, 30_000)));
        assert.deepEqual(
          closed.filter((c) => !c),
          [],
          'every silent socket is closed by the server',
        );
        const client = await Connection.connect(s.address, {
          tls: resolveClientConnection({ tls: { ca: certs.ca } }).tls,
          connectTimeoutMs: 10_000,
        });
        try {
          assert.equal((await client.request(createRequest(ECHO), 10_000)).code, 0);
        } finally {
          client.close();
        }
      } finally {
        for (const sock of silent) sock.destroy();
        await s.close();
      }
    });
  }

  it('tlsHandshakeTimeoutMs has Netty’s default and is validated', () => {
    assert.equal(validateRemotingServerOptions().tlsHandshakeTimeoutMs, 10_000);
    assert.throws(
      () => validateRemotingServerOptions({ tlsHandshakeTimeoutMs: 0 }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'tlsHandshakeTimeoutMs',
    );
  });

  it('a length prefix alone reserves no frame memory, only the bytes that arrived', () => {
    const parser = new FrameParser();
    const frames: Buffer[] = [];
    const prefix = Buffer.alloc(8);
    prefix.writeInt32BE(16 * 1024 * 1024 - 4, 0); // the largest frame allowed
    parser.push(prefix, (f) => frames.push(f));
    assert.ok(parser.reservedBytes <= 64 * 1024, `reserved ${parser.reservedBytes} bytes for 8 received`);
    // The frame still assembles once its bytes come, in any chunking.
    const body = Buffer.alloc(16 * 1024 * 1024 - 8, 7);
    for (let at = 0; at < body.length; at += 1_000_003)
      parser.push(body.subarray(at, at + 1_000_003), (f) => frames.push(f));
    assert.equal(frames.length, 1);
    assert.equal(frames[0]!.length, 16 * 1024 * 1024 - 4);
    assert.equal(frames[0]![frames[0]!.length - 1], 7);
    assert.equal(parser.reservedBytes, 0);
  });

  it('100 connections that send only a 16 MiB length prefix leave the broker’s memory alone', async () => {
    const s = new RemotingServer({ maxConnections: 200 });
    await s.listen();
    const port = Number(s.address.split(':')[1]);
    const sockets: net.Socket[] = [];
    try {
      const prefix = Buffer.alloc(8);
      prefix.writeInt32BE(16 * 1024 * 1024 - 4, 0);
      const before = process.memoryUsage().arrayBuffers;
      for (let i = 0; i < 100; i++) {
        const sock = await rawConnect(port);
        sockets.push(sock);
        sock.write(prefix);
      }
      await waitUntil(() => s.connections.size === 100, 30_000);
      // No request can follow an unfinished frame: wait until the server has read every prefix
      // (the length field, then the 4 bytes of the frame's header word).
      await waitUntil(() => [...s.connections].every((c) => c['parser'].bufferedBytes === 4), 30_000);
      const grown = process.memoryUsage().arrayBuffers - before;
      assert.ok(grown < 64 * 1024 * 1024, `array buffers grew by ${(grown / 1048576).toFixed(0)} MiB`);
    } finally {
      for (const sock of sockets) sock.destroy();
      await s.close();
    }
  });
});
