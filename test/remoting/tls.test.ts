/**
 * TLS on the remoting layer with certificates made at run time: each server mode, a client that
 * verifies the server, handshake failures as typed errors, and permissive mode serving plain and
 * TLS clients on one port.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolveClientConnection } from '../../src/client/connection-options.js';
import { ConnectError, ConnectionClosedError, InvalidArgumentError } from '../../src/errors.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { Connection } from '../../src/remoting/connection.js';
import { RemotingServer } from '../../src/remoting/server.js';
import type { TlsServerMode } from '../../src/remoting/tls-server.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

describe('TLS', () => {
  let certs: TestCerts;
  const servers: RemotingServer[] = [];
  const conns: Connection[] = [];

  async function server(mode: TlsServerMode | 'none'): Promise<string> {
    const s = new RemotingServer(mode === 'none' ? {} : { tls: { cert: certs.cert, key: certs.key, mode } });
    s.registerProcessor(105, (req) =>
      createResponse(req, 0, undefined, { echo: req.extFields?.['v'] ?? '' }),
    );
    servers.push(s);
    await s.listen();
    return s.address;
  }
  async function connect(
    addr: string,
    tls: Parameters<typeof resolveClientConnection>[0]['tls'],
  ): Promise<Connection> {
    const c = await Connection.connect(addr, {
      tls: resolveClientConnection({ tls }).tls,
      connectTimeoutMs: 2000,
    });
    conns.push(c);
    return c;
  }
  async function echo(c: Connection, v: string): Promise<string | undefined> {
    return (await c.request(createRequest(105, { v }), 2000)).extFields?.['echo'];
  }

  before(() => {
    certs = makeTestCerts();
  });
  after(async () => {
    for (const c of conns) c.close();
    for (const s of servers) await s.close();
    certs.cleanup();
  });

  it('enforcing: a client verifying against the right CA talks; rejectUnauthorized: false (no verification) too', async () => {
    const addr = await server('enforcing');
    assert.equal(await echo(await connect(addr, { ca: certs.ca }), 'verified'), 'verified');
    assert.equal(await echo(await connect(addr, { ca: certs.ca, servername: 'localhost' }), 'sni'), 'sni');
    assert.equal(await echo(await connect(addr, { rejectUnauthorized: false }), 'trusting'), 'trusting');
  });

  it('a server certificate from another CA is a ConnectError naming the certificate problem', async () => {
    const addr = await server('enforcing');
    await assert.rejects(connect(addr, { ca: certs.otherCa }), (e: unknown) => {
      assert.ok(e instanceof ConnectError, String(e));
      assert.match(e.message, /certificate/i);
      return true;
    });
  });

  it('a plain client on an enforcing server is closed at its first request', async () => {
    const addr = await server('enforcing');
    const c = await Connection.connect(addr, { connectTimeoutMs: 2000 });
    conns.push(c);
    await assert.rejects(c.request(createRequest(105, { v: 'x' }), 2000), ConnectionClosedError);
  });

  it('a TLS client on a plain server is a ConnectError (the handshake never completes)', async () => {
    const addr = await server('none');
    await assert.rejects(connect(addr, true), ConnectError);
    const disabled = await server('disabled');
    await assert.rejects(connect(disabled, true), ConnectError);
  });

  it('permissive (the default) serves plain and TLS clients on one port', async () => {
    const s = new RemotingServer({ tls: { cert: certs.cert, key: certs.key } });
    s.registerProcessor(105, (req) =>
      createResponse(req, 0, undefined, { echo: req.extFields?.['v'] ?? '' }),
    );
    servers.push(s);
    await s.listen();
    const plain = await Connection.connect(s.address);
    conns.push(plain);
    const secure = await connect(s.address, { ca: certs.ca });
    const replies = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => echo(plain, `p${i}`)),
      ...Array.from({ length: 20 }, (_, i) => echo(secure, `s${i}`)),
    ]);
    assert.deepEqual(replies, [
      ...Array.from({ length: 20 }, (_, i) => `p${i}`),
      ...Array.from({ length: 20 }, (_, i) => `s${i}`),
    ]);
    // A large body crosses many TLS records and TCP segments.
    const big = 'x'.repeat(300_000);
    assert.equal(await echo(secure, big), big);
  });

  it('bad server TLS settings are rejected naming the field', () => {
    assert.throws(
      () => new RemotingServer({ tls: { cert: certs.cert, key: certs.key, mode: 'strict' as never } }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'tls.mode',
    );
    assert.throws(
      () => new RemotingServer({ tls: { cert: certs.cert } as never }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'tls.key',
    );
    assert.throws(
      () => new RemotingServer({ tls: { cert: 'not a pem', key: 'nope' } }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'tls',
    );
  });
});
