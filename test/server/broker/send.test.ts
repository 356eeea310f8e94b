import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { encodeBatch } from '../../../src/protocol/message/batch.js';
import { decodeOffsetMsgId } from '../../../src/protocol/message/message-id.js';
import { decodeProperties, encodeProperties } from '../../../src/protocol/message/properties.js';
import { MessageSysFlag } from '../../../src/protocol/message/sysflag.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { decodeBody, Rpc, sendV2Header, sleep, uniqueName, waitFor } from './rpc-helpers.js';

async function pullAll(
  rpc: Rpc,
  topic: string,
  queueId: number,
  offset = 0,
): Promise<ReturnType<typeof decodeBody>> {
  const r = await rpc.request(RequestCode.PULL_MESSAGE, {
    consumerGroup: 'test-puller',
    topic,
    queueId,
    queueOffset: offset,
    maxMsgNums: 64,
    sysFlag: 0,
    commitOffset: 0,
    suspendTimeoutMillis: 0,
    subVersion: 0,
  });
  return r.code === ResponseCode.SUCCESS ? decodeBody(r) : [];
}

describe('broker send path', () => {
  let cluster: EmbeddedCluster;
  let broker: Rpc;
  let namesrv: Rpc;
  before(async () => {
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      brokerOptions: { maxMessageSize: 64 * 1024, messageDelayLevel: '300ms 1s' },
    });
    broker = await Rpc.connect(cluster.brokers[0]!.addr);
    namesrv = await Rpc.connect(cluster.namesrvAddr);
  });
  after(async () => {
    broker.close();
    namesrv.close();
    await cluster.stop();
  });

  it('SEND_MESSAGE_V2 answers every field the Java client reads and stores CLUSTER but not WAIT', async () => {
    const topic = uniqueName('SendV2');
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body: 'x', queueId: 2, props: { TAGS: 'TagA', KEYS: 'k1' } }),
      Buffer.from('hello'),
    );
    assert.equal(r.code, ResponseCode.SUCCESS);
    const ext = r.extFields ?? {};
    assert.equal(ext.queueId, '2');
    assert.equal(ext.queueOffset, '0');
    assert.equal(ext.MSG_REGION, 'DefaultRegion');
    assert.equal(ext.TRACE_ON, 'true');
    const id = decodeOffsetMsgId(ext.msgId ?? '');
    assert.equal(`${id.host}:${id.port}`, cluster.brokers[0]!.addr);
    const [stored] = await pullAll(broker, topic, 2);
    assert.ok(stored);
    assert.equal(stored.body.toString(), 'hello');
    assert.equal(stored.physicalOffset, id.offset);
    const props = decodeProperties(stored.properties);
    assert.equal(props.TAGS, 'TagA');
    assert.equal(props.KEYS, 'k1');
    assert.equal(props.CLUSTER, 'DefaultCluster');
    assert.equal(props.WAIT, undefined);
  });

  it('SEND_MESSAGE (V1 long names) works the same', async () => {
    const topic = uniqueName('SendV1');
    const ext = {
      producerGroup: 'PG',
      topic,
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: '4',
      queueId: '1',
      sysFlag: '0',
      bornTimestamp: String(Date.now()),
      flag: '7',
      properties: encodeProperties({ WAIT: 'true', TAGS: 'V1' }),
      reconsumeTimes: '0',
      unitMode: 'false',
      batch: 'false',
    };
    const r = await broker.request(RequestCode.SEND_MESSAGE, ext, Buffer.from('v1 body'));
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(r.extFields?.queueId, '1');
    const [stored] = await pullAll(broker, topic, 1);
    assert.equal(stored?.flag, 7);
    assert.equal(stored?.body.toString(), 'v1 body');
  });

  it('auto-creates an unknown topic from TBW102 with min(d, 8) queues, perm 6, persisted and routed at once', async () => {
    const topic = uniqueName('AutoCreate');
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body: 'a' }),
      Buffer.from('a'),
    );
    assert.equal(r.code, ResponseCode.SUCCESS);
    const config = cluster.brokers[0]!.broker.topics.get(topic);
    assert.deepEqual([config?.readQueueNums, config?.writeQueueNums, config?.perm], [4, 4, 6]);
    let route = await namesrv.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic });
    for (let i = 0; i < 20 && route.code !== ResponseCode.SUCCESS; i++) {
      await sleep(25);
      route = await namesrv.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic });
    }
    assert.equal(route.code, ResponseCode.SUCCESS);
    const data = JSON.parse(Buffer.from(route.body ?? []).toString()) as {
      queueDatas: Array<{ perm: number; writeQueueNums: number }>;
    };
    assert.deepEqual(
      data.queueDatas.map((q) => [q.perm, q.writeQueueNums]),
      [[6, 4]],
    );
    const path = join(cluster.dataDirectory, 'broker-a', 'config', 'topics.json');
    await waitFor(
      async () => (await readFile(path, 'utf8').catch(() => '')).includes(topic),
      5000,
      'auto-created topic persisted to topics.json',
    );
  });

  it('SEND_BATCH_MESSAGE stores each record with consecutive offsets and comma-joined msgIds', async () => {
    const topic = uniqueName('Batch');
    const body = encodeBatch([
      {
        body: Buffer.from('one'),
        flag: 0,
        properties: encodeProperties({ TAGS: 'T1', KEYS: 'bk1', UNIQ_KEY: 'AA01' }),
      },
      { body: Buffer.from('two'), flag: 0, properties: encodeProperties({ TAGS: 'T2', UNIQ_KEY: 'AA02' }) },
      { body: Buffer.from('three'), flag: 0, properties: '' },
    ]);
    const header = {
      ...sendV2Header({ topic, body: '', queueId: 0 }),
      i: encodeProperties({ WAIT: 'true', UNIQ_KEY: 'BATCHLEVEL' }),
      m: 'true',
    };
    const r = await broker.request(RequestCode.SEND_BATCH_MESSAGE, header, body);
    assert.equal(r.code, ResponseCode.SUCCESS);
    const ids = (r.extFields?.msgId ?? '').split(',');
    assert.equal(ids.length, 3);
    assert.equal(r.extFields?.queueOffset, '0');
    const stored = await pullAll(broker, topic, 0);
    assert.deepEqual(
      stored.map((m) => m.body.toString()),
      ['one', 'two', 'three'],
    );
    assert.deepEqual(
      stored.map((m) => m.queueOffset),
      [0, 1, 2],
    );
    assert.deepEqual(
      stored.map((m) => decodeOffsetMsgId(ids[m.queueOffset] ?? '').offset),
      stored.map((m) => m.physicalOffset),
    );
    const p0 = decodeProperties(stored[0]!.properties);
    assert.deepEqual(
      [p0.TAGS, p0.KEYS, p0.UNIQ_KEY, p0.WAIT, p0.CLUSTER],
      ['T1', 'bk1', 'AA01', 'true', 'DefaultCluster'],
    );
    assert.equal(
      decodeProperties(stored[1]!.properties).UNIQ_KEY,
      'AA02',
      'a batch-level UNIQ_KEY (5.5 clients) does not replace the inner one',
    );
    assert.equal(decodeProperties(stored[2]!.properties).CLUSTER, 'DefaultCluster');
  });

  it('rejects with the Java codes: size, topic name, forbidden topic, queueId, write permission, bad batch', async () => {
    const big = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: 'SizeTopic', body: '' }),
      Buffer.alloc(64 * 1024 + 1),
    );
    assert.equal(big.code, ResponseCode.MESSAGE_ILLEGAL);
    assert.ok(big.extFields && Object.keys(big.extFields).length > 0, 'extFields never empty');
    const badName = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: 'bad topic!', body: '' }),
      Buffer.from('x'),
    );
    assert.equal(badName.code, ResponseCode.SYSTEM_ERROR);
    const forbidden = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: 'SCHEDULE_TOPIC_XXXX', body: '' }),
      Buffer.from('x'),
    );
    assert.equal(forbidden.code, ResponseCode.NO_PERMISSION);
    assert.equal(forbidden.remark, 'Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.');
    const queueTopic = uniqueName('QueueRange');
    await cluster.createTopic(queueTopic, 2);
    const badQueue = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: queueTopic, body: '', queueId: 5 }),
      Buffer.from('x'),
    );
    assert.equal(badQueue.code, ResponseCode.SYSTEM_ERROR);
    assert.match(badQueue.remark ?? '', /queueId\[5\] is illegal/);
    const readOnly = uniqueName('ReadOnly');
    await cluster.brokers[0]!.broker.createTopic(readOnly, 2, 4);
    const noPerm = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: readOnly, body: '' }),
      Buffer.from('x'),
    );
    assert.equal(noPerm.code, ResponseCode.NO_PERMISSION);
    const header = { ...sendV2Header({ topic: uniqueName('BadBatch'), body: '' }), m: 'true' };
    const badBatch = await broker.request(
      RequestCode.SEND_BATCH_MESSAGE,
      header,
      Buffer.from([0, 0, 0, 99, 1, 2]),
    );
    assert.equal(badBatch.code, ResponseCode.MESSAGE_ILLEGAL);
  });

  it('answers TOPIC_NOT_EXIST when the default topic does not allow inheritance', async () => {
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      { ...sendV2Header({ topic: uniqueName('NoInherit'), body: '' }), c: 'SELF_TEST_TOPIC' },
      Buffer.from('x'),
    );
    assert.equal(r.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.match(r.remark ?? '', /not exist, apply first please!/);
  });

  it('a message with DELAY waits in SCHEDULE_TOPIC_XXXX and reaches its topic after the level delay', async () => {
    const topic = uniqueName('Delayed');
    await cluster.createTopic(topic, 1);
    const sent = Date.now();
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body: '', props: { DELAY: '1' } }),
      Buffer.from('later'),
    );
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.deepEqual(await pullAll(broker, topic, 0), []);
    let got = await pullAll(broker, topic, 0);
    for (let i = 0; i < 40 && got.length === 0; i++) {
      await sleep(50);
      got = await pullAll(broker, topic, 0);
    }
    assert.equal(got.length, 1);
    assert.ok(Date.now() - sent >= 250);
    const props = decodeProperties(got[0]!.properties);
    assert.equal(props.REAL_TOPIC, topic);
    assert.equal(props.DELAY, undefined);
    assert.equal(got[0]!.body.toString(), 'later');
  });

  it('a transactional half message is invisible until END_TRANSACTION commits it; rollback drops it', async () => {
    const topic = uniqueName('Tx');
    await cluster.createTopic(topic, 1);
    const send = (body: string): Promise<Awaited<ReturnType<Rpc['request']>>> =>
      broker.request(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({
          topic,
          body,
          sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
          props: { TRAN_MSG: 'true', PGROUP: 'TxGroup', UNIQ_KEY: body },
        }),
        Buffer.from(body),
      );
    const commit = await send('commit-me');
    const rollback = await send('roll-me-back');
    assert.equal(commit.code, ResponseCode.SUCCESS);
    assert.deepEqual(await pullAll(broker, topic, 0), []);
    const end = (r: typeof commit, type: number): Promise<void> => {
      const ext = {
        producerGroup: 'TxGroup',
        tranStateTableOffset: r.extFields?.queueOffset ?? '0',
        commitLogOffset: String(decodeOffsetMsgId(r.extFields?.msgId ?? '').offset),
        commitOrRollback: String(type),
        fromTransactionCheck: 'false',
        msgId: 'x',
      };
      return broker.conn.oneway({
        code: RequestCode.END_TRANSACTION,
        language: 'JAVA',
        version: 407,
        opaque: 0,
        flag: 0,
        extFields: ext,
        serializeType: 0,
      });
    };
    await end(commit, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    await end(rollback, MessageSysFlag.TRANSACTION_ROLLBACK_TYPE);
    let got = await pullAll(broker, topic, 0);
    for (let i = 0; i < 20 && got.length === 0; i++) {
      await sleep(25);
      got = await pullAll(broker, topic, 0);
    }
    await sleep(100);
    got = await pullAll(broker, topic, 0);
    assert.deepEqual(
      got.map((m) => m.body.toString()),
      ['commit-me'],
    );
  });

  it('GET_BROKER_RUNTIME_INFO answers the KV table mqadmin clusterList reads', async () => {
    const r = await broker.request(28);
    assert.equal(r.code, ResponseCode.SUCCESS);
    const { table } = JSON.parse(Buffer.from(r.body ?? []).toString()) as { table: Record<string, string> };
    assert.equal(table.brokerVersionDesc, 'V4_9_7');
    assert.ok(Number(table.msgPutTotalTodayNow) > 0);
    assert.equal(table.putTps?.split(' ').length, 3);
    assert.ok(Number(table.earliestMessageTimeStamp) > Date.now() - 60_000);
  });
  it('a single message to a MULTI_TAG topic is stored with MULTI_TAGS_FLAG; a SINGLE_TAG one without', async () => {
    const multi = uniqueName('MultiTag');
    const created = await broker.request(RequestCode.UPDATE_AND_CREATE_TOPIC, {
      topic: multi,
      defaultTopic: 'TBW102',
      readQueueNums: '1',
      writeQueueNums: '1',
      perm: '6',
      topicFilterType: 'MULTI_TAG',
      topicSysFlag: '0',
      order: 'false',
    });
    assert.equal(created.code, ResponseCode.SUCCESS, created.remark);
    const single = uniqueName('SingleTag');
    for (const topic of [multi, single]) {
      const r = await broker.request(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic, body: 'x', queueId: 0, props: { TAGS: 'a' } }),
        Buffer.from('x'),
      );
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
    const [m] = await pullAll(broker, multi, 0);
    const [s] = await pullAll(broker, single, 0);
    assert.equal((m?.sysFlag ?? 0) & MessageSysFlag.MULTI_TAGS_FLAG, MessageSysFlag.MULTI_TAGS_FLAG);
    assert.equal((s?.sysFlag ?? -1) & MessageSysFlag.MULTI_TAGS_FLAG, 0);
  });
});
