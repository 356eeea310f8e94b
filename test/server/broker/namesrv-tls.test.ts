/**
 * A broker registering with a TLS-only NameServer: by default it trusts any certificate (Java's
 * default); given the NameServers' CA (`namesrvTlsCa`, Java `tls.client.authServer`) it
 * registers only with a NameServer whose certificate that CA signed.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { validateBrokerOptions } from '../../../src/server/broker/options.js';
import { NamesrvRegistrar } from '../../../src/server/broker/namesrv-registrar.js';
import { NameServer } from '../../../src/server/namesrv/namesrv.js';
import { makeTestCerts, type TestCerts } from '../../helpers/tls-certs.js';

const identity = {
  clusterName: 'DefaultCluster',
  brokerName: 'broker-tls',
  brokerAddr: '127.0.0.1:10911',
  brokerId: 0,
  haServerAddr: '127.0.0.1:10912',
};
const topics = { topicConfigTable: {}, dataVersion: { timestamp: Date.now(), counter: 1 } };

describe('broker registration with a TLS-only NameServer', () => {
  let certs: TestCerts;
  let namesrv: NameServer;
  let addr: string;
  before(async () => {
    certs = makeTestCerts();
    namesrv = new NameServer({ listenPort: 0, tls: { cert: certs.cert, key: certs.key, mode: 'enforcing' } });
    addr = await namesrv.start();
  });
  after(async () => {
    await namesrv.stop();
    certs.cleanup();
  });

  async function register(ca?: string): Promise<number> {
    const registrar = new NamesrvRegistrar(silentLogger, true, ca);
    try {
      return await registrar.registerAll([addr], identity, topics);
    } finally {
      await registrar.close();
    }
  }

  it('trusts any certificate without namesrvTlsCa, as Java does', async () => {
    assert.equal(await register(), 1);
  });

  it('registers when namesrvTlsCa signed the NameServer certificate', async () => {
    assert.equal(await register(certs.ca), 1);
  });

  it('refuses a NameServer whose certificate another CA signed', async () => {
    assert.equal(await register(certs.otherCa), 0);
  });

  it('rejects a namesrvTlsCa that is not PEM, naming the option', () => {
    assert.throws(
      () => validateBrokerOptions({ namesrvTlsCa: 'not a certificate' }),
      (e: unknown) => e instanceof InvalidArgumentError && /namesrvTlsCa/.test(e.message),
    );
    assert.throws(
      () => validateBrokerOptions({ namesrvTlsCa: 42 as never }),
      (e: unknown) => e instanceof InvalidArgumentError && /must be PEM text/.test(e.message),
    );
  });
});
