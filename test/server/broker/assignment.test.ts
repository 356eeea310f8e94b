/**
 * SET_MESSAGE_REQUEST_MODE / QUERY_ASSIGNMENT on the embedded broker (Java QueryAssignmentProcessor):
 * the assignment rules, the refusals and Java's codes, and the mode kept across a restart.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  encodeQueryAssignmentRequest,
  encodeSetMessageRequestModeBody,
  parseQueryAssignmentResponse,
  type MessageQueueAssignment,
  type MessageRequestMode,
} from '../../../src/protocol/body/assignment.js';
import { mqKey } from '../../../src/protocol/body/message-queue-map.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { allocate4Pop } from '../../../src/server/broker/processors/assignment.js';
import { heartbeatBody, Rpc, uniqueName } from './rpc-helpers.js';

describe('broker-side assignment on a two-broker cluster', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  let members: Rpc[];
  const topic = uniqueName('AssignT');
  const group = uniqueName('AssignG');

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
    await cluster.createTopic(topic, 2);
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    members = [];
    for (const id of ['127.0.0.1@c1', '127.0.0.1@c2']) {
      const m = await Rpc.connect(cluster.brokers[0]!.addr);
      const hb = await m.request(RequestCode.HEART_BEAT, undefined, heartbeatBody(id, group, [{ topic }]));
      assert.equal(hb.code, ResponseCode.SUCCESS);
      members.push(m);
    }
  });
  after(async () => {
    rpc.close();
    for (const m of members) m.close();
    await cluster.stop();
  });

  async function query(
    clientId: string,
    t = topic,
    strategyName = 'AVG',
  ): Promise<MessageQueueAssignment[] | undefined> {
    const r = await rpc.request(
      RequestCode.QUERY_ASSIGNMENT,
      undefined,
      encodeQueryAssignmentRequest({
        topic: t,
        consumerGroup: group,
        clientId,
        strategyName,
        messageModel: 'CLUSTERING',
      }),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    return parseQueryAssignmentResponse(r.body);
  }

  async function setMode(t: string, g: string, mode: MessageRequestMode, popShareQueueNum = 0) {
    return rpc.request(
      RequestCode.SET_MESSAGE_REQUEST_MODE,
      undefined,
      encodeSetMessageRequestModeBody({ topic: t, consumerGroup: g, mode, popShareQueueNum }),
    );
  }

  const keys = (a: MessageQueueAssignment[] | undefined): string[] =>
    (a ?? []).map((x) => `${mqKey(x.messageQueue)}:${x.mode}`).sort();

  it('PULL by default: the strategy shares out the queues of every broker of the topic', async () => {
    const [a, b] = cluster.brokers.map((x) => x.name).sort();
    assert.deepEqual(keys(await query('127.0.0.1@c1')), [`${topic}@${a}@0:PULL`, `${topic}@${a}@1:PULL`]);
    assert.deepEqual(keys(await query('127.0.0.1@c2')), [`${topic}@${b}@0:PULL`, `${topic}@${b}@1:PULL`]);
  });

  it('no valid answer ({}) for an unknown strategy or a topic without a route', async () => {
    assert.equal(await query('127.0.0.1@c1', topic, 'CONSISTENT_HASH'), undefined);
    assert.equal(await query('127.0.0.1@c1', uniqueName('NoSuchTopic')), undefined);
  });

  it('SET_MESSAGE_REQUEST_MODE refuses a retry topic, an unknown topic and a malformed group with Java codes', async () => {
    const retry = await setMode(`%RETRY%${group}`, group, 'POP');
    assert.equal(retry.code, ResponseCode.NO_PERMISSION);
    assert.equal(retry.remark, 'retry topic is not allowed to set mode');
    const missing = await setMode('NoSuchTopic_x', group, 'POP');
    assert.equal(missing.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.equal(missing.remark, 'topic[NoSuchTopic_x] not exist');
    const badGroup = await setMode(topic, 'bad group!', 'POP');
    assert.equal(badGroup.code, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
    const noBody = await rpc.request(RequestCode.SET_MESSAGE_REQUEST_MODE);
    assert.notEqual(noBody.code, ResponseCode.SUCCESS);
  });

  it('POP with popShareQueueNum 0: every client gets every broker as queueId −1; a retry topic stays PULL', async () => {
    const set = await setMode(topic, group, 'POP', 0);
    assert.equal(set.code, ResponseCode.SUCCESS, set.remark);
    const [a, b] = cluster.brokers.map((x) => x.name).sort();
    const expected = [`${topic}@${a}@-1:POP`, `${topic}@${b}@-1:POP`];
    assert.deepEqual(keys(await query('127.0.0.1@c1')), expected);
    assert.deepEqual(keys(await query('127.0.0.1@c2')), expected);
    await cluster.createTopic(`%RETRY%${group}`, 1);
    const retry = await query('127.0.0.1@c1', `%RETRY%${group}`);
    assert.ok(retry !== undefined && retry.every((x) => x.mode === 'PULL'));
  });

  it('the mode survives a broker restart (config/messageRequestMode.json)', async () => {
    const name = cluster.brokers[0]!.name;
    rpc.close();
    for (const m of members) m.close();
    await cluster.stopBroker(name);
    await cluster.startBroker(name);
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    members = [];
    const m = await Rpc.connect(cluster.brokers[0]!.addr);
    await m.request(RequestCode.HEART_BEAT, undefined, heartbeatBody('127.0.0.1@c1', group, [{ topic }]));
    members.push(m);
    const got = await query('127.0.0.1@c1');
    assert.ok(
      got !== undefined &&
        got.length === 2 &&
        got.every((x) => x.mode === 'POP' && x.messageQueue.queueId === -1),
    );
  });
});

describe('allocate4Pop (Java QueryAssignmentProcessor)', () => {
  const mqAll = ['a0', 'a1', 'b0', 'b1'].map((s) => ({
    topic: 'T',
    brokerName: s[0]!,
    queueId: Number(s[1]),
  }));
  const avg = (clientId: string, mqs: readonly (typeof mqAll)[number][], cids: readonly string[]) => {
    // AVG over 4 queues and 3 clients: 2, 1, 1.
    const i = cids.indexOf(clientId);
    return i === 0 ? [mqs[0]!, mqs[1]!] : [mqs[i + 1]!];
  };
  const ids = (r: Array<{ brokerName: string; queueId: number }>): string[] =>
    r.map((q) => `${q.brokerName}${q.queueId}`);

  it('popShareQueueNum N: its own share plus that of the N clients after it', () => {
    assert.deepEqual(ids(allocate4Pop(avg, 'c1', mqAll, ['c1', 'c2', 'c3'], 1)), ['a0', 'a1', 'b0']);
    assert.deepEqual(ids(allocate4Pop(avg, 'c3', mqAll, ['c1', 'c2', 'c3'], 1)), ['b1', 'a0', 'a1']);
  });

  it('N ≥ clients − 1 or N ≤ 0: every broker as queueId −1', () => {
    assert.deepEqual(ids(allocate4Pop(avg, 'c1', mqAll, ['c1', 'c2', 'c3'], 2)), ['a-1', 'b-1']);
    assert.deepEqual(ids(allocate4Pop(avg, 'c1', mqAll, ['c1', 'c2', 'c3'], -1)), ['a-1', 'b-1']);
  });

  it('more clients than queues: one queue each, by position', () => {
    const cids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    assert.deepEqual(ids(allocate4Pop(avg, 'c6', mqAll, cids, 1)), ['a1']);
    assert.deepEqual(ids(allocate4Pop(avg, 'cX', mqAll, cids, 1)), []);
  });
});
