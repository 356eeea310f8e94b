import * as assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

/** Writes raw bytes and resolves when the broker closes the socket (or false after 2 s). */
function rawAndWaitClose(addr: string, bytes: Buffer): Promise<boolean> {
  const [host, port] = addr.split(':');
  return new Promise((resolve) => {
    const s: Socket = connect(Number(port), host, () => s.write(bytes));
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, 2000);
    s.on('close', () => {
      clearTimeout(t);
      resolve(true);
    });
    s.on('error', () => undefined);
    s.on('data', () => undefined);
  });
}

function frame(header: string, body = Buffer.alloc(0)): Buffer {
  const h = Buffer.from(header);
  const b = Buffer.alloc(8);
  b.writeInt32BE(4 + h.length + body.length, 0);
  b.writeInt32BE(h.length, 4);
  return Buffer.concat([b, h, body]);
}

describe('a broker fed malformed requests', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  let topic: string;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    topic = uniqueName('BadInput');
    await cluster.createTopic(topic, 2);
  });
  after(async () => {
    rpc.close();
    await cluster.stop();
  });

  it('answers an error for missing headers, garbage numbers and bad bodies, and keeps serving', async () => {
    const good = sendV2Header({ topic, body: 'x' });
    const cases: Array<{
      name: string;
      code: number;
      ext?: Record<string, string>;
      body?: Buffer;
      expect: number;
    }> = [
      {
        name: 'send without headers',
        code: RequestCode.SEND_MESSAGE_V2,
        body: Buffer.from('x'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'send missing topic',
        code: RequestCode.SEND_MESSAGE_V2,
        ext: { ...good, b: '' },
        body: Buffer.from('x'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'send garbage queueId',
        code: RequestCode.SEND_MESSAGE_V2,
        ext: { ...good, e: 'abc' },
        body: Buffer.from('x'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'send huge bornTimestamp',
        code: RequestCode.SEND_MESSAGE_V2,
        ext: { ...good, g: '99999999999999999999999' },
        body: Buffer.from('x'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'V1 send missing producerGroup',
        code: RequestCode.SEND_MESSAGE,
        ext: { topic },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'batch with truncated body',
        code: RequestCode.SEND_BATCH_MESSAGE,
        ext: { ...good, m: 'true' },
        body: Buffer.from([0, 0, 0, 40, 0, 0]),
        expect: ResponseCode.MESSAGE_ILLEGAL,
      },
      {
        name: 'batch with negative length',
        code: RequestCode.SEND_BATCH_MESSAGE,
        ext: { ...good, m: 'true' },
        body: Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
        expect: ResponseCode.MESSAGE_ILLEGAL,
      },
      {
        name: 'empty batch',
        code: RequestCode.SEND_BATCH_MESSAGE,
        ext: { ...good, m: 'true' },
        body: Buffer.alloc(0),
        expect: ResponseCode.MESSAGE_ILLEGAL,
      },
      {
        name: 'heartbeat with bad JSON',
        code: RequestCode.HEART_BEAT,
        body: Buffer.from('{"clientID":'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'heartbeat with JSON array',
        code: RequestCode.HEART_BEAT,
        body: Buffer.from('[1,2]'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      { name: 'heartbeat without body', code: RequestCode.HEART_BEAT, expect: ResponseCode.SYSTEM_ERROR },
      {
        name: 'lock with bad JSON',
        code: RequestCode.LOCK_BATCH_MQ,
        body: Buffer.from('nope'),
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'pull missing queueOffset',
        code: RequestCode.PULL_MESSAGE,
        ext: { consumerGroup: 'g', topic, queueId: '0', maxMsgNums: '1', sysFlag: '0' },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'pull with queueId out of range',
        code: RequestCode.PULL_MESSAGE,
        ext: { consumerGroup: 'g', topic, queueId: '9', queueOffset: '0', maxMsgNums: '1', sysFlag: '0' },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'pull unknown topic',
        code: RequestCode.PULL_MESSAGE,
        ext: {
          consumerGroup: 'g',
          topic: 'NoSuch',
          queueId: '0',
          queueOffset: '0',
          maxMsgNums: '1',
          sysFlag: '0',
        },
        expect: ResponseCode.TOPIC_NOT_EXIST,
      },
      {
        name: 'offset update with garbage',
        code: RequestCode.UPDATE_CONSUMER_OFFSET,
        ext: { consumerGroup: 'g', topic, queueId: '0', commitOffset: '1e3' },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'view by id negative',
        code: RequestCode.VIEW_MESSAGE_BY_ID,
        ext: { offset: '-5' },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'send back for a missing offset',
        code: RequestCode.CONSUMER_SEND_MSG_BACK,
        ext: { offset: '123456789', group: 'g', delayLevel: '0' },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      {
        name: 'create topic with a bad name',
        code: RequestCode.UPDATE_AND_CREATE_TOPIC,
        ext: { topic: 'a b' },
        expect: ResponseCode.SYSTEM_ERROR,
      },
      { name: 'unknown request code', code: 4242, expect: ResponseCode.REQUEST_CODE_NOT_SUPPORTED },
    ];
    for (const c of cases) {
      const r = await rpc.request(c.code, c.ext, c.body);
      assert.equal(r.code, c.expect, `${c.name}: got ${r.code} ${r.remark ?? ''}`);
    }
    const ok = await rpc.request(RequestCode.SEND_MESSAGE_V2, good, Buffer.from('still fine'));
    assert.equal(ok.code, ResponseCode.SUCCESS);
  });

  it('LOCK_BATCH_MQ locks a queue for one client until it unlocks it', async () => {
    const mq = { topic, brokerName: cluster.brokers[0]!.name, queueId: 0 };
    const lock = (clientId: string) =>
      rpc.request(
        RequestCode.LOCK_BATCH_MQ,
        undefined,
        Buffer.from(JSON.stringify({ consumerGroup: 'LockG', clientId, mqSet: [mq] })),
      );
    const lockedSet = (body: Uint8Array | undefined) =>
      (JSON.parse(Buffer.from(body ?? []).toString()) as { lockOKMQSet: unknown[] }).lockOKMQSet;
    assert.deepEqual(lockedSet((await lock('A')).body), [{ brokerName: mq.brokerName, queueId: 0, topic }]);
    assert.deepEqual(lockedSet((await lock('B')).body), []);
    const unlock = await rpc.request(
      RequestCode.UNLOCK_BATCH_MQ,
      undefined,
      Buffer.from(JSON.stringify({ consumerGroup: 'LockG', clientId: 'A', mqSet: [mq] })),
    );
    assert.equal(unlock.code, ResponseCode.SUCCESS);
    assert.equal(lockedSet((await lock('B')).body).length, 1);
    const anonymous = await lock('');
    assert.equal(anonymous.code, ResponseCode.SYSTEM_ERROR);
  });

  it('closes the connection on an oversized or undecodable frame; other clients are unaffected', async () => {
    const addr = cluster.brokers[0]!.addr;
    const huge = Buffer.alloc(8);
    huge.writeInt32BE(0x7fffffff, 0);
    huge.writeInt32BE(10, 4);
    assert.ok(await rawAndWaitClose(addr, huge), 'oversized frame closes the connection');
    const negative = Buffer.alloc(8);
    negative.writeInt32BE(-1, 0);
    assert.ok(await rawAndWaitClose(addr, negative), 'negative length closes the connection');
    assert.ok(
      await rawAndWaitClose(addr, frame('{this is not json')),
      'bad JSON header closes the connection',
    );
    const badHeaderLen = Buffer.alloc(12);
    badHeaderLen.writeInt32BE(8, 0);
    badHeaderLen.writeInt32BE(1000, 4);
    assert.ok(
      await rawAndWaitClose(addr, badHeaderLen),
      'header longer than the frame closes the connection',
    );
    const r = await rpc.request(RequestCode.GET_MAX_OFFSET, { topic, queueId: '0' });
    assert.equal(r.code, ResponseCode.SUCCESS);
  });
});
