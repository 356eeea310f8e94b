import * as assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';
import { deflateSync } from 'node:zlib';
import { NameServer } from '../../../src/server/namesrv/namesrv.js';
import { RouteInfoManager } from '../../../src/server/namesrv/route-info-manager.js';
import {
  encodeRegisterBrokerBody,
  topicConfig,
  type TopicConfig,
} from '../../../src/protocol/headers/register.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { crc32 } from '../../../src/protocol/message/crc32.js';
import { Rpc, waitFor } from '../broker/rpc-helpers.js';

function topic(name: string, queues = 4, perm = 6): TopicConfig {
  return topicConfig(name, { readQueueNums: queues, writeQueueNums: queues, perm });
}

function registerHeader(
  brokerName: string,
  brokerAddr: string,
  body: Buffer,
  brokerId = 0,
): Record<string, string> {
  return {
    brokerName,
    brokerAddr,
    clusterName: 'DefaultCluster',
    haServerAddr: brokerAddr.replace(/\d+$/, (p) => String(Number(p) + 1)),
    brokerId: String(brokerId),
    compressed: 'false',
    bodyCrc32: String(crc32(body) & 0x7fffffff),
  };
}

function registerBody(counter: number, ...topics: TopicConfig[]): Buffer {
  return encodeRegisterBrokerBody({
    topicConfigSerializeWrapper: {
      dataVersion: { counter, timestamp: 1700000000000 + counter },
      topicConfigTable: Object.fromEntries(topics.map((t) => [t.topicName, t])),
    },
    filterServerList: [],
  });
}

describe('RouteInfoManager', () => {
  it('expires brokers that stopped registering and keeps fresh ones', () => {
    const m = new RouteInfoManager();
    const wrapper = { dataVersion: { counter: 1, timestamp: 1 }, topicConfigTable: { T: topic('T') } };
    m.registerBroker({
      clusterName: 'C',
      brokerAddr: 'a:1',
      brokerName: 'a',
      brokerId: 0,
      haServerAddr: '',
      topicConfigWrapper: wrapper,
      now: 1000,
    });
    m.registerBroker({
      clusterName: 'C',
      brokerAddr: 'b:1',
      brokerName: 'b',
      brokerId: 0,
      haServerAddr: '',
      topicConfigWrapper: wrapper,
      now: 5000,
    });
    assert.deepEqual(m.scanNotActiveBroker(3000, 5500), ['a:1']);
    const route = m.pickupTopicRouteData('T');
    assert.deepEqual(
      route?.queueDatas.map((q) => q.brokerName),
      ['b'],
    );
    assert.deepEqual(Object.keys(m.clusterInfo().brokerAddrTable), ['b']);
  });

  it('drops topics a broker no longer registers', () => {
    const m = new RouteInfoManager();
    m.registerBroker({
      clusterName: 'C',
      brokerAddr: 'a:1',
      brokerName: 'a',
      brokerId: 0,
      haServerAddr: '',
      topicConfigWrapper: {
        dataVersion: { counter: 1, timestamp: 1 },
        topicConfigTable: { T: topic('T'), U: topic('U') },
      },
    });
    m.registerBroker({
      clusterName: 'C',
      brokerAddr: 'a:1',
      brokerName: 'a',
      brokerId: 0,
      haServerAddr: '',
      topicConfigWrapper: { dataVersion: { counter: 2, timestamp: 1 }, topicConfigTable: { T: topic('T') } },
    });
    assert.equal(m.pickupTopicRouteData('U'), undefined);
    assert.ok(m.pickupTopicRouteData('T'));
  });
});

describe('NameServer over the wire', () => {
  let ns: NameServer;
  let client: Rpc;
  before(async () => {
    ns = new NameServer({ listenPort: 0, brokerChannelExpiredMs: 300, scanNotActiveBrokerIntervalMs: 50 });
    await ns.start();
    client = await Rpc.connect(ns.address);
  });
  after(async () => {
    client.close();
    await ns.stop();
  });

  it('registers a broker and answers its route as quoted JSON with filterServerTable {}', async () => {
    const body = registerBody(1, topic('RouteTopic', 4));
    const reg = await client.request(
      RequestCode.REGISTER_BROKER,
      registerHeader('broker-r', '127.0.0.1:20911', body),
      body,
    );
    assert.equal(reg.code, ResponseCode.SUCCESS);
    const route = await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'RouteTopic' });
    assert.equal(route.code, ResponseCode.SUCCESS);
    const text = Buffer.from(route.body ?? []).toString();
    assert.equal(
      text,
      '{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:20911"},"brokerName":"broker-r","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-r","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}',
    );
    const info = await client.request(RequestCode.GET_BROKER_CLUSTER_INFO);
    const parsed = JSON.parse(Buffer.from(info.body ?? []).toString()) as {
      clusterAddrTable: Record<string, string[]>;
    };
    assert.ok(parsed.clusterAddrTable.DefaultCluster?.includes('broker-r'));
    const list = await client.request(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER);
    assert.ok(
      (JSON.parse(Buffer.from(list.body ?? []).toString()) as { topicList: string[] }).topicList.includes(
        'RouteTopic',
      ),
    );
    await client.request(RequestCode.UNREGISTER_BROKER, {
      brokerName: 'broker-r',
      brokerAddr: '127.0.0.1:20911',
      clusterName: 'DefaultCluster',
      brokerId: '0',
    });
  });

  it('answers TOPIC_NOT_EXIST with the Java remark for an unknown topic', async () => {
    const route = await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'NoSuchTopic' });
    assert.equal(route.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.match(route.remark ?? '', /^No topic route info in name server for the topic: NoSuchTopic/);
    assert.equal(route.body, undefined);
  });

  it('accepts a compressed register body and rejects a body whose crc does not match', async () => {
    const dv = Buffer.from(JSON.stringify({ counter: 1, timestamp: 1 }));
    const t = Buffer.from('ZipTopic 2 2 6 SINGLE_TAG');
    const fs = Buffer.from('[]');
    const parts: Buffer[] = [];
    const int = (n: number): Buffer => {
      const b = Buffer.alloc(4);
      b.writeInt32BE(n);
      return b;
    };
    parts.push(int(dv.length), dv, int(1), int(t.length), t, int(fs.length), fs);
    const body = deflateSync(Buffer.concat(parts));
    const header = { ...registerHeader('broker-z', '127.0.0.1:30911', body), compressed: 'true' };
    assert.equal(
      (await client.request(RequestCode.REGISTER_BROKER, header, body)).code,
      ResponseCode.SUCCESS,
    );
    const route = await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ZipTopic' });
    assert.equal(route.code, ResponseCode.SUCCESS);
    const bad = await client.request(RequestCode.REGISTER_BROKER, { ...header, bodyCrc32: '12345' }, body);
    assert.equal(bad.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(bad.remark, 'crc32 not match');
    await client.request(RequestCode.UNREGISTER_BROKER, {
      brokerName: 'broker-z',
      brokerAddr: '127.0.0.1:30911',
      clusterName: 'DefaultCluster',
      brokerId: '0',
    });
    assert.equal(
      (await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ZipTopic' })).code,
      ResponseCode.TOPIC_NOT_EXIST,
    );
  });

  it('a broker that stops registering drops out of every route after the expiry', async () => {
    const body = registerBody(1, topic('ExpiringTopic'));
    await client.request(
      RequestCode.REGISTER_BROKER,
      registerHeader('broker-e', '127.0.0.1:40911', body),
      body,
    );
    assert.equal(
      (await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ExpiringTopic' })).code,
      ResponseCode.SUCCESS,
    );
    await waitFor(
      async () =>
        (await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ExpiringTopic' })).code ===
        ResponseCode.TOPIC_NOT_EXIST,
      5000,
      'expired broker dropped from the route',
    );
  });

  it('a broker whose connection closes drops out of every route at once', async () => {
    const brokerConn = await Rpc.connect(ns.address);
    const body = registerBody(1, topic('ClosingTopic'));
    await brokerConn.request(
      RequestCode.REGISTER_BROKER,
      registerHeader('broker-c', '127.0.0.1:50911', body),
      body,
    );
    assert.equal(
      (await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ClosingTopic' })).code,
      ResponseCode.SUCCESS,
    );
    brokerConn.close();
    await waitFor(
      async () =>
        (await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ClosingTopic' })).code ===
        ResponseCode.TOPIC_NOT_EXIST,
      5000,
      'closed broker dropped from the route',
    );
  });

  it('QUERY_DATA_VERSION tells whether the broker table changed', async () => {
    const body = registerBody(7, topic('DvTopic'));
    await client.request(
      RequestCode.REGISTER_BROKER,
      registerHeader('broker-d', '127.0.0.1:60911', body),
      body,
    );
    const same = Buffer.from(JSON.stringify({ counter: 7, timestamp: 1700000000007 }));
    const ext = {
      brokerName: 'broker-d',
      brokerAddr: '127.0.0.1:60911',
      clusterName: 'DefaultCluster',
      brokerId: '0',
    };
    assert.equal(
      (await client.request(RequestCode.QUERY_DATA_VERSION, ext, same)).extFields?.changed,
      'false',
    );
    const other = Buffer.from(JSON.stringify({ counter: 8, timestamp: 1 }));
    assert.equal(
      (await client.request(RequestCode.QUERY_DATA_VERSION, ext, other)).extFields?.changed,
      'true',
    );
  });

  it('KV config: put, get, delete', async () => {
    assert.equal(
      (await client.request(RequestCode.PUT_KV_CONFIG, { namespace: 'NS', key: 'k', value: 'v' })).code,
      ResponseCode.SUCCESS,
    );
    assert.equal(
      (await client.request(RequestCode.GET_KV_CONFIG, { namespace: 'NS', key: 'k' })).extFields?.value,
      'v',
    );
    const list = await client.request(RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: 'NS' });
    assert.equal(Buffer.from(list.body ?? []).toString(), '{"table":{"k":"v"}}');
    await client.request(RequestCode.DELETE_KV_CONFIG, { namespace: 'NS', key: 'k' });
    assert.equal(
      (await client.request(RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: 'NS' })).code,
      ResponseCode.QUERY_NOT_FOUND,
    );
    assert.equal(
      (await client.request(RequestCode.GET_KV_CONFIG, { namespace: 'NS', key: 'k' })).code,
      ResponseCode.QUERY_NOT_FOUND,
    );
  });

  it('a NameServer whose KV table is full refuses new items but still updates and frees old ones', async () => {
    const small = new NameServer({ listenPort: 0, maxKvConfigItems: 2 });
    await small.start();
    const rpc = await Rpc.connect(small.address);
    try {
      const put = async (key: string, value = 'v'): Promise<number> =>
        (await rpc.request(RequestCode.PUT_KV_CONFIG, { namespace: 'Cap', key, value })).code;
      assert.equal(await put('a'), ResponseCode.SUCCESS);
      assert.equal(await put('b'), ResponseCode.SUCCESS);
      assert.equal(await put('c'), ResponseCode.SYSTEM_ERROR);
      assert.equal(await put('a', 'updated'), ResponseCode.SUCCESS);
      await rpc.request(RequestCode.DELETE_KV_CONFIG, { namespace: 'Cap', key: 'b' });
      assert.equal(await put('c'), ResponseCode.SUCCESS);
    } finally {
      rpc.close();
      await small.stop();
    }
  });

  it('bad requests get an error and the server keeps serving', async () => {
    const missing = await client.request(RequestCode.REGISTER_BROKER, { brokerName: 'x' }, Buffer.from('{}'));
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missing.remark, 'the custom field <brokerAddr> is null');
    const empty = await client.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: '' });
    assert.equal(empty.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(empty.remark, 'the custom field <topic> is null');
    const body = Buffer.from('{not json');
    const badJson = await client.request(
      RequestCode.REGISTER_BROKER,
      { ...registerHeader('broker-j', '127.0.0.1:1', body), bodyCrc32: '0' },
      body,
    );
    assert.equal(badJson.code, ResponseCode.SYSTEM_ERROR);
    const badNum = await client.request(RequestCode.UNREGISTER_BROKER, {
      brokerName: 'x',
      brokerAddr: 'y',
      clusterName: 'z',
      brokerId: 'abc',
    });
    assert.equal(badNum.code, ResponseCode.SYSTEM_ERROR);
    const unknown = await client.request(9999);
    assert.equal(unknown.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    assert.equal((await client.request(RequestCode.GET_BROKER_CLUSTER_INFO)).code, ResponseCode.SUCCESS);
  });
});
