/**
 * What Apache mqadmin sends the embedded broker and NameServer, checked as raw requests: the
 * wire forms a Java tool relies on (Long.MAX_VALUE as "no end", 5.x GET_TOPIC_CONFIG, the
 * subscription group table, broker config as properties text, NameServer topic deletion).
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  encodeSubscriptionGroupConfig,
  parseGroupList,
  parsePropertiesText,
  parseSubscriptionGroupConfig,
  parseSubscriptionGroupWrapper,
  parseTopicStatsTable,
  subscriptionGroupConfig,
} from '../../../src/protocol/body/admin.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { parseTopicList } from '../../../src/protocol/headers/route.js';
import type { EmbeddedCluster } from '../../../src/server/cluster.js';
import { brokerWithTopic, Rpc, sendV2Header, uniqueName, type Rpc as RpcType } from './rpc-helpers.js';

describe('admin codes on the embedded broker and NameServer, as Java tools send them', () => {
  let cluster: EmbeddedCluster;
  let broker: RpcType;
  let topic: string;
  let stop: () => Promise<void>;
  before(async () => {
    ({ cluster, broker, topic, stop } = await brokerWithTopic('AdminCodes', 2));
    for (let i = 0; i < 3; i++) {
      const r = await broker.request(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic, body: `m${i}`, queueId: 0, props: { KEYS: `key${i}` } }),
        Buffer.from(`m${i}`),
      );
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
  });
  after(() => stop());

  it('GET_SUBSCRIPTIONGROUP_CONFIG (5.x) answers one group, auto-creating a missing one; an illegal name → SUBSCRIPTION_GROUP_NOT_EXIST', async () => {
    const group = uniqueName('OrderlyCG');
    const update = await broker.request(
      RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
      {},
      encodeSubscriptionGroupConfig(subscriptionGroupConfig(group, { consumeMessageOrderly: true })),
    );
    assert.equal(update.code, ResponseCode.SUCCESS, update.remark);
    const one = await broker.request(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, { group });
    assert.equal(one.code, ResponseCode.SUCCESS, one.remark);
    const config = parseSubscriptionGroupConfig(one.body!);
    assert.equal(config.groupName, group);
    assert.equal(config.consumeMessageOrderly, true);
    const fresh = uniqueName('FreshCG');
    const created = await broker.request(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, { group: fresh });
    assert.equal(created.code, ResponseCode.SUCCESS);
    assert.equal(parseSubscriptionGroupConfig(created.body!).consumeMessageOrderly ?? false, false);
    assert.ok(cluster.broker('broker-a').subscriptionGroups.get(fresh), 'auto-created as Java does');
    const bad = await broker.request(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, { group: 'bad group!' });
    assert.equal(bad.code, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
  });

  it('QUERY_MESSAGE accepts Long.MAX_VALUE as the end time (mqadmin queryMsgByKey)', async () => {
    const r = await broker.request(RequestCode.QUERY_MESSAGE, {
      topic,
      key: 'key1',
      maxNum: 64,
      beginTimestamp: 0,
      endTimestamp: '9223372036854775807',
      _UNIQUE_KEY_QUERY: 'false',
    });
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  });

  it('GET_TOPIC_CONFIG (5.x topicStatus) and GET_TOPIC_STATS_INFO answer per topic; unknown → TOPIC_NOT_EXIST', async () => {
    const cfg = await broker.request(RequestCode.GET_TOPIC_CONFIG, { topic });
    assert.equal(cfg.code, ResponseCode.SUCCESS);
    const body = JSON.parse(Buffer.from(cfg.body!).toString()) as Record<string, unknown>;
    assert.equal(body.topicName, topic);
    assert.equal(body.readQueueNums, 2);
    const stats = await broker.request(RequestCode.GET_TOPIC_STATS_INFO, { topic });
    const table = parseTopicStatsTable(stats.body!);
    assert.equal(table.size, 2);
    assert.equal([...table.values()].find((e) => e.mq.queueId === 0)?.value.maxOffset, 3);
    for (const code of [RequestCode.GET_TOPIC_CONFIG, RequestCode.GET_TOPIC_STATS_INFO])
      assert.equal(
        (await broker.request(code, { topic: uniqueName('Nope') })).code,
        ResponseCode.TOPIC_NOT_EXIST,
      );
  });

  it('subscription groups: built-in ones from start, create, list, delete', async () => {
    const group = uniqueName('SG');
    const list0 = parseSubscriptionGroupWrapper(
      (await broker.request(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)).body!,
    );
    assert.ok(list0.subscriptionGroupTable.TOOLS_CONSUMER);
    const created = await broker.request(
      RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
      undefined,
      encodeSubscriptionGroupConfig(subscriptionGroupConfig(group, { retryMaxTimes: 2 })),
    );
    assert.equal(created.code, ResponseCode.SUCCESS);
    const list1 = parseSubscriptionGroupWrapper(
      (await broker.request(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)).body!,
    );
    assert.equal(list1.subscriptionGroupTable[group]?.retryMaxTimes, 2);
    assert.ok(list1.dataVersion.counter > list0.dataVersion.counter);
    await broker.request(RequestCode.DELETE_SUBSCRIPTIONGROUP, { groupName: group, removeOffset: true });
    const list2 = parseSubscriptionGroupWrapper(
      (await broker.request(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)).body!,
    );
    assert.equal(list2.subscriptionGroupTable[group], undefined);
    const who = await broker.request(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, { topic });
    assert.deepEqual(parseGroupList(who.body!), []);
  });

  it('broker config: properties text with a version, runtime update, black list and start-only keys refused', async () => {
    const got = await broker.request(RequestCode.GET_BROKER_CONFIG);
    assert.match(got.extFields?.version ?? '', /"counter":\d+/);
    const props = parsePropertiesText(got.body!);
    assert.equal(props.brokerName, 'broker-a');
    assert.equal(props.logger, undefined);
    assert.equal(props.listenPort, cluster.brokers[0]!.addr.split(':')[1]);
    const ok = await broker.request(
      RequestCode.UPDATE_BROKER_CONFIG,
      undefined,
      Buffer.from('longPollingEnable=false\n'),
    );
    assert.equal(ok.code, ResponseCode.SUCCESS);
    assert.equal(cluster.broker('broker-a').options.longPollingEnable, false);
    const black = await broker.request(
      RequestCode.UPDATE_BROKER_CONFIG,
      undefined,
      Buffer.from('rocketmqHome=/x\n'),
    );
    assert.equal(black.code, ResponseCode.NO_PERMISSION);
    const startOnly = await broker.request(
      RequestCode.UPDATE_BROKER_CONFIG,
      undefined,
      Buffer.from('listenPort=1\n'),
    );
    assert.equal(startOnly.code, ResponseCode.SYSTEM_ERROR);
    const bad = await broker.request(
      RequestCode.UPDATE_BROKER_CONFIG,
      undefined,
      Buffer.from('maxMessageSize=big\n'),
    );
    assert.equal(bad.code, ResponseCode.SYSTEM_ERROR);
  });

  it('reset offset, producer connections and relayed requests name what is missing', async () => {
    const reset = await broker.request(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, {
      topic,
      group: uniqueName('G'),
      timestamp: -1,
      isForce: true,
    });
    assert.equal(reset.code, ResponseCode.SYSTEM_ERROR);
    assert.match(reset.remark ?? '', /not exist/);
    const producers = await broker.request(RequestCode.GET_PRODUCER_CONNECTION_LIST, {
      producerGroup: 'nobody',
    });
    assert.equal(producers.code, ResponseCode.SYSTEM_ERROR);
    const info = await broker.request(RequestCode.GET_CONSUMER_RUNNING_INFO, {
      consumerGroup: 'g',
      clientId: 'c',
    });
    assert.equal(info.code, ResponseCode.SYSTEM_ERROR);
    assert.match(info.remark ?? '', /not online/);
  });

  it('the NameServer deletes a topic per cluster and lists topics by cluster', async () => {
    const ns = await Rpc.connect(cluster.namesrvAddr);
    try {
      const byCluster = await ns.request(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: 'DefaultCluster' });
      assert.ok(parseTopicList(byCluster.body!).topicList.includes(topic));
      const none = await ns.request(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: 'Nope' });
      assert.deepEqual(parseTopicList(none.body!).topicList, []);
      const other = await ns.request(RequestCode.DELETE_TOPIC_IN_NAMESRV, {
        topic,
        clusterName: 'OtherCluster',
      });
      assert.equal(other.code, ResponseCode.SUCCESS);
      assert.equal(
        (await ns.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic })).code,
        ResponseCode.SUCCESS,
      );
      await ns.request(RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic, clusterName: 'DefaultCluster' });
      assert.equal(
        (await ns.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic })).code,
        ResponseCode.TOPIC_NOT_EXIST,
      );
    } finally {
      ns.close();
    }
  });
});
