/**
 * Throw-away certificates made at test time with the `openssl` CLI (nothing key-like is checked
 * in): a CA, a server certificate for 127.0.0.1/localhost signed by it, a certificate from the
 * same CA for another host name, and a second, unrelated CA.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerOptions } from '../../src/server/broker/options.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';

export interface TestCerts {
  /** CA that signed `cert`. */
  ca: string;
  /** An unrelated CA: verifying `cert` against it fails. */
  otherCa: string;
  cert: string;
  /** PKCS#8 PEM (what Java's `tls.server.keyPath` wants). */
  key: string;
  /** Signed by `ca` for `rogue.invalid` only: a client checking the host name refuses it. */
  otherHost: { cert: string; key: string };
  /** Files of the above, for the Java side; removed by `cleanup()`. */
  files: { ca: string; cert: string; key: string };
  cleanup(): void;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** `<name>.key` and `<name>.pem`: a certificate for `cn` with `altNames`, signed by `ca.pem`. */
function signedByCa(dir: string, name: string, cn: string, altNames: string): void {
  openssl(
    dir,
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
  );
  writeFileSync(join(dir, `${name}.cnf`), `subjectAltName=${altNames}\n`);
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.cnf`,
  );
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-tls-'));
  const subj = (cn: string): string[] => ['-subj', `/CN=${cn}`];
  for (const ca of ['ca', 'other-ca'])
    openssl(
      dir,
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.pem`,
      ...subj(`rocketmq-ts test ${ca}`),
    );
  signedByCa(dir, 'server', 'localhost', 'IP:127.0.0.1,DNS:localhost');
  openssl(dir, 'pkcs8', '-topk8', '-nocrypt', '-in', 'server.key', '-out', 'server.pk8');
  signedByCa(dir, 'rogue', 'rogue.invalid', 'DNS:rogue.invalid');
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
  return {
    ca: read('ca.pem'),
    otherCa: read('other-ca.pem'),
    cert: read('server.pem'),
    key: read('server.pk8'),
    otherHost: { cert: read('rogue.pem'), key: read('rogue.key') },
    files: { ca: join(dir, 'ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server.pk8') },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** One NameServer and one broker, both TLS-only (`enforcing`), with extra broker options (e.g. `acl`). */
export function startEnforcingTlsCluster(
  certs: TestCerts,
  brokerOptions: Partial<BrokerOptions> = {},
): Promise<EmbeddedCluster> {
  const tls = { cert: certs.cert, key: certs.key, mode: 'enforcing' as const };
  return EmbeddedCluster.start({
    brokers: 1,
    namesrvOptions: { tls },
    brokerOptions: { ...brokerOptions, tls },
  });
}
