import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MQVersion, RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../../src/protocol/command.js';
import { decodeOffsetMsgId } from '../../../src/protocol/message/message-id.js';
import { decodeProperties } from '../../../src/protocol/message/properties.js';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { MessageSysFlag } from '../../../src/protocol/message/sysflag.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { decodeBody, pullHeader, Rpc, sendV2Header, uniqueName, waitFor } from './rpc-helpers.js';

const FLAG_SUBSCRIPTION = 0x4;

function heartbeatBody(
  clientID: string,
  group: string,
  subs: Array<{ topic: string; type: string }>,
): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientID,
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: group,
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          subscriptionDataSet: subs.map((s) => ({
            classFilterMode: false,
            codeSet: [],
            expressionType: s.type,
            subString: s.type === 'TAG' ? '*' : 'a > 1',
            subVersion: Date.now(),
            tagsSet: [],
            topic: s.topic,
          })),
          unitMode: false,
        },
      ],
    }),
  );
}

function runtimeTable(r: RemotingCommand): Record<string, string> {
  return (JSON.parse(Buffer.from(r.body ?? []).toString()) as { table: Record<string, string> }).table;
}

describe('a broker checked against the review findings', () => {
  let cluster: EmbeddedCluster;
  let broker: Rpc;
  before(async () => {
    // enablePropertyFilter off (Java's default) for the SQL92 refusal checks below.
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      brokerOptions: { maxReconsumeTimes: 2, enablePropertyFilter: false },
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
  ): Promise<RemotingCommand> {
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body, props }),
      Buffer.from(body),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    return r;
  }

  it('a pull with a SQL92 expression is refused instead of receiving every message unfiltered', async () => {
    const topic = uniqueName('Sql');
    await cluster.createTopic(topic, 1);
    await send(topic, 'x', { TAGS: 'A' });
    const r = await broker.request(
      RequestCode.PULL_MESSAGE,
      pullHeader(topic, 'SqlGroup', FLAG_SUBSCRIPTION, { subscription: 'a > 1', expressionType: 'SQL92' }),
    );
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, 'The broker does not support consumer to filter message by SQL92');
    assert.equal(r.body, undefined);
    const tag = await broker.request(
      RequestCode.PULL_MESSAGE,
      pullHeader(topic, 'SqlGroup', FLAG_SUBSCRIPTION, { subscription: '*', expressionType: 'TAG' }),
    );
    assert.equal(tag.code, ResponseCode.SUCCESS);
  });

  it('a pull without FLAG_SUBSCRIPTION from a group registered with SQL92 is refused too', async () => {
    const topic = uniqueName('SqlReg');
    const group = uniqueName('SqlRegGroup');
    await cluster.createTopic(topic, 1);
    await send(topic, 'x');
    const hb = await broker.request(
      RequestCode.HEART_BEAT,
      undefined,
      heartbeatBody('127.0.0.1@sql', group, [{ topic, type: 'SQL92' }]),
    );
    assert.equal(hb.code, ResponseCode.SUCCESS);
    const r = await broker.request(RequestCode.PULL_MESSAGE, pullHeader(topic, group, 0));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /by SQL92$/);
  });

  it('CHECK_CLIENT_CONFIG refuses a non-TAG subscription and accepts TAG', async () => {
    const body = (expressionType: string | undefined): Buffer =>
      Buffer.from(
        JSON.stringify({
          clientId: '127.0.0.1@c',
          group: 'CfgGroup',
          subscriptionData: { topic: 'T', subString: 'a > 1', expressionType, subVersion: 1 },
        }),
      );
    const sql = await broker.request(RequestCode.CHECK_CLIENT_CONFIG, undefined, body('SQL92'));
    assert.equal(sql.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(sql.remark, 'The broker does not support consumer to filter message by SQL92');
    const tag = await broker.request(RequestCode.CHECK_CLIENT_CONFIG, undefined, body('TAG'));
    assert.equal(tag.code, ResponseCode.SUCCESS);
    const untyped = await broker.request(RequestCode.CHECK_CLIENT_CONFIG, undefined, body(undefined));
    assert.equal(untyped.code, ResponseCode.SUCCESS);
  });

  it('a heartbeat that no longer names a topic removes that subscription', async () => {
    const group = uniqueName('SubGroup');
    const hb = (topics: string[]): Promise<RemotingCommand> =>
      broker.request(
        RequestCode.HEART_BEAT,
        undefined,
        heartbeatBody(
          '127.0.0.1@subs',
          group,
          topics.map((topic) => ({ topic, type: 'TAG' })),
        ),
      );
    await hb(['TA', 'TB']);
    const info = cluster.brokers[0]!.broker.clients.consumerGroup(group);
    assert.deepEqual([...(info?.subscriptions.keys() ?? [])].sort(), ['TA', 'TB']);
    await hb(['TB']);
    assert.deepEqual([...(info?.subscriptions.keys() ?? [])], ['TB']);
  });

  it('CONSUMER_SEND_MSG_BACK honours the header maxReconsumeTimes only from MQVersion V3_4_9 (121) on', async () => {
    const topic = uniqueName('Ver');
    await cluster.createTopic(topic, 1);
    const backAs = async (version: number, group: string): Promise<string> => {
      const sent = await send(topic, `v${version}`);
      const offset = decodeOffsetMsgId(sent.extFields?.msgId ?? '').offset;
      const request = createRequest(
        RequestCode.CONSUMER_SEND_MSG_BACK,
        { offset, group, delayLevel: 0, unitMode: 'false', maxReconsumeTimes: 0 },
        undefined,
        { language: 'JAVA', version, serializeType: 0 },
      );
      const r = await broker.conn.request(request, 5000);
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      // maxReconsumeTimes 0 from the header sends a first retry straight to the DLQ.
      const dlq = await broker.request(RequestCode.PULL_MESSAGE, pullHeader(`%DLQ%${group}`, group, 0));
      return dlq.code === ResponseCode.SUCCESS ? 'dlq' : 'retry';
    };
    assert.equal(MQVersion.V3_4_9, 121);
    assert.equal(await backAs(100, uniqueName('OldClient')), 'retry');
    assert.equal(await backAs(MQVersion.V3_4_9, uniqueName('NewClient')), 'dlq');
  });

  it('a committed transaction message loses REAL_TOPIC/REAL_QID and carries WAIT=false', async () => {
    const topic = uniqueName('TxProps');
    await cluster.createTopic(topic, 1);
    const half = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({
        topic,
        body: 'tx',
        sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
        props: { TRAN_MSG: 'true', PGROUP: 'TxPropsGroup', UNIQ_KEY: uniqueName('u') },
      }),
      Buffer.from('tx'),
    );
    assert.equal(half.code, ResponseCode.SUCCESS);
    await broker.conn.oneway(
      createRequest(RequestCode.END_TRANSACTION, {
        producerGroup: 'TxPropsGroup',
        tranStateTableOffset: half.extFields?.queueOffset ?? '0',
        commitLogOffset: String(decodeOffsetMsgId(half.extFields?.msgId ?? '').offset),
        commitOrRollback: String(MessageSysFlag.TRANSACTION_COMMIT_TYPE),
        fromTransactionCheck: 'false',
        msgId: 'x',
      }),
    );
    let got: ReturnType<typeof decodeBody> = [];
    await waitFor(
      async () => {
        got = decodeBody(await broker.request(RequestCode.PULL_MESSAGE, pullHeader(topic, 'TxReader', 0)));
        return got.length > 0;
      },
      5000,
      'committed message visible',
    );
    const props = decodeProperties(got[0]!.properties);
    assert.equal(props.REAL_TOPIC, undefined);
    assert.equal(props.REAL_QID, undefined);
    assert.equal(props.TRAN_MSG, undefined);
    assert.equal(props.WAIT, 'false');
  });

  it('QUERY_MESSAGE reports the physical offset and store time of the last indexed message', async () => {
    const topic = uniqueName('Idx');
    await cluster.createTopic(topic, 1);
    const key = uniqueName('k');
    await send(topic, 'first', { KEYS: key });
    const last = await send(topic, 'second', { KEYS: key });
    const lastOffset = decodeOffsetMsgId(last.extFields?.msgId ?? '').offset;
    const record = await cluster.brokers[0]!.broker.store.readMessageAt(lastOffset);
    const storeTimestamp = decodeStoredMessage(record!).message.storeTimestamp;
    const r = await broker.request(RequestCode.QUERY_MESSAGE, {
      topic,
      key,
      maxNum: 32,
      beginTimestamp: 0,
      endTimestamp: Date.now() + 60_000,
    });
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.equal(Number(r.extFields?.indexLastUpdatePhyoffset), lastOffset);
    assert.equal(Number(r.extFields?.indexLastUpdateTimestamp), storeTimestamp);
  });

  it('GET_BROKER_RUNTIME_INFO computes the disk ratio and leaves out figures it cannot know', async () => {
    const r = await broker.request(RequestCode.GET_BROKER_RUNTIME_INFO);
    const table = runtimeTable(r);
    const ratio = Number(table.commitLogDiskRatio);
    assert.ok(ratio > 0 && ratio <= 1, `commitLogDiskRatio ${table.commitLogDiskRatio}`);
    for (const key of [
      'sendThreadPoolQueueSize',
      'pullThreadPoolQueueSize',
      'sendThreadPoolQueueHeadWaitTimeMills',
      'pullThreadPoolQueueHeadWaitTimeMills',
      'pageCacheLockTimeMills',
    ])
      assert.equal(table[key], undefined, key);
    // Java's morning totals stay 0 until the first midnight after boot.
    assert.equal(table.msgPutTotalTodayMorning, '0');
  });

  it('a lock held by a consumer whose connection closes is released', async () => {
    const group = uniqueName('LockGroup');
    const mq = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
    const lock = async (rpc: Rpc, clientId: string): Promise<number> => {
      const r = await rpc.request(
        RequestCode.LOCK_BATCH_MQ,
        undefined,
        Buffer.from(JSON.stringify({ consumerGroup: group, clientId, mqSet: [mq] })),
      );
      return (JSON.parse(Buffer.from(r.body ?? []).toString()) as { lockOKMQSet: unknown[] }).lockOKMQSet
        .length;
    };
    const first = await Rpc.connect(cluster.brokers[0]!.addr);
    await first.request(
      RequestCode.HEART_BEAT,
      undefined,
      heartbeatBody('127.0.0.1@first', group, [{ topic: 'T', type: 'TAG' }]),
    );
    assert.equal(await lock(first, '127.0.0.1@first'), 1);
    assert.equal(await lock(broker, '127.0.0.1@second'), 0);
    first.close();
    const locks = cluster.brokers[0]!.broker.clients.locks;
    await waitFor(() => locks.holder(group, mq) === undefined, 5000, 'lock released on disconnect');
    assert.equal(await lock(broker, '127.0.0.1@second'), 1);
  });
});

describe('a broker whose first message has an IPv6 born host', () => {
  it('reports that message store time as earliestMessageTimeStamp', async () => {
    const cluster = await EmbeddedCluster.start({ brokers: 1 });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const b = cluster.brokers[0]!.broker;
      await cluster.createTopic('V6Topic', 1);
      const put = await b.putMessage({
        topic: 'V6Topic',
        queueId: 0,
        flag: 0,
        sysFlag: MessageSysFlag.BORNHOST_V6_FLAG,
        bornTimestamp: 1_000,
        bornHost: { address: '::1', port: 4242 },
        storeHost: b.storeHost,
        reconsumeTimes: 0,
        preparedTransactionOffset: 0,
        body: Buffer.from('v6'),
        properties: '',
      });
      assert.equal(put.status, 'PUT_OK');
      const table = runtimeTable(await rpc.request(RequestCode.GET_BROKER_RUNTIME_INFO));
      assert.equal(table.earliestMessageTimeStamp, String(put.storeTimestamp));
    } finally {
      rpc.close();
      await cluster.stop();
    }
  });
});

describe('a read-only broker', () => {
  it('registers its topics with the NameServer without write permission', async () => {
    const cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { brokerPermission: 4 } });
    const ns = await Rpc.connect(cluster.namesrvAddr);
    try {
      await cluster.createTopic('ReadOnlyTopic', 2);
      const route = await ns.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'ReadOnlyTopic' });
      assert.equal(route.code, ResponseCode.SUCCESS, route.remark);
      const data = JSON.parse(Buffer.from(route.body ?? []).toString()) as {
        queueDatas: Array<{ perm: number }>;
      };
      assert.deepEqual(
        data.queueDatas.map((q) => q.perm),
        [4],
      );
    } finally {
      ns.close();
      await cluster.stop();
    }
  });
});
