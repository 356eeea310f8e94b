/**
 * The embedded broker with ACL on: each request kind (send, pull, offset commit, an admin code)
 * against each outcome (unsigned, wrong secret, unknown account, missing permission, allowed,
 * white-listed address), with the exact response code and remark, and no state change on refusal.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../../src/protocol/acl.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../../src/protocol/command.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import type { AclConfig } from '../../../src/server/acl/acl-config.js';
import { ADMIN, TEST_ACL, USER } from './helpers.js';
import { Rpc, sendV2Header, uniqueName } from '../broker/rpc-helpers.js';

type Who = 'unsigned' | 'wrongSecret' | 'unknown' | 'user' | 'admin';

function sign(cmd: RemotingCommand, who: Who): RemotingCommand {
  if (who === 'unsigned') return cmd;
  if (who === 'wrongSecret') signRequest(cmd, USER.accessKey, 'not-the-secret');
  else if (who === 'unknown') signRequest(cmd, 'NobodyAtAll', 'whatever-secret');
  else if (who === 'user') signRequest(cmd, USER.accessKey, USER.secretKey);
  else signRequest(cmd, ADMIN.accessKey, ADMIN.secretKey);
  return cmd;
}

const send = (topic: string): RemotingCommand =>
  createRequest(RequestCode.SEND_MESSAGE_V2, sendV2Header({ topic, body: 'x' }), Buffer.from('x'));
const pull = (topic: string, group: string): RemotingCommand =>
  createRequest(RequestCode.PULL_MESSAGE, {
    consumerGroup: group,
    topic,
    queueId: 0,
    queueOffset: 0,
    maxMsgNums: 32,
    sysFlag: 0,
    commitOffset: 0,
    suspendTimeoutMillis: 0,
    subVersion: 0,
  });
const commit = (topic: string, group: string, offset: number): RemotingCommand =>
  createRequest(RequestCode.UPDATE_CONSUMER_OFFSET, {
    consumerGroup: group,
    topic,
    queueId: 0,
    commitOffset: offset,
  });
const createTopic = (topic: string): RemotingCommand =>
  createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    topic,
    defaultTopic: 'TBW102',
    readQueueNums: 4,
    writeQueueNums: 4,
    perm: 6,
    topicFilterType: 'SINGLE_TAG',
    topicSysFlag: 0,
    order: false,
  });
const queryOffset = (topic: string, group: string): RemotingCommand =>
  createRequest(RequestCode.QUERY_CONSUMER_OFFSET, { consumerGroup: group, topic, queueId: 0 });

describe('embedded broker with ACL', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  const ask = (cmd: RemotingCommand, who: Who): Promise<RemotingCommand> =>
    rpc.conn.request(sign(cmd, who), 5000);
  const denied = async (cmd: RemotingCommand, who: Who, remark: string): Promise<void> => {
    const r = await ask(cmd, who);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, `code for ${who}: ${r.remark}`);
    assert.equal(r.remark, remark);
  };

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl: TEST_ACL } });
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    // TopicOk and TopicSubOnly exist (created by the admin), so sends and pulls reach real queues.
    for (const t of ['TopicOk', 'TopicSubOnly', 'TopicOther'])
      assert.equal((await ask(createTopic(t), 'admin')).code, ResponseCode.SUCCESS);
  });
  after(async () => {
    rpc.close();
    await cluster.stop();
  });

  for (const [name, make] of [
    ['send', () => send('TopicOk')],
    ['pull', () => pull('TopicOk', 'GroupA')],
    ['offset commit', () => commit('TopicOk', 'GroupA', 1)],
    ['admin code', () => createTopic(uniqueName('T'))],
  ] as const) {
    it(`${name}: unsigned is refused with "No accessKey is configured"`, () =>
      denied(make(), 'unsigned', 'No accessKey is configured'));
    it(`${name}: a wrong secret is refused with "Check signature failed"`, () =>
      denied(make(), 'wrongSecret', `Check signature failed for accessKey=${USER.accessKey}`));
    it(`${name}: an unknown account is refused with "No acl config"`, () =>
      denied(make(), 'unknown', 'No acl config for NobodyAtAll'));
  }

  it('send: allowed on a PUB topic, refused on a SUB-only and an unlisted topic (default DENY)', async () => {
    assert.equal((await ask(send('TopicOk'), 'user')).code, ResponseCode.SUCCESS);
    await denied(send('TopicSubOnly'), 'user', 'No default permission for topic:TopicSubOnly');
    await denied(send('TopicOther'), 'user', 'No default permission for topic:TopicOther');
  });

  it('pull: needs SUB on the topic and on the group', async () => {
    const ok = await ask(pull('TopicSubOnly', 'GroupA'), 'user');
    assert.notEqual(ok.code, ResponseCode.NO_PERMISSION, ok.remark);
    await denied(pull('TopicOther', 'GroupA'), 'user', 'No default permission for topic:TopicOther');
    await denied(pull('TopicOk', 'GroupDenied'), 'user', 'No default permission for group:GroupDenied');
  });

  it('offset commit: a refused commit leaves the stored offset unchanged', async () => {
    const group = uniqueName('G');
    assert.equal((await ask(commit('TopicOk', group, 1), 'user')).code, ResponseCode.SUCCESS);
    await denied(commit('TopicOther', group, 5), 'user', 'No default permission for topic:TopicOther');
    await denied(
      commit('TopicOk', group, 7),
      'wrongSecret',
      `Check signature failed for accessKey=${USER.accessKey}`,
    );
    const q = await ask(queryOffset('TopicOk', group), 'user');
    assert.equal(q.code, ResponseCode.SUCCESS);
    assert.equal(q.extFields?.['offset'], '1');
  });

  it('admin code: a non-admin account is refused and the topic is not created', async () => {
    const topic = uniqueName('T');
    await denied(
      createTopic(topic),
      'user',
      `Need admin permission for request code=${RequestCode.UPDATE_AND_CREATE_TOPIC}, but accessKey=${USER.accessKey} is not`,
    );
    const broker = cluster.brokers[0]!.broker;
    assert.equal(broker.topics.get(topic), undefined);
    assert.equal((await ask(createTopic(topic), 'admin')).code, ResponseCode.SUCCESS);
  });

  it('a refused send stores nothing', async () => {
    const before = await ask(pull('TopicSubOnly', 'GroupA'), 'admin');
    await denied(send('TopicSubOnly'), 'user', 'No default permission for topic:TopicSubOnly');
    const after = await ask(pull('TopicSubOnly', 'GroupA'), 'admin');
    assert.equal(after.code, before.code);
    assert.equal(after.extFields?.['maxOffset'], before.extFields?.['maxOffset']);
  });

  it('a refused oneway request gets no answer and the connection stays usable', async () => {
    const cmd = send('TopicOther');
    await rpc.conn.oneway(cmd);
    assert.equal((await ask(send('TopicOk'), 'user')).code, ResponseCode.SUCCESS);
  });
});

describe('embedded broker with ACL: white-listed address', () => {
  it('a globally white-listed client needs no signature', async () => {
    const cluster = await EmbeddedCluster.start({
      brokers: 1,
      brokerOptions: { acl: { ...TEST_ACL, globalWhiteRemoteAddresses: ['127.0.0.*'] } },
    });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      for (const cmd of [
        send('AnyTopic'),
        pull('AnyTopic', 'AnyGroup'),
        commit('AnyTopic', 'AnyGroup', 3),
        createTopic(uniqueName('T')),
      ]) {
        const r = await rpc.conn.request(cmd, 5000);
        assert.notEqual(r.code, ResponseCode.NO_PERMISSION, r.remark);
      }
    } finally {
      rpc.close();
      await cluster.stop();
    }
  });

  it("an account's whiteRemoteAddress skips the signature check", async () => {
    const acl: AclConfig = {
      accounts: [{ ...USER, whiteRemoteAddress: '127.0.0.1', defaultTopicPerm: 'PUB' }],
    };
    const cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl } });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const cmd = send('AnyTopic');
      signRequest(cmd, USER.accessKey, 'wrong-secret!');
      assert.equal((await rpc.conn.request(cmd, 5000)).code, ResponseCode.SUCCESS);
      const unsigned = await rpc.conn.request(send('AnyTopic'), 5000);
      assert.equal(unsigned.code, ResponseCode.NO_PERMISSION);
      assert.equal(unsigned.remark, 'No accessKey is configured');
    } finally {
      rpc.close();
      await cluster.stop();
    }
  });
});
