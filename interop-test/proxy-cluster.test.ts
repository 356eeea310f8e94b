/**
 * RocketMQ 5.5.0 with the 5.x Proxy in front (interop-test/proxy-fixture.ts): one cluster for
 * every Proxy scenario, since starting five JVMs is most of the cost. Our clients through the
 * Proxy (proxy-clients.ts), typed topics, message groups, priority and recall through the Proxy
 * and direct (proxy-typed.ts), then the Proxy killed and restarted under load (proxy-restart.ts,
 * last: it kills the Proxy).
 */
import { after, before, describe } from 'node:test';
import { proxyClientTests } from './proxy-clients.js';
import { ProxyEnv } from './proxy-fixture.js';
import { proxyRestartTests } from './proxy-restart.js';
import { proxyTypedTests } from './proxy-typed.js';

describe('RocketMQ 5.5.0 with the 5.x Proxy in front', { timeout: 1_200_000, concurrency: 1 }, () => {
  const env = new ProxyEnv();
  before(() => env.start());
  after(() => env.stop());
  proxyClientTests(env);
  proxyTypedTests(env);
  proxyRestartTests(env);
});
