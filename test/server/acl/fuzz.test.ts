/**
 * Fuzzed ACL fields on the embedded broker: AccessKey, Signature and SecurityToken missing,
 * empty, huge, non-ASCII, look-alike or copied from another request, on send, pull, heartbeat
 * (with a malformed body too) and an admin code. Every one must be a clean NO_PERMISSION on a
 * connection that stays usable, and nothing may be stored.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../../src/protocol/acl.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../../src/protocol/command.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { rng } from '../../helpers/rng.js';
import { heartbeatBody, Rpc, sendV2Header } from '../broker/rpc-helpers.js';
import { TEST_ACL, USER } from './helpers.js';

const SEED = 1313;
const ROUNDS = 300;

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

function junk(r: () => number): string {
  return pick(r, [
    '',
    ' ',
    'x'.repeat(1 + Math.floor(r() * 200_000)),
    'Rocket\u00d1Q\u4e2d\u6587\ud83d\ude00',
    '\u0000\u0001',
    'RocketMQUser ',
    'rocketmquser',
    USER.accessKey + '\u200b',
    '0jiwhsaYp5ObE5GObbZH1I8/FT4=',
    '\ud800',
  ]);
}

function request(r: () => number): RemotingCommand {
  const kind = Math.floor(r() * 4);
  if (kind === 0)
    return createRequest(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: 'TopicOk', body: 'f' }),
      Buffer.from('f'),
    );
  if (kind === 1)
    return createRequest(RequestCode.PULL_MESSAGE, {
      consumerGroup: 'GroupA',
      topic: 'TopicOk',
      queueId: 0,
      queueOffset: 0,
      maxMsgNums: 1,
      sysFlag: 0,
      commitOffset: 0,
      suspendTimeoutMillis: 0,
      subVersion: 0,
    });
  if (kind === 2) {
    const good = heartbeatBody('fuzz-client', 'GroupA', [{ topic: 'TopicOk' }]);
    const body =
      r() < 0.5 ? good : Buffer.from(good.toString('utf8').slice(0, Math.floor(r() * good.length)));
    return createRequest(RequestCode.HEART_BEAT, {}, body);
  }
  return createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    topic: 'FuzzTopic',
    defaultTopic: 'TBW102',
    readQueueNums: 1,
    writeQueueNums: 1,
    perm: 6,
    topicFilterType: 'SINGLE_TAG',
    topicSysFlag: 0,
    order: false,
  });
}

/** Corrupts the ACL fields of a (maybe signed) request so that no valid signature remains. */
function corrupt(r: () => number, cmd: RemotingCommand): void {
  const ext = (cmd.extFields ??= {});
  switch (Math.floor(r() * 6)) {
    case 0: // unsigned, maybe with a stray token
      if (r() < 0.5) ext['SecurityToken'] = junk(r);
      break;
    case 1: // junk AccessKey and Signature
      ext['AccessKey'] = junk(r);
      ext['Signature'] = junk(r);
      break;
    case 2: // right AccessKey, junk signature (or none)
      ext['AccessKey'] = USER.accessKey;
      if (r() < 0.7) ext['Signature'] = junk(r);
      break;
    case 3: // signed with the right key, then a field changed
      signRequest(cmd, USER.accessKey, USER.secretKey);
      ext[pick(r, ['topic', 'b', 'consumerGroup', 'queueId', 'SecurityToken', 'Zz'])] = junk(r) + 'x';
      break;
    case 4: // signed, then the body changed
      signRequest(cmd, USER.accessKey, USER.secretKey);
      cmd.body = Buffer.concat([cmd.body ?? Buffer.alloc(0), Buffer.from(junk(r) + '!')]);
      break;
    default: // a signature copied from another request, or signed with a junk secret
      if (r() < 0.5) {
        const other = createRequest(RequestCode.QUERY_CONSUMER_OFFSET, {
          consumerGroup: 'GroupA',
          topic: 'TopicOk',
          queueId: 0,
        });
        ext['AccessKey'] = USER.accessKey;
        ext['Signature'] = signRequest(other, USER.accessKey, USER.secretKey);
      } else signRequest(cmd, USER.accessKey, junk(r) + 'k');
  }
}

describe('fuzzed ACL fields', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl: TEST_ACL } });
    await cluster.createTopic('TopicOk', 1);
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
  });
  after(async () => {
    rpc.close();
    await cluster.stop();
  });

  it(`${ROUNDS} corrupted requests (seed ${SEED}) are each a clean NO_PERMISSION`, async () => {
    const r = rng(SEED);
    for (let i = 0; i < ROUNDS; i++) {
      const cmd = request(r);
      corrupt(r, cmd);
      const reply = await rpc.conn.request(cmd, 5000);
      assert.equal(
        reply.code,
        ResponseCode.NO_PERMISSION,
        `round ${i} code ${cmd.code}: ${reply.code} ${reply.remark}`,
      );
      assert.equal(typeof reply.remark, 'string');
    }
    assert.equal(cluster.brokers[0]!.broker.topics.get('FuzzTopic'), undefined);
    const stored = await rpc.conn.request(
      (() => {
        const q = createRequest(RequestCode.GET_MAX_OFFSET, { topic: 'TopicOk', queueId: 0 });
        signRequest(q, USER.accessKey, USER.secretKey);
        return q;
      })(),
      5000,
    );
    assert.equal(stored.code, ResponseCode.SUCCESS, stored.remark);
    assert.equal(stored.extFields?.['offset'], '0');
  });
});
