import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { RemotingServer } from '../../src/remoting/server.js';
import type { Connection } from '../../src/remoting/connection.js';
import { ClientInstance } from '../../src/client/client-instance.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { silentLogger } from '../../src/observability/logger.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import { waitFor } from '../producer/cluster-helpers.js';

function instanceConfig(namesrvAddr: string[]) {
  return {
    clientId: '127.0.0.1@test',
    namesrvAddr,
    namespace: undefined,
    language: 'JAVA',
    mqClientApiTimeout: 1000,
    pollNameServerInterval: 30000,
    heartbeatBrokerInterval: 30000,
    logger: silentLogger,
  };
}

describe('ClientInstance', () => {
  it('answers broker-initiated requests: unsupported codes get REQUEST_CODE_NOT_SUPPORTED, CHECK_TRANSACTION_STATE is not answered', async () => {
    const server = new RemotingServer();
    server.setDefaultProcessor((req) => createResponse(req, ResponseCode.SUCCESS));
    const accepted = new Promise<Connection>((resolve) => server.once('connection', resolve));
    await server.listen();
    const instance = new ClientInstance(instanceConfig([server.address]));
    try {
      await instance.pool.request(server.address, createRequest(RequestCode.HEART_BEAT), 1000);
      const conn = await accepted;
      const response = await conn.request(
        createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: 'G', clientId: 'x' }),
        1000,
      );
      assert.equal(response.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
      await conn.oneway(createRequest(RequestCode.CHECK_TRANSACTION_STATE, { tranStateTableOffset: '0' }));
      const again = await conn.request(createRequest(RequestCode.CONSUME_MESSAGE_DIRECTLY), 1000);
      assert.equal(again.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, 'still connected and answering');
    } finally {
      await instance.shutdown();
      await server.close();
    }
  });
});

describe('a NameServer that hangs', () => {
  it('a send still settles within sendMsgTimeout (route lookup counts against the budget)', async () => {
    const server = new RemotingServer();
    server.setDefaultProcessor(() => new Promise(() => undefined));
    await server.listen();
    const p = new Producer({
      namesrvAddr: server.address,
      producerGroup: 'PG_hung_ns',
      instanceName: 'hungns',
      sendMsgTimeout: 400,
    });
    await p.start();
    try {
      const started = Date.now();
      await assert.rejects(p.send({ topic: 'AnyTopic', body: 'x' }));
      assert.ok(Date.now() - started < 400 + 500, `settled after ${Date.now() - started} ms`);
    } finally {
      await p.shutdown();
      await server.close();
    }
  });
});

describe('routes, NameServer failover, heartbeats and tracing', () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
  });
  after(async () => {
    await cluster.stop();
  });

  it('a dead NameServer in the list is skipped (failover)', async () => {
    // 127.0.0.1:1 refuses connections; which NameServer is tried first is random.
    for (let i = 0; i < 3; i++) {
      const p = new Producer({
        namesrvAddr: `127.0.0.1:1;${cluster.namesrvAddr}`,
        producerGroup: `PG_failover_${i}`,
        instanceName: `fo${i}`,
      });
      await p.start();
      try {
        await cluster.createTopic('FailoverTopic', 2);
        assert.equal((await p.send({ topic: 'FailoverTopic', body: 'x' })).status, 'SEND_OK');
      } finally {
        await p.shutdown();
      }
    }
  });

  it('the producer group is registered with the broker by heartbeat and unregistered on shutdown', async () => {
    const p = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_heartbeat',
      instanceName: 'hb',
    });
    await p.start();
    await cluster.createTopic('HeartbeatTopic', 2);
    const r = await p.send({ topic: 'HeartbeatTopic', body: 'x' });
    const broker = cluster.broker(r.messageQueue.brokerName);
    await waitFor(() => broker.clients.producerChannel('PG_heartbeat') !== undefined, 3000, 'heartbeat');
    await p.shutdown();
    assert.equal(broker.clients.producerChannel('PG_heartbeat'), undefined);
  });

  it('each send is traced on the rocketmq:send diagnostics channel', async () => {
    const events: string[] = [];
    const onStart = (): void => void events.push('start');
    const onEnd = (): void => void events.push('asyncEnd');
    subscribe('tracing:rocketmq:send:start', onStart);
    subscribe('tracing:rocketmq:send:asyncEnd', onEnd);
    const p = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_trace',
      instanceName: 'trace',
    });
    try {
      await p.start();
      await cluster.createTopic('TraceTopic', 2);
      await p.send({ topic: 'TraceTopic', body: 'x' });
      assert.deepEqual(events, ['start', 'asyncEnd']);
    } finally {
      unsubscribe('tracing:rocketmq:send:start', onStart);
      unsubscribe('tracing:rocketmq:send:asyncEnd', onEnd);
      await p.shutdown();
    }
  });

  it('a broker that left every route is dropped and its connection closed', async () => {
    const p = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_leave',
      instanceName: 'leave',
      pollNameServerInterval: 100,
    });
    await p.start();
    try {
      await cluster.createTopic('LeaveTopic', 2);
      const brokers = new Set<string>();
      for (let i = 0; i < 4; i++)
        brokers.add((await p.send({ topic: 'LeaveTopic', body: 'x' })).messageQueue.brokerName);
      assert.equal(brokers.size, 2);
      const routes: string[][] = [];
      p.on('routeUpdated', (e) => routes.push(e.brokers));
      await cluster.stopBroker('broker-b');
      await waitFor(
        () => routes.some((b) => b.length === 1 && b[0] === 'broker-a'),
        5000,
        'the route without broker-b',
      );
      for (let i = 0; i < 6; i++)
        assert.equal((await p.send({ topic: 'LeaveTopic', body: 'y' })).messageQueue.brokerName, 'broker-a');
    } finally {
      await p.shutdown();
      await cluster.startBroker('broker-b');
    }
  });
});
