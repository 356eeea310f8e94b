import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { checkNameServer } from '../../src/cli/namesrv-check.js';
import { Dashboard } from '../../src/dashboard/server.js';
import { NotANameServerError, ProxyEndpointError } from '../../src/errors.js';
import { proxyScenario } from './helpers.js';

function isProxyError(address: string): (e: unknown) => boolean {
  return (e) =>
    e instanceof ProxyEndpointError &&
    e instanceof NotANameServerError &&
    e.code === 'ERR_PROXY_ENDPOINT' &&
    e.address === address &&
    /RocketMQ 5 Proxy/.test(e.message) &&
    /NameServer/.test(e.message);
}

test('admin at a proxy: NameServer and broker admin calls fail at once with ProxyEndpointError; a broker address stays NotANameServerError', async () => {
  await proxyScenario(1, async (s) => {
    const admin = new Admin({ namesrvAddr: s.proxy.address });
    try {
      await assert.rejects(admin.clusterInfo(), isProxyError(s.proxy.address));
      await assert.rejects(admin.topics(), isProxyError(s.proxy.address));
      // The route works through the proxy; the broker request it leads to does not.
      await assert.rejects(admin.topicStats(s.topic), isProxyError(s.proxy.address));
    } finally {
      await admin.close();
    }
    const atBroker = new Admin({ namesrvAddr: s.cluster.brokers[0]!.addr });
    try {
      await assert.rejects(
        atBroker.clusterInfo(),
        (e: unknown) => e instanceof NotANameServerError && !(e instanceof ProxyEndpointError),
      );
    } finally {
      await atBroker.close();
    }
  });
});

test('cli and dashboard at a proxy: the NameServer check and the dashboard start refuse with ProxyEndpointError', async () => {
  await proxyScenario(1, async (s) => {
    await assert.rejects(checkNameServer(s.proxy.address, {}), isProxyError(s.proxy.address));
    const dashboard = new Dashboard({ namesrvAddr: s.proxy.address, port: 0 });
    try {
      await assert.rejects(dashboard.start(), isProxyError(s.proxy.address));
    } finally {
      await dashboard.close();
    }
    const fine = new Dashboard({ namesrvAddr: s.cluster.namesrvAddr, port: 0 });
    try {
      assert.match(await fine.start(), /^http:\/\/127\.0\.0\.1:\d+\/$/);
    } finally {
      await fine.close();
    }
  });
});
