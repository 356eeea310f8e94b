import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { decodeOffsetMsgId } from '../../../src/protocol/message/message-id.js';
import { decodeProperties } from '../../../src/protocol/message/properties.js';
import type { RemotingCommand } from '../../../src/protocol/command.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { decodeBody, Rpc, sendV2Header, sleep, uniqueName } from './rpc-helpers.js';

const FLAG_SUSPEND = 0x2;
const FLAG_SUBSCRIPTION = 0x4;

function pull(
  rpc: Rpc,
  a: {
    topic: string;
    queueId?: number;
    offset?: number;
    group?: string;
    sysFlag?: number;
    suspendMs?: number;
    subscription?: string;
  },
): Promise<RemotingCommand> {
  const ext: Record<string, string> = {
    consumerGroup: a.group ?? 'CG',
    topic: a.topic,
    queueId: String(a.queueId ?? 0),
    queueOffset: String(a.offset ?? 0),
    maxMsgNums: '32',
    sysFlag: String(a.sysFlag ?? 0),
    commitOffset: '0',
    suspendTimeoutMillis: String(a.suspendMs ?? 0),
    subVersion: '0',
  };
  if (a.subscription !== undefined) ext.subscription = a.subscription;
  return rpc.request(RequestCode.PULL_MESSAGE, ext, undefined, 10_000);
}

describe('broker consume path', () => {
  let cluster: EmbeddedCluster;
  let broker: Rpc;
  before(async () => {
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      brokerOptions: { messageDelayLevel: '50ms 50ms 50ms 50ms 50ms 50ms', maxReconsumeTimes: 2 },
    });
    broker = await Rpc.connect(cluster.brokers[0]!.addr);
  });
  after(async () => {
    broker.close();
    await cluster.stop();
  });

  async function send(
    topic: string,
    body: string,
    props: Record<string, string> = {},
    queueId = 0,
  ): Promise<RemotingCommand> {
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body, queueId, props }),
      Buffer.from(body),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    return r;
  }

  it('a suspended pull returns as soon as a message arrives', async () => {
    const topic = uniqueName('LongPoll');
    await cluster.createTopic(topic, 1);
    const started = Date.now();
    const pending = pull(broker, { topic, sysFlag: FLAG_SUSPEND, suspendMs: 5000 });
    await sleep(150);
    await send(topic, 'wake up');
    const r = await pending;
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.ok(Date.now() - started < 4000, 'answered before the suspend timeout');
    assert.deepEqual(
      decodeBody(r).map((m) => m.body.toString()),
      ['wake up'],
    );
    assert.equal(r.extFields?.nextBeginOffset, '1');
    assert.equal(r.extFields?.suggestWhichBrokerId, '0');
    assert.equal(r.extFields?.minOffset, '0');
    assert.equal(r.extFields?.maxOffset, '1');
  });

  it('a suspended pull answers PULL_NOT_FOUND when its suspend time is up', async () => {
    const topic = uniqueName('LongPollTimeout');
    await cluster.createTopic(topic, 1);
    const started = Date.now();
    const r = await pull(broker, { topic, sysFlag: FLAG_SUSPEND, suspendMs: 300 });
    assert.equal(r.code, ResponseCode.PULL_NOT_FOUND);
    assert.ok(Date.now() - started >= 250);
    const moved = await pull(broker, { topic, offset: 5 });
    assert.equal(moved.code, ResponseCode.PULL_OFFSET_MOVED);
  });

  it('a consumer that disconnects during a suspended pull releases the hold', async () => {
    const topic = uniqueName('HoldRelease');
    await cluster.createTopic(topic, 1);
    const other = await Rpc.connect(cluster.brokers[0]!.addr);
    const held = pull(other, { topic, sysFlag: FLAG_SUSPEND, suspendMs: 10_000 }).catch((err: Error) => err);
    const hold = cluster.broker('broker-a').pullHold;
    for (let i = 0; i < 40 && hold.size === 0; i++) await sleep(10);
    assert.equal(hold.size, 1);
    other.close();
    assert.ok((await held) instanceof Error);
    for (let i = 0; i < 40 && hold.size > 0; i++) await sleep(10);
    assert.equal(hold.size, 0);
  });

  it('filters by tag expression using tagsCode', async () => {
    const topic = uniqueName('Tags');
    await cluster.createTopic(topic, 1);
    await send(topic, 'a', { TAGS: 'TagA' });
    await send(topic, 'b', { TAGS: 'TagB' });
    await send(topic, 'c', { TAGS: 'TagC' });
    const r = await pull(broker, { topic, sysFlag: FLAG_SUBSCRIPTION, subscription: 'TagA || TagC' });
    assert.deepEqual(
      decodeBody(r).map((m) => m.body.toString()),
      ['a', 'c'],
    );
    assert.equal(r.extFields?.nextBeginOffset, '3');
    const none = await pull(broker, { topic, sysFlag: FLAG_SUBSCRIPTION, subscription: 'Nope' });
    assert.equal(none.code, ResponseCode.PULL_RETRY_IMMEDIATELY);
    const all = await pull(broker, { topic, sysFlag: FLAG_SUBSCRIPTION, subscription: '*' });
    assert.equal(decodeBody(all).length, 3);
  });

  it('consumer offsets survive a broker restart, max/min/search offsets answer', async () => {
    const topic = uniqueName('Offsets');
    await cluster.createTopic(topic, 2);
    for (let i = 0; i < 3; i++) await send(topic, `m${i}`, {}, 1);
    const group = uniqueName('OffsetGroup');
    const upd = await broker.request(RequestCode.UPDATE_CONSUMER_OFFSET, {
      consumerGroup: group,
      topic,
      queueId: 1,
      commitOffset: 2,
    });
    assert.equal(upd.code, ResponseCode.SUCCESS);
    assert.equal(
      (await broker.request(RequestCode.GET_MAX_OFFSET, { topic, queueId: 1 })).extFields?.offset,
      '3',
    );
    assert.equal(
      (await broker.request(RequestCode.GET_MIN_OFFSET, { topic, queueId: 1 })).extFields?.offset,
      '0',
    );
    assert.equal(
      (await broker.request(RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, { topic, queueId: 1, timestamp: 0 }))
        .extFields?.offset,
      '0',
    );
    const earliest = await broker.request(RequestCode.GET_EARLIEST_MSG_STORETIME, { topic, queueId: 1 });
    assert.ok(Number(earliest.extFields?.timestamp) > 0);
    broker.close();
    await cluster.stopBroker('broker-a');
    await cluster.startBroker('broker-a');
    broker = await Rpc.connect(cluster.brokers[0]!.addr);
    const q = await broker.request(RequestCode.QUERY_CONSUMER_OFFSET, {
      consumerGroup: group,
      topic,
      queueId: 1,
    });
    assert.equal(q.code, ResponseCode.SUCCESS);
    assert.equal(q.extFields?.offset, '2');
    const fresh = await broker.request(RequestCode.QUERY_CONSUMER_OFFSET, {
      consumerGroup: uniqueName('NewGroup'),
      topic,
      queueId: 1,
    });
    assert.equal(fresh.extFields?.offset, '0', 'a new group on a queue starting at 0 begins at 0');
    const r = await pull(broker, { topic, queueId: 1, offset: 2 });
    assert.deepEqual(
      decodeBody(r).map((m) => m.body.toString()),
      ['m2'],
    );
  });

  it('VIEW_MESSAGE_BY_ID and QUERY_MESSAGE by key and by unique key', async () => {
    const topic = uniqueName('Query');
    await cluster.createTopic(topic, 1);
    const key = uniqueName('key');
    const r = await send(topic, 'find me', {
      KEYS: `${key} other`,
      UNIQ_KEY: 'C0A8000A30391B6D35860A1B2C3D0001',
    });
    const offset = decodeOffsetMsgId(r.extFields?.msgId ?? '').offset;
    const view = await broker.request(RequestCode.VIEW_MESSAGE_BY_ID, { offset });
    assert.equal(view.code, ResponseCode.SUCCESS);
    assert.equal(decodeBody(view)[0]?.body.toString(), 'find me');
    const missing = await broker.request(RequestCode.VIEW_MESSAGE_BY_ID, { offset: 999_999_999 });
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    const byKey = await broker.request(RequestCode.QUERY_MESSAGE, {
      topic,
      key,
      maxNum: 32,
      beginTimestamp: 0,
      endTimestamp: Date.now() + 60_000,
    });
    assert.equal(byKey.code, ResponseCode.SUCCESS, byKey.remark);
    assert.deepEqual(
      decodeBody(byKey).map((m) => m.body.toString()),
      ['find me'],
    );
    const byUniq = await broker.request(RequestCode.QUERY_MESSAGE, {
      topic,
      key: 'C0A8000A30391B6D35860A1B2C3D0001',
      maxNum: 32,
      beginTimestamp: 0,
      endTimestamp: Date.now() + 60_000,
      _UNIQUE_KEY_QUERY: 'true',
    });
    assert.equal(decodeBody(byUniq).length, 1);
    const none = await broker.request(RequestCode.QUERY_MESSAGE, {
      topic,
      key: 'absent',
      maxNum: 32,
      beginTimestamp: 0,
      endTimestamp: Date.now() + 60_000,
    });
    assert.equal(none.code, ResponseCode.QUERY_NOT_FOUND);
  });

  it('CONSUMER_SEND_MSG_BACK goes to %RETRY%<group> with the retry properties, then to %DLQ%<group>', async () => {
    const topic = uniqueName('SendBack');
    const group = uniqueName('RetryGroup');
    await cluster.createTopic(topic, 1);
    const sent = await send(topic, 'poison', { TAGS: 'P' });
    let offset = decodeOffsetMsgId(sent.extFields?.msgId ?? '').offset;
    const retryTopic = `%RETRY%${group}`;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const back = await broker.request(RequestCode.CONSUMER_SEND_MSG_BACK, {
        offset,
        group,
        delayLevel: 0,
        originMsgId: sent.extFields?.msgId ?? '',
        originTopic: topic,
        unitMode: 'false',
        maxReconsumeTimes: 2,
      });
      assert.equal(back.code, ResponseCode.SUCCESS, back.remark);
      let got: ReturnType<typeof decodeBody> = [];
      for (let i = 0; i < 60 && got.length < attempt; i++) {
        await sleep(25);
        got = decodeBody(await pull(broker, { topic: retryTopic, group }));
      }
      const m = got[attempt - 1];
      assert.ok(m, `retry message ${attempt} arrived`);
      assert.equal(m.reconsumeTimes, attempt);
      const props = decodeProperties(m.properties);
      assert.equal(props.RETRY_TOPIC, topic);
      assert.equal(props.ORIGIN_MESSAGE_ID, sent.extFields?.msgId);
      assert.equal(props.RECONSUME_TIME, String(attempt));
      assert.equal(m.body.toString(), 'poison');
      offset = m.physicalOffset;
    }
    const last = await broker.request(RequestCode.CONSUMER_SEND_MSG_BACK, {
      offset,
      group,
      delayLevel: 0,
      unitMode: 'false',
      maxReconsumeTimes: 2,
    });
    assert.equal(last.code, ResponseCode.SUCCESS);
    const dlq = decodeBody(await pull(broker, { topic: `%DLQ%${group}`, group }));
    assert.equal(dlq.length, 1);
    assert.equal(dlq[0]?.body.toString(), 'poison');
    assert.equal(decodeProperties(dlq[0]!.properties).ORIGIN_MESSAGE_ID, sent.extFields?.msgId);
  });

  it('heartbeat registers a consumer group, creates its retry topic, and membership changes are announced', async () => {
    const group = uniqueName('HbGroup');
    const heartbeat = (clientID: string): Buffer =>
      Buffer.from(
        JSON.stringify({
          clientID,
          producerDataSet: [{ groupName: 'CLIENT_INNER_PRODUCER' }],
          consumerDataSet: [
            {
              groupName: group,
              consumeType: 'CONSUME_PASSIVELY',
              messageModel: 'CLUSTERING',
              consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
              subscriptionDataSet: [
                {
                  classFilterMode: false,
                  codeSet: [],
                  expressionType: 'TAG',
                  subString: '*',
                  subVersion: 1,
                  tagsSet: [],
                  topic: 'T',
                },
              ],
              unitMode: false,
            },
          ],
        }),
      );
    const notified: string[] = [];
    broker.conn.setRequestHandler((req) => {
      if (req.code === RequestCode.NOTIFY_CONSUMER_IDS_CHANGED)
        notified.push(req.extFields?.consumerGroup ?? '');
      return undefined;
    });
    assert.equal(
      (await broker.request(RequestCode.HEART_BEAT, undefined, heartbeat('127.0.0.1@one'))).code,
      ResponseCode.SUCCESS,
    );
    assert.ok(cluster.brokers[0]!.broker.topics.get(`%RETRY%${group}`));
    const other = await Rpc.connect(cluster.brokers[0]!.addr);
    await other.request(RequestCode.HEART_BEAT, undefined, heartbeat('127.0.0.2@two'));
    const list = await broker.request(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: group });
    assert.deepEqual(
      (
        JSON.parse(Buffer.from(list.body ?? []).toString()) as { consumerIdList: string[] }
      ).consumerIdList.sort(),
      ['127.0.0.1@one', '127.0.0.2@two'],
    );
    other.close();
    for (let i = 0; i < 20 && notified.length < 3; i++) await sleep(25);
    assert.ok(notified.length >= 2, `notified ${notified.length} times`);
    const after = await broker.request(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: group });
    assert.deepEqual(
      (JSON.parse(Buffer.from(after.body ?? []).toString()) as { consumerIdList: string[] }).consumerIdList,
      ['127.0.0.1@one'],
    );
    await broker.request(RequestCode.UNREGISTER_CLIENT, { clientID: '127.0.0.1@one', consumerGroup: group });
    const gone = await broker.request(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: group });
    assert.equal(gone.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(gone.remark, `no consumer for this group, ${group}`);
  });

  it('LOCK_BATCH_MQ grants a queue to one client at a time', async () => {
    const mq = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
    const lock = async (clientId: string): Promise<unknown[]> => {
      const r = await broker.request(
        RequestCode.LOCK_BATCH_MQ,
        undefined,
        Buffer.from(JSON.stringify({ consumerGroup: 'LG', clientId, mqSet: [mq] })),
      );
      return (JSON.parse(Buffer.from(r.body ?? []).toString()) as { lockOKMQSet: unknown[] }).lockOKMQSet;
    };
    assert.equal((await lock('c1')).length, 1);
    assert.equal((await lock('c2')).length, 0);
    await broker.request(
      RequestCode.UNLOCK_BATCH_MQ,
      undefined,
      Buffer.from(JSON.stringify({ consumerGroup: 'LG', clientId: 'c1', mqSet: [mq] })),
    );
    assert.equal((await lock('c2')).length, 1);
  });
});
