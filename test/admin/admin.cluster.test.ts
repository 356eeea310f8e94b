/**
 * Every Admin method against an embedded two-broker cluster with traffic: a producer sending
 * keyed messages and a PushConsumer consuming them. Numbers are checked against what was sent
 * and consumed, not against the admin client itself.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import {
  BrokerResponseError,
  InvalidArgumentError,
  BrokerNotFoundError,
  BrokerUnavailableError,
  ConsumerGroupNotFoundError,
  ConsumerGroupOnlineError,
  ConsumerNotOnlineError,
  MessageNotFoundError,
  ProducerGroupNotOnlineError,
  RequestNotSupportedError,
  TopicNotFoundError,
} from '../../src/errors.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { harness, unique, waitFor } from '../consumer/helpers.js';

const N = 20;

test('admin on an embedded cluster with traffic: every method, numbers from the traffic', async () => {
  const h = await harness({ brokers: 2 });
  const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
  try {
    const cluster = await admin.clusterInfo();
    assert.deepEqual(Object.keys(cluster.clusters), ['DefaultCluster']);
    assert.equal(cluster.brokers.length, 2);
    const [b0, b1] = cluster.brokers;
    assert.deepEqual(
      cluster.brokers.map((b) => b.address).sort(),
      h.cluster.brokers.map((b) => b.addr).sort(),
    );

    const topic = unique('AdminT');
    const group = unique('AdminG');
    const written = await admin.createTopic({
      topic,
      readQueues: 2,
      writeQueues: 2,
      cluster: 'DefaultCluster',
    });
    assert.equal(written.length, 2);
    const route = await admin.topicRoute(topic);
    assert.deepEqual(
      route.queues.map((q) => [q.brokerName, q.readQueueNums, q.writeQueueNums, q.perm]),
      [
        [b0!.brokerName, 2, 2, 6],
        [b1!.brokerName, 2, 2, 6],
      ],
    );
    assert.ok((await admin.topics()).includes(topic));

    const got: ConsumerMessage[] = [];
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      got.push(m);
    });
    const sent: Array<{ msgId: string; offsetMsgId: string }> = [];
    for (let i = 0; i < N; i++)
      sent.push(await h.producer.send({ topic, body: `body-${i}`, keys: [`k${i}`, 'shared'], tags: 'TagA' }));
    await waitFor(() => new Set(got.map((m) => m.msgId)).size === N, 'all messages consumed');

    // Topic statistics: max offsets add up to what was sent, one entry per queue.
    const stats = await admin.topicStats(topic);
    assert.equal(stats.queues.length, 4);
    assert.equal(
      stats.queues.reduce((s, q) => s + q.maxOffset, 0),
      N,
    );
    assert.ok(
      stats.queues.every((q) => q.minOffset === 0 && (q.maxOffset === 0 || q.lastUpdateTimestamp > 0)),
    );

    // Progress: once the consumer committed, lag is 0 and offsets add up to N.
    let progress = await admin.consumerProgress(group);
    const deadline = Date.now() + 10_000;
    while (
      progress.totalLag > 0 ||
      progress.queues.filter((q) => q.topic === topic).reduce((s, q) => s + q.consumerOffset, 0) < N
    ) {
      if (Date.now() > deadline) assert.fail(`lag stayed ${progress.totalLag}`);
      await new Promise((r) => setTimeout(r, 100));
      progress = await admin.consumerProgress(group);
    }
    const own = progress.queues.filter((q) => q.topic === topic);
    assert.equal(own.length, 4);
    assert.equal(
      own.reduce((s, q) => s + q.brokerOffset, 0),
      N,
    );

    // Connections and running info of the one member.
    const conns = await admin.consumerConnections(group);
    assert.equal(conns.connections.length, 1);
    assert.equal(conns.messageModel, 'CLUSTERING');
    assert.deepEqual(conns.subscriptions[topic], { expressionType: 'TAG', expression: '*' });
    const clientId = conns.connections[0]!.clientId;
    const info = await admin.consumerRunningInfo(group, clientId);
    assert.ok(info.subscriptionSet.some((s) => s.topic === topic));
    assert.ok(info.mqTable.filter(([mq]) => mq.topic === topic).length === 4);

    const groups = await admin.consumerGroups();
    assert.ok(groups.some((g) => g.group === group && g.brokers.length === 2));
    assert.ok(!groups.some((g) => g.group === 'TOOLS_CONSUMER'));
    assert.ok((await admin.topicConsumers(topic)).includes(group));

    // Producer connections.
    const producers = await admin.producerConnections(h.producer.options.producerGroup, topic);
    assert.equal(producers.length, 1);
    await assert.rejects(admin.producerConnections(unique('NoSuchP'), topic), ProducerGroupNotOnlineError);

    // Messages: by key, by offsetMsgId, by msgId, by queue range.
    const byKey = await admin.queryMessagesByKey(topic, 'k7');
    assert.equal(byKey.length, 1);
    assert.equal(byKey[0]!.body.toString(), 'body-7');
    assert.deepEqual(byKey[0]!.keys, ['k7', 'shared']);
    assert.equal((await admin.queryMessagesByKey(topic, 'shared', 64)).length, N);
    assert.equal((await admin.queryMessagesByKey(topic, 'shared', 5)).length, 5);
    await assert.rejects(admin.queryMessagesByKey(topic, 'nope'), MessageNotFoundError);
    const viewed = await admin.viewMessage(sent[3]!.offsetMsgId);
    assert.equal(viewed.body.toString(), 'body-3');
    assert.equal(viewed.msgId, sent[3]!.msgId);
    assert.equal(viewed.tags, 'TagA');
    const byMsgId = await admin.viewMessage(sent[4]!.msgId, topic);
    assert.equal(byMsgId.offsetMsgId, sent[4]!.offsetMsgId);
    await assert.rejects(admin.viewMessage(sent[4]!.msgId), MessageNotFoundError);
    const q = own.find((x) => x.brokerOffset >= 2)!;
    const range = await admin.messagesOfQueue({ topic, brokerName: q.brokerName, queueId: q.queueId }, 1, 1);
    assert.equal(range.messages.length, 1);
    assert.equal(range.messages[0]!.queueOffset, 1);
    assert.equal(range.nextOffset, 2);
    assert.equal(range.maxOffset, q.brokerOffset);

    // Resend: the member consumes the message again, right now.
    const before = got.length;
    const result = await admin.resendMessage(sent[5]!.msgId, group, clientId, topic);
    assert.equal(result.consumeResult, 'CR_SUCCESS');
    await waitFor(() => got.slice(before).some((m) => m.msgId === sent[5]!.msgId), 'resent message consumed');
    await assert.rejects(
      admin.resendMessage(sent[5]!.msgId, group, 'nobody@x', topic),
      ConsumerNotOnlineError,
    );
    await assert.rejects(admin.consumerRunningInfo(group, 'nobody@x'), ConsumerNotOnlineError);

    // Reset by time: refused without force while the member runs; with force it rewinds.
    await assert.rejects(admin.resetOffsetByTime(group, topic, 0, false), ConsumerGroupOnlineError);
    const consumedBefore = got.length;
    const reset = await admin.resetOffsetByTime(group, topic, 0, true);
    assert.equal(reset.length, 4);
    assert.ok(reset.every((r) => r.offset === 0));
    await waitFor(() => got.length >= consumedBefore + N, 'messages consumed again after the reset');

    // Offline group: the offsets are written directly.
    await c.shutdown();
    const offline = await admin.resetOffsetByTime(group, topic, -1, true);
    assert.equal(
      offline.reduce((s, r) => s + r.offset, 0),
      N,
    );
    const after = await admin.consumerProgress(group, topic);
    assert.equal(after.totalLag, 0);
    await assert.rejects(admin.consumerConnections(group), ConsumerNotOnlineError);

    // Broker config: read, change at runtime, black list refused.
    const config = await admin.brokerConfig(b0!.brokerName);
    assert.equal(config.brokerName, b0!.brokerName);
    await admin.updateBrokerConfig(b0!.brokerName, { maxMessageSize: 1234567 });
    assert.equal((await admin.brokerConfig(b0!.address)).maxMessageSize, '1234567');
    await assert.rejects(
      admin.updateBrokerConfig(b0!.brokerName, { brokerConfigPath: '/x' }),
      (e: unknown) => e instanceof BrokerResponseError && e.responseCode === ResponseCode.NO_PERMISSION,
    );

    // Runtime stats reflect the traffic.
    const rt = await admin.brokerRuntimeStats(b0!.brokerName);
    assert.equal(rt.address, b0!.address);
    assert.match(rt.version, /^V\d/);
    assert.ok(rt.commitLogMaxOffset > rt.commitLogMinOffset);
    assert.ok(rt.msgPutTotalTodayNow > 0);

    // Subscription groups.
    const sg = unique('SubG');
    assert.equal(
      (
        await admin.createOrUpdateSubscriptionGroup(
          { groupName: sg, retryMaxTimes: 3 },
          { cluster: 'DefaultCluster' },
        )
      ).length,
      2,
    );
    const listed = (await admin.consumerGroups()).find((g) => g.group === sg);
    assert.equal(listed?.config.retryMaxTimes, 3);
    await admin.deleteSubscriptionGroup(sg, { brokers: [b0!.brokerName] });
    assert.deepEqual((await admin.consumerGroups()).find((g) => g.group === sg)?.brokers, [b1!.brokerName]);

    // Delete the topic everywhere.
    await admin.deleteTopic(topic, 'DefaultCluster');
    assert.ok(!(await admin.topics()).includes(topic));
    await assert.rejects(admin.topicStats(topic), TopicNotFoundError);
  } finally {
    await admin.close();
    await h.close();
  }
});

test('admin failures are typed: unknown names, bad input, a broker down, an unsupported code', async () => {
  const h = await harness({ brokers: 1 });
  const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr, mqClientApiTimeout: 2000 });
  const bare = new RemotingServer({ host: '127.0.0.1', port: 0 });
  try {
    await assert.rejects(admin.topicRoute(unique('Nope')), TopicNotFoundError);
    await assert.rejects(admin.topicStats(unique('Nope')), TopicNotFoundError);
    await assert.rejects(admin.consumerProgress(unique('NoGroup')), ConsumerGroupNotFoundError);
    await assert.rejects(admin.brokerRuntimeStats('no-such-broker'), BrokerNotFoundError);
    await assert.rejects(
      admin.viewMessage('not-hex'),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'msgId',
    );
    await assert.rejects(
      admin.createTopic({ topic: 'bad topic', cluster: 'DefaultCluster' }),
      InvalidArgumentError,
    );
    await assert.rejects(
      admin.createTopic({ topic: 'T1' }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'cluster',
    );
    await assert.rejects(admin.createTopic({ topic: 'T1', cluster: 'NoCluster' }), BrokerNotFoundError);
    assert.throws(
      () => new Admin({ namesrvAddr: h.cluster.namesrvAddr, mqClientApiTimeout: 0 }),
      InvalidArgumentError,
    );
    assert.throws(
      () => new Admin({ namesrvAddr: h.cluster.namesrvAddr, nope: 1 } as never),
      InvalidArgumentError,
    );

    // A server that implements no admin code answers REQUEST_CODE_NOT_SUPPORTED.
    const { port } = await bare.listen();
    await assert.rejects(admin.brokerRuntimeStats(`127.0.0.1:${port}`), RequestNotSupportedError);

    // A broker that is down.
    const addr = h.cluster.brokers[0]!.addr;
    await h.cluster.stopBroker(h.cluster.brokers[0]!.name);
    await assert.rejects(admin.brokerRuntimeStats(addr), BrokerUnavailableError);
  } finally {
    await bare.close();
    await admin.close();
    await h.close();
  }
});
