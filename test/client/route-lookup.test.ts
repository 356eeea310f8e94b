import { NameServerUnreachableError, TopicNotFoundError } from '../../src/errors.js';
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { ClientInstance } from '../../src/client/client-instance.js';
import { Deadline } from '../../src/client/deadline.js';
import { PermName } from '../../src/protocol/perm.js';
import type { TopicRouteData } from '../../src/protocol/headers/route.js';
import { waitFor } from '../producer/cluster-helpers.js';
import { routeOf } from '../producer/helpers.js';
import { fakeNameServer, instanceConfig } from './helpers.js';

/** broker-a: master + slave, 4 read / 2 write queues, RW; broker-b: read-only; broker-c: slave only. */
function consumerRoute(): TopicRouteData {
  return {
    queueDatas: [
      { brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
      {
        brokerName: 'broker-b',
        readQueueNums: 2,
        writeQueueNums: 2,
        perm: PermName.PERM_READ,
        topicSysFlag: 0,
      },
      { brokerName: 'broker-c', readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 0 },
      {
        brokerName: 'broker-d',
        readQueueNums: 3,
        writeQueueNums: 3,
        perm: PermName.PERM_WRITE,
        topicSysFlag: 0,
      },
    ],
    brokerDatas: [
      {
        cluster: 'C',
        brokerName: 'broker-a',
        brokerAddrs: { '0': '127.0.0.2:10911', '1': '127.0.0.3:10911' },
      },
      { cluster: 'C', brokerName: 'broker-b', brokerAddrs: { '0': '127.0.0.4:10911' } },
      { cluster: 'C', brokerName: 'broker-c', brokerAddrs: { '2': '127.0.0.5:10911' } },
      { cluster: 'C', brokerName: 'broker-d', brokerAddrs: { '0': '127.0.0.6:10911' } },
    ],
    filterServerTable: {},
  };
}

describe('RouteLookup', () => {
  it('latest asks the NameServer every time, caches nothing and answers undefined for an unknown topic', async () => {
    let known = true;
    const ns = await fakeNameServer((topic) => (known && topic === 'SubTopic' ? consumerRoute() : undefined));
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      const first = await instance.routes.latest('SubTopic', Deadline.after(1000));
      assert.deepEqual(first, consumerRoute());
      known = false;
      assert.equal(
        await instance.routes.latest('SubTopic', Deadline.after(1000)),
        undefined,
        'not from a cache',
      );
      assert.equal(instance.routes.cached('SubTopic'), undefined);
      assert.equal(
        await instance.routes.latest('Other', Deadline.after(1000)),
        undefined,
        'no TBW102 fallback',
      );
      assert.deepEqual(
        ns.requests.map((r) => r.topic),
        ['SubTopic', 'SubTopic', 'Other'],
      );
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('latest against a NameServer that is down is NameServerUnreachableError naming it', async () => {
    const ns = await fakeNameServer(() => undefined);
    const address = ns.address;
    await ns.close();
    const instance = new ClientInstance(instanceConfig([address]));
    try {
      await assert.rejects(instance.routes.latest('T', Deadline.after(1000)), (err: unknown) => {
        assert.ok(err instanceof NameServerUnreachableError);
        assert.deepEqual(err.addresses, [address]);
        return true;
      });
    } finally {
      await instance.shutdown();
    }
  });

  it('subscribeQueues lists 0..readQueueNums-1 of every readable QueueData, slave-only brokers included', async () => {
    const ns = await fakeNameServer(() => consumerRoute());
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      const queues = await instance.routes.subscribeQueues('SubTopic', Deadline.after(1000));
      assert.deepEqual(
        queues.map((q) => `${q.brokerName}/${q.queueId}`),
        ['broker-a/0', 'broker-a/1', 'broker-a/2', 'broker-a/3', 'broker-b/0', 'broker-b/1', 'broker-c/0'],
      );
      const entry = instance.routes.cached('SubTopic');
      assert.ok(entry);
      assert.deepEqual(
        entry.publishQueues.map((q) => `${q.brokerName}/${q.queueId}`),
        ['broker-a/0', 'broker-a/1', 'broker-d/0', 'broker-d/1', 'broker-d/2'],
        'the publish view of the same entry: writable queues on brokers with a master',
      );
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('a subscribe lookup of an unknown topic fails without asking for the createTopicKey route', async () => {
    const ns = await fakeNameServer(() => undefined);
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      await assert.rejects(
        instance.routes.get('Nope', Deadline.after(1000), 'subscribe'),
        (err: unknown) => err instanceof TopicNotFoundError && err.topic === 'Nope',
      );
      assert.deepEqual(
        ns.requests.map((r) => r.topic),
        ['Nope'],
      );
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('findBrokerAddress: master by default, a given brokerId, any address unless onlyThisBroker', async () => {
    const ns = await fakeNameServer(() => consumerRoute());
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      await instance.routes.get('SubTopic', Deadline.after(1000), 'subscribe');
      assert.deepEqual(instance.findBrokerAddress('broker-a'), {
        address: '127.0.0.2:10911',
        brokerId: 0,
        slave: false,
      });
      assert.deepEqual(instance.findBrokerAddress('broker-a', 1), {
        address: '127.0.0.3:10911',
        brokerId: 1,
        slave: true,
      });
      assert.equal(instance.findBrokerAddress('broker-c', 0, true), undefined);
      assert.deepEqual(instance.findBrokerAddress('broker-c'), {
        address: '127.0.0.5:10911',
        brokerId: 2,
        slave: true,
      });
      assert.equal(instance.findBrokerAddress('broker-x'), undefined);
      assert.deepEqual(instance.routes.brokerAddresses(false).sort(), [
        '127.0.0.2:10911',
        '127.0.0.4:10911',
        '127.0.0.6:10911',
      ]);
      assert.equal(instance.routes.brokerAddresses(true).length, 5);
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('a pinned topic is refreshed while idle; after unpin it is evicted', async () => {
    const ns = await fakeNameServer(() => routeOf({ 'broker-x': 2 }));
    const instance = new ClientInstance(
      instanceConfig([ns.address], { pollNameServerInterval: 20, topicIdleMs: 50 }),
    );
    const evicted: string[] = [];
    instance.routes.on('topicEvicted', (t: string) => evicted.push(t));
    try {
      instance.routes.pin('Subscribed');
      await instance.routes.get('Subscribed', Deadline.after(1000), 'subscribe');
      await instance.routes.get('Other', Deadline.after(1000));
      instance.routes.pin('Early');
      instance.start();
      await waitFor(
        () => instance.routes.topicsInUse().includes('Early'),
        3000,
        'a topic pinned before any lookup is fetched by the refresh',
      );
      await waitFor(() => evicted.includes('Other'), 3000, 'the unpinned idle topic evicted');
      const before = ns.requests.filter((r) => r.topic === 'Subscribed').length;
      await waitFor(
        () => ns.requests.filter((r) => r.topic === 'Subscribed').length > before + 2,
        3000,
        'the pinned topic still refreshed',
      );
      assert.ok(!evicted.includes('Subscribed'));
      instance.routes.unpin('Subscribed');
      await waitFor(() => evicted.includes('Subscribed'), 3000, 'evicted once unpinned and idle');
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('one cache entry: a route change keeps the publish round-robin position, and the old view is not served', async () => {
    let queues = 2;
    const ns = await fakeNameServer(() => routeOf({ 'broker-x': queues }));
    const instance = new ClientInstance(instanceConfig([ns.address]));
    const updates: string[][] = [];
    instance.routes.on('routeUpdated', (e: { brokers: string[] }) => updates.push(e.brokers));
    try {
      const first = await instance.routes.get('T', Deadline.after(1000));
      first.publishInfo.selectOne();
      queues = 3;
      await instance.routes.refresh();
      const second = instance.routes.cached('T');
      assert.ok(second && second !== first, 'a new entry for the new route');
      assert.equal(second.publishInfo.queues.length, 3);
      assert.equal(second.publishInfo.sendWhichQueue, first.publishInfo.sendWhichQueue);
      assert.deepEqual(updates, [['broker-x'], ['broker-x']]);
      await instance.routes.refresh();
      assert.equal(instance.routes.cached('T'), second, 'an unchanged route keeps its entry');
      assert.equal(updates.length, 2, 'and emits nothing');
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });

  it('a caller sharing a slower lookup still gives up at its own deadline (TimeoutError)', async () => {
    const ns = await fakeNameServer(() => 'hang');
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      const long = instance.routes.get('Slow', Deadline.after(400));
      await assert.rejects(instance.routes.get('Slow', Deadline.after(30)), { code: 'ERR_TIMEOUT' });
      assert.equal(ns.requests.length, 1, 'one lookup shared by both callers');
      await assert.rejects(long, { code: 'ERR_TIMEOUT' });
    } finally {
      await instance.shutdown();
      await ns.close();
    }
  });
});
