/**
 * Issue 27, finding 8: a TLS client verifies the server certificate and host name unless told
 * not to. A rogue server with a certificate no trusted CA signed, or one signed by the right CA
 * for another host name, is refused with a TlsVerificationError that names the option to set;
 * `rejectUnauthorized: false` is the explicit way to Java's trust-everything behaviour.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  resolveClientConnection,
  type ClientConnectionOptions,
} from '../../src/client/connection-options.js';
import { ConnectError, TlsVerificationError } from '../../src/errors.js';
import { createRequest, createResponse } from '../../src/protocol/index.js';
import { Connection, RemotingServer } from '../../src/remoting/index.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

const ECHO = 7;

describe('TLS clients verify the server by default', () => {
  let certs: TestCerts;
  let rogue: RemotingServer;
  let wrongHost: RemotingServer;
  const conns: Connection[] = [];

  async function start(cert: string, key: string): Promise<RemotingServer> {
    const s = new RemotingServer({ tls: { cert, key, mode: 'enforcing' } });
    s.registerProcessor(ECHO, (r) => createResponse(r, 0));
    await s.listen();
    return s;
  }
  async function connect(addr: string, tls: ClientConnectionOptions['tls']): Promise<Connection> {
    const c = await Connection.connect(addr, {
      tls: resolveClientConnection({ tls }).tls,
      connectTimeoutMs: 10_000,
    });
    conns.push(c);
    assert.equal((await c.request(createRequest(ECHO), 10_000)).code, 0);
    return c;
  }
  function refused(pattern: RegExp): (e: unknown) => boolean {
    return (e: unknown) => {
      assert.ok(e instanceof TlsVerificationError, String(e));
      assert.ok(e instanceof ConnectError, 'still a ConnectError');
      assert.equal(e.code, 'ERR_TLS_VERIFICATION');
      assert.equal(e.retriable, false);
      assert.match(e.message, /rejectUnauthorized: false/);
      assert.match(e.message, pattern);
      return true;
    };
  }

  before(async () => {
    certs = makeTestCerts();
    // Its certificate chains to a private CA no client trusts unless given it: a rogue server.
    rogue = await start(certs.cert, certs.key);
    wrongHost = await start(certs.otherHost.cert, certs.otherHost.key);
  });
  after(async () => {
    for (const c of conns) c.close();
    await rogue.close();
    await wrongHost.close();
    certs.cleanup();
  });

  it('tls: true and tls: {} refuse a server whose certificate no trusted CA signed', async () => {
    for (const tls of [true, {}] as const)
      await assert.rejects(connect(rogue.address, tls), refused(/tls\.ca/));
  });

  it('with the right ca, a certificate for another host name is refused (no servername needed)', async () => {
    await assert.rejects(connect(wrongHost.address, { ca: certs.ca }), refused(/tls\.servername|host name/));
    await connect(rogue.address, { ca: certs.ca });
  });

  it('rejectUnauthorized: false is the explicit opt-out (Java’s client behaviour)', async () => {
    await connect(rogue.address, { rejectUnauthorized: false });
    await connect(wrongHost.address, { rejectUnauthorized: false });
    await connect(wrongHost.address, { ca: certs.ca, servername: 'rogue.invalid' });
  });

  it('the resolved options verify unless told not to', () => {
    assert.equal(resolveClientConnection({ tls: true }).tls?.rejectUnauthorized, true);
    assert.equal(resolveClientConnection({ tls: {} }).tls?.rejectUnauthorized, true);
    assert.equal(resolveClientConnection({ tls: { ca: 'PEM' } }).tls?.checkServerIdentity, undefined);
    assert.equal(
      resolveClientConnection({ tls: { rejectUnauthorized: false } }).tls?.rejectUnauthorized,
      false,
    );
  });
});
