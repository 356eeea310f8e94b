import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { RemotingServer } from '../../src/remoting/server.js';
import type { Connection } from '../../src/remoting/connection.js';
import { ClientInstance } from '../../src/client/client-instance.js';
import { Deadline } from '../../src/client/deadline.js';
import { TimeoutError, TopicNotFoundError, SendFailedError } from '../../src/errors.js';
import { clientInstances } from '../../src/client/instance-registry.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import type { Logger } from '../../src/observability/logger.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import { sleep, waitFor } from '../producer/cluster-helpers.js';
import { routeOf } from '../producer/helpers.js';
import { fakeNameServer, instanceConfig } from './helpers.js';

function recordingLogger(): Logger & { lines: { level: string; msg: string; meta?: object }[] } {
  const lines: { level: string; msg: string; meta?: object }[] = [];
  const at =
    (level: string) =>
    (msg: string, meta?: object): void => {
      lines.push(meta === undefined ? { level, msg } : { level, msg, meta });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
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
  it('route lookup timeout surfaces as a timeout inside SendFailedError, not ERR_TOPIC_NOT_FOUND', async () => {
    const server = new RemotingServer();
    server.setDefaultProcessor(() => new Promise(() => undefined));
    await server.listen();
    const p = new Producer({
      namesrvAddr: server.address,
      producerGroup: 'PG_hung_ns',
      instanceName: 'hungns',
      namespace: 'nsh',
      sendMsgTimeout: 400,
    });
    await p.start();
    try {
      const started = Date.now();
      await assert.rejects(p.send({ topic: 'AnyTopic', body: 'x' }), (err: unknown) => {
        assert.ok(err instanceof SendFailedError, String(err));
        assert.equal(err.topic, 'AnyTopic', 'the user topic, not the namespaced wire name');
        assert.ok(!err.message.includes('nsh%'), err.message);
        assert.equal(err.attempts.length, 1, 'the route lookup is listed as the attempt');
        assert.equal(err.attempts[0]?.stage, 'route');
        assert.ok(err.attempts[0]?.error instanceof TimeoutError, String(err.attempts[0]?.error));
        assert.ok(err.cause instanceof TimeoutError);
        return true;
      });
      // Settling at all is the point (the route lookup must not outlive the budget); the slack
      // only absorbs a loaded machine.
      assert.ok(Date.now() - started < 400 + 1500, `settled after ${Date.now() - started} ms`);
    } finally {
      await p.shutdown();
      await server.close();
    }
  });

  it('route refreshes do not pile up: one NameServer request at a time, even when it hangs', async () => {
    let hang = false;
    const ns = await fakeNameServer(() => (hang ? 'hang' : routeOf({ 'broker-x': 2 })));
    const instance = new ClientInstance(
      instanceConfig([ns.address], { pollNameServerInterval: 20, mqClientApiTimeout: 300 }),
    );
    // Keep the topics in use so idle eviction does not end the refreshes.
    const keepUsing = setInterval(() => {
      for (const t of ['R1', 'R2', 'R3']) instance.routes.cached(t);
    }, 10);
    try {
      for (const t of ['R1', 'R2', 'R3']) await instance.routes.get(t, Deadline.after(1000));
      hang = true;
      const from = ns.requests.length;
      instance.start();
      await sleep(500);
      const hung = ns.requests.slice(from);
      // 25 ticks in 500 ms; a timer per tick would start 3 requests each (~75). Paced: one
      // request, and the next only after it timed out at 300 ms.
      assert.ok(hung.length >= 1, `the refresh ran (${hung.length} requests)`);
      assert.ok(hung.length <= 2, `${hung.length} NameServer requests in 500 ms: refreshes piled up`);
      for (let i = 1; i < hung.length; i++) {
        const gap = (hung[i]?.at ?? 0) - (hung[i - 1]?.at ?? 0);
        assert.ok(gap >= 250, `a request started ${gap} ms after the previous one, which hung for 300 ms`);
      }
    } finally {
      clearInterval(keepUsing);
      await instance.shutdown();
      await ns.close();
    }
  });
});

describe('route lookups against a scripted NameServer', () => {
  it('a topic unused for topicIdleMs is no longer refreshed; a topic in use stays', async () => {
    const ns = await fakeNameServer(() => routeOf({ 'broker-x': 2 }));
    const instance = new ClientInstance(
      instanceConfig([ns.address], { pollNameServerInterval: 20, topicIdleMs: 100 }),
    );
    const evicted: string[] = [];
    instance.routes.on('topicEvicted', (t: string) => evicted.push(t));
    const keepUsing = setInterval(() => instance.routes.cached('Busy'), 10);
    try {
      await instance.routes.get('Idle', Deadline.after(1000));
      await instance.routes.get('Busy', Deadline.after(1000));
      instance.start();
      await waitFor(() => evicted.includes('Idle'), 3000, 'the idle topic evicted');
      assert.deepEqual(instance.routes.topicsInUse(), ['Busy']);
      const idleQueries = ns.requests.filter((r) => r.topic === 'Idle').length;
      await sleep(100);
      assert.equal(
        ns.requests.filter((r) => r.topic === 'Idle').length,
        idleQueries,
        'no more refreshes of the evicted topic',
      );
      assert.ok(
        ns.requests.filter((r) => r.topic === 'Busy').length > 2,
        'the busy topic is still refreshed',
      );
      // The next send looks it up again.
      assert.equal((await instance.routes.get('Idle', Deadline.after(1000))).fromDefaultTopic, false);
    } finally {
      clearInterval(keepUsing);
      await instance.shutdown();
      await ns.close();
    }
  });

  it('a topic whose route has no writable queue fails; TBW102 is used only when the NameServer answers TOPIC_NOT_EXIST', async () => {
    const ns = await fakeNameServer((topic) => {
      if (topic === 'ReadOnly') return routeOf({ 'broker-x': 4 }, 4);
      if (topic === 'TBW102') return routeOf({ 'broker-x': 8, 'broker-y': 8 });
      return undefined;
    });
    const instance = new ClientInstance(instanceConfig([ns.address], { defaultTopicQueueNums: 3 }));
    try {
      await assert.rejects(instance.routes.get('ReadOnly', Deadline.after(1000)), (err: unknown) => {
        assert.ok(err instanceof TopicNotFoundError, String(err));
        assert.equal(err.topic, 'ReadOnly');
        return true;
      });
      assert.deepEqual(
        ns.requests.map((r) => r.topic),
        ['ReadOnly'],
        'the template was not even asked for',
      );
      const entry = await instance.routes.get('Missing', Deadline.after(1000));
      assert.equal(entry.fromDefaultTopic, true);
      assert.deepEqual(
        entry.route.queueDatas.map((q) => q.writeQueueNums),
        [3, 3],
        'capped at defaultTopicQueueNums',
      );
      assert.deepEqual(
        ns.requests.map((r) => r.topic),
        ['ReadOnly', 'Missing', 'TBW102'],
      );
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('route errors name the topic without the namespace', async () => {
    const ns = await fakeNameServer(() => undefined);
    const instance = new ClientInstance(instanceConfig([ns.address], { namespace: 'ns1' }));
    const p = new Producer({
      namesrvAddr: ns.address,
      producerGroup: 'PG_ns_err',
      instanceName: 'nserr',
      namespace: 'ns1',
    });
    await p.start();
    try {
      const check = (err: unknown): boolean => {
        assert.ok(err instanceof TopicNotFoundError, String(err));
        assert.equal(err.topic, 'Missing');
        assert.ok(!err.message.includes('ns1%'), err.message);
        return true;
      };
      await assert.rejects(instance.routes.get('ns1%Missing', Deadline.after(1000)), check);
      await assert.rejects(p.send({ topic: 'Missing', body: 'x' }), check);
      assert.ok(
        ns.requests.some((r) => r.topic === 'ns1%Missing'),
        'the wire name was used on the wire',
      );
    } finally {
      await p.shutdown();
      await instance.shutdown();
      await ns.close();
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
    // 127.0.0.1:1 refuses connections; the start index pins it as the first one tried.
    const dead = '127.0.0.1:1';
    const logger = recordingLogger();
    const instance = new ClientInstance(
      instanceConfig([dead, cluster.namesrvAddr], { namesrvStartIndex: 0, logger }),
    );
    try {
      assert.equal(instance.namesrv.currentAddress, dead);
      await cluster.createTopic('FailoverTopic', 2);
      const entry = await instance.routes.get('FailoverTopic', Deadline.after(3000));
      assert.equal(entry.fromDefaultTopic, false);
      assert.equal(instance.namesrv.currentAddress, cluster.namesrvAddr, 'switched to the live one');
      assert.ok(
        logger.lines.some(
          (l) => l.msg === 'NameServer request failed' && (l.meta as { address?: string }).address === dead,
        ),
        'the dead NameServer was tried and failed',
      );
      assert.ok(logger.lines.some((l) => l.msg === 'switched NameServer'));
    } finally {
      await instance.shutdown();
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
      const instance = clientInstances().find((i) => i.clientId === p.clientId);
      assert.ok(instance);
      const addrB = instance.routes.masterAddress('broker-b');
      assert.ok(addrB !== undefined);
      const closed: string[] = [];
      const closeConnection = instance.pool.closeConnection.bind(instance.pool);
      instance.pool.closeConnection = (address: string): void => {
        closed.push(address);
        closeConnection(address);
      };
      await cluster.stopBroker('broker-b');
      await waitFor(
        () => routes.some((b) => b.length === 1 && b[0] === 'broker-a'),
        5000,
        'the route without broker-b',
      );
      await waitFor(() => instance.routes.masterAddress('broker-b') === undefined, 5000, 'broker-b dropped');
      assert.ok(closed.includes(addrB), 'the client closed its connection to broker-b');
      assert.ok(!instance.routes.brokerTable().has('broker-b'));
      assert.equal(instance.pool.size, 2, 'the pool holds the NameServer and broker-a only');
      for (let i = 0; i < 6; i++)
        assert.equal((await p.send({ topic: 'LeaveTopic', body: 'y' })).messageQueue.brokerName, 'broker-a');
    } finally {
      await p.shutdown();
      await cluster.startBroker('broker-b');
    }
  });
});
