/** The ACL and TLS flags: environment fallback, pairs that must come together, files read. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { clientSecurity, serverSecurity } from '../../src/cli/security-flags.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { assertOneLineError, runCli } from './run-cli.js';

const flagError = (fn: () => unknown, flag: string): void =>
  assert.throws(fn, (e: unknown) => e instanceof InvalidArgumentError && e.field === flag);

test('credentials come from the flags, else from ROCKETMQ_ACCESS_KEY / ROCKETMQ_SECRET_KEY', () => {
  const env = { ROCKETMQ_ACCESS_KEY: 'envAK', ROCKETMQ_SECRET_KEY: 'envSK' };
  assert.deepEqual(clientSecurity({}, env), { credentials: { accessKey: 'envAK', secretKey: 'envSK' } });
  assert.deepEqual(clientSecurity({ 'access-key': 'ak', 'secret-key': 'sk' }, env).credentials, {
    accessKey: 'ak',
    secretKey: 'sk',
  });
  assert.deepEqual(clientSecurity({}, {}), {});
  assert.deepEqual(clientSecurity({ tls: true }, {}), { tls: true });
  assert.deepEqual(clientSecurity({ 'tls-insecure': true }, {}), { tls: { rejectUnauthorized: false } });
  assert.deepEqual(clientSecurity({ tls: true, 'tls-insecure': true }, {}), {
    tls: { rejectUnauthorized: false },
  });
  flagError(() => clientSecurity({ 'tls-insecure': true, 'tls-ca': 'ca.pem' }, {}), '--tls-insecure');
  flagError(() => clientSecurity({ 'access-key': 'ak' }, {}), '--secret-key');
  flagError(() => clientSecurity({ 'secret-key': 'sk' }, {}), '--access-key');
  flagError(() => clientSecurity({ 'tls-ca': '/nonexistent/ca.pem' }, {}), '--tls-ca');
});

test('server TLS needs both files; the mode is checked', () => {
  assert.deepEqual(serverSecurity({}), {});
  assert.deepEqual(serverSecurity({ acl: 'plain_acl.yml' }), { acl: 'plain_acl.yml' });
  flagError(() => serverSecurity({ 'tls-cert': 'c.pem' }), '--tls-key');
  flagError(() => serverSecurity({ 'tls-mode': 'enforcing' }), '--tls-mode');
  flagError(
    () => serverSecurity({ 'tls-cert': '/nonexistent/c.pem', 'tls-key': '/nonexistent/k.pem' }),
    '--tls-cert',
  );
});

test('broker --namesrv-tls-ca: an unreadable file, or one with no certificate, is refused naming the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-ts-nstls-'));
  try {
    const base = ['broker', '--namesrv', '127.0.0.1:9876', '--data-dir', join(dir, 'b'), '--port', '0'];
    assertOneLineError(
      await runCli([...base, '--namesrv-tls-ca', join(dir, 'missing.pem')]),
      2,
      /--namesrv-tls-ca: cannot read/,
    );
    writeFileSync(join(dir, 'empty.pem'), 'no certificate here\n');
    assertOneLineError(
      await runCli([...base, '--namesrv-tls-ca', join(dir, 'empty.pem')]),
      2,
      /namesrvTlsCa: holds no PEM certificate/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
