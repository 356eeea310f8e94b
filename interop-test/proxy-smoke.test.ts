/**
 * The 5.x Proxy runs in front of a real 5.5.0 cluster and serves our Producer and PushConsumer
 * through its remoting endpoint; the routes it answers name only 127.0.0.1.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin, MessageTypeMismatchError, Producer } from '../src/index.js';
import { RequestCode } from '../src/protocol/codes.js';
import { parseTopicRouteData } from '../src/protocol/headers/route.js';
import { rawRequest } from './raw-remoting.js';
import { RealCluster } from './real-cluster.js';

describe('RocketMQ 5.5.0 behind the 5.x Proxy', { timeout: 300_000 }, () => {
  let cluster: RealCluster;
  before(async () => {
    cluster = await RealCluster.start({ version: '5.5.0', proxy: true });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('the Proxy answers routes with itself, on 127.0.0.1, as every broker', async () => {
    const res = await rawRequest(cluster.proxyAddr, RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'TBW102' });
    assert.equal(res.code, 0, res.remark);
    const route = parseTopicRouteData(res.body ?? Buffer.alloc(0));
    assert.ok(route.brokerDatas.length >= 1);
    for (const bd of route.brokerDatas)
      for (const addr of Object.values(bd.brokerAddrs)) assert.equal(addr, cluster.proxyAddr);
  });

  it('our producer sends through the Proxy to a created topic; a topic the Proxy does not know is refused, typed', async () => {
    const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    const p = new Producer({ producerGroup: 'proxy_smoke_pg', namesrvAddr: cluster.proxyAddr });
    try {
      await admin.createTopic({
        topic: 'proxy_smoke',
        cluster: 'DefaultCluster',
        readQueues: 4,
        writeQueues: 4,
      });
      await p.start();
      const r = await p.send({ topic: 'proxy_smoke', body: 'hello' });
      assert.equal(r.status, 'SEND_OK');
      // With the type check on (its default) the Proxy refuses a topic that does not exist yet
      // (UNSPECIFIED) instead of auto-creating it through TBW102.
      await assert.rejects(p.send({ topic: 'proxy_smoke_missing', body: 'x' }), (err: unknown) => {
        assert.ok(err instanceof MessageTypeMismatchError, String(err));
        assert.equal(err.expectedType, 'UNSPECIFIED');
        assert.equal(err.topic, 'proxy_smoke_missing');
        return true;
      });
    } finally {
      await p.shutdown();
      await admin.shutdown();
    }
  });
});
