/**
 * Signed-request hardening: a request whose validly signed fields do not fit its code's
 * declaration is refused before any processor runs (docs/security.md §2.8), while the requests
 * real clients send still pass.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calculateSignature, signRequest } from '../../../src/protocol/acl.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../../src/protocol/command.js';
import { fieldsMisfit } from '../../../src/server/acl/signed-fields.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, sendV2Header } from '../broker/rpc-helpers.js';
import { ADMIN, TEST_ACL, USER } from './helpers.js';

const createTopicFields = (topic: string): Record<string, string> => ({
  topic,
  defaultTopic: 'TBW102',
  readQueueNums: '4',
  writeQueueNums: '4',
  perm: '6',
  topicFilterType: 'SINGLE_TAG',
  topicSysFlag: '0',
  order: 'false',
});

describe('signed requests whose fields do not fit their code', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl: TEST_ACL } });
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    await cluster.createTopic('TopicOk', 1);
  });
  after(async () => {
    rpc?.close();
    await cluster?.stop();
  });

  it("an admin's signed create-topic, replayed as a delete-topic, is refused and the topic stays", async () => {
    const create = createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, createTopicFields('Victim'));
    signRequest(create, ADMIN.accessKey, ADMIN.secretKey);
    assert.equal((await rpc.conn.request(create, 5000)).code, ResponseCode.SUCCESS);
    // Same fields, same signature (the code is not signed), other code.
    const replay: RemotingCommand = createRequest(RequestCode.DELETE_TOPIC_IN_BROKER, {});
    replay.extFields = { ...create.extFields };
    const r = await rpc.conn.request(replay, 5000);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, r.remark);
    assert.match(r.remark ?? '', /Request fields do not fit DELETE_TOPIC_IN_BROKER: unexpected field/);
    assert.ok(cluster.broker('broker-a').topics.get('Victim'), 'the topic was deleted');
  });

  it('an empty extra field keeps the signature valid but is refused', async () => {
    const send = createRequest(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: 'TopicOk', body: 'x' }),
      Buffer.from('x'),
    );
    signRequest(send, USER.accessKey, USER.secretKey);
    const ext: Record<string, string> = { ...send.extFields!, zz: '' };
    // The signature still matches: empty values add nothing to the signed text.
    assert.equal(calculateSignature(ext, send.body, USER.secretKey), ext['Signature']);
    const before = cluster.broker('broker-a').store.getMaxOffset('TopicOk', 0);
    const r = await rpc.conn.request({ ...send, extFields: ext }, 5000);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, r.remark);
    assert.match(r.remark ?? '', /unexpected field "zz"/);
    assert.equal(cluster.broker('broker-a').store.getMaxOffset('TopicOk', 0), before);
  });

  it('a number field emptied (its digits moved to the next field) is refused', async () => {
    const fields = sendV2Header({ topic: 'TopicOk', body: 'x' });
    // d="4", e="0" → d="", e="40": same signed text, queue 40 instead of 0.
    const shifted = { ...fields, d: '', e: `${fields['d']}${fields['e']}` };
    const send = createRequest(RequestCode.SEND_MESSAGE_V2, shifted, Buffer.from('x'));
    signRequest(send, USER.accessKey, USER.secretKey);
    const r = await rpc.conn.request(send, 5000);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, r.remark);
    assert.match(r.remark ?? '', /field "d" is empty/);
  });

  it('the fields real clients send still pass: a signed send and a 5.x RpcRequestHeader field', async () => {
    const send = createRequest(
      RequestCode.SEND_MESSAGE_V2,
      { ...sendV2Header({ topic: 'TopicOk', body: 'x' }), bname: 'broker-a', oway: 'false' },
      Buffer.from('x'),
    );
    signRequest(send, USER.accessKey, USER.secretKey, 'token');
    const r = await rpc.conn.request(send, 5000);
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  });

  it('without ACL nothing is checked (a broker without accounts accepts the extra field)', async () => {
    const plain = await EmbeddedCluster.start({ brokers: 1 });
    const plainRpc = await Rpc.connect(plain.brokers[0]!.addr);
    try {
      await plain.createTopic('TopicOk', 1);
      const r = await plainRpc.request(
        RequestCode.SEND_MESSAGE_V2,
        { ...sendV2Header({ topic: 'TopicOk', body: 'x' }), zz: '' },
        Buffer.from('x'),
      );
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    } finally {
      plainRpc.close();
      await plain.stop();
    }
  });
});

describe('fieldsMisfit', () => {
  it('accepts QUERY_MESSAGE with _UNIQUE_KEY_QUERY and a code without a declaration', () => {
    const q = createRequest(RequestCode.QUERY_MESSAGE, {
      topic: 'T',
      key: 'k',
      maxNum: '1',
      beginTimestamp: '0',
      endTimestamp: '1',
      _UNIQUE_KEY_QUERY: 'true',
    });
    assert.equal(fieldsMisfit(q), undefined);
    assert.equal(fieldsMisfit(createRequest(9901, { anything: '' })), undefined);
  });

  it('accepts the Java 5.5.0 header fields we do not read (a pull with liteTopic) and refuses others', () => {
    const pull = (extra: Record<string, string>) =>
      createRequest(RequestCode.PULL_MESSAGE, {
        consumerGroup: 'G',
        topic: 'T',
        queueId: '0',
        queueOffset: '0',
        maxMsgNums: '32',
        sysFlag: '0',
        commitOffset: '0',
        suspendTimeoutMillis: '0',
        subVersion: '0',
        ...extra,
      });
    assert.equal(fieldsMisfit(pull({ liteTopic: 'lt', bname: 'broker-a' })), undefined);
    assert.match(fieldsMisfit(pull({ lastKey: 'k' })) ?? '', /unexpected field "lastKey"/);
  });
});
