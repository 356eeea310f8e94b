/**
 * RECALL_MESSAGE (370) on the embedded broker, raw over remoting: Java RecallMessageProcessor's
 * checks in its order and with its remarks (what a client never gets to send because it checks
 * first), and the send response's recallHandle built as SendMessageProcessor.attachRecallHandle.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { decodeProperties } from '../../../src/protocol/message/properties.js';
import { decodeRecallHandle, encodeRecallHandle } from '../../../src/protocol/message/recall-handle.js';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { TIMER_TOPIC } from '../../../src/server/broker/timer-service.js';
import { Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

describe('RECALL_MESSAGE on the embedded broker', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  before(async () => {
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      brokerOptions: { recallMessageEnable: true, timerMaxDelaySec: 600 },
    });
    rpc = await Rpc.connect(cluster.broker('broker-a').address);
  });
  after(async () => {
    rpc.close();
    await cluster.stop();
  });

  const timerSend = async (topic: string, uniq: string, delayMs: number) => {
    const props = { UNIQ_KEY: uniq, TIMER_DELAY_MS: String(delayMs) };
    const r = await rpc.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body: 'x', props }),
      Buffer.from('x'),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    return r;
  };
  const recall = (ext: Record<string, string>) => rpc.request(RequestCode.RECALL_MESSAGE, ext);

  it('the send response of a timer message carries v1 <topic> <broker> <TIMER_OUT_MS + 1> <UNIQ_KEY>', async () => {
    const topic = uniqueName('RecallRaw');
    await cluster.createTopic(topic, 1);
    const r = await timerSend(topic, 'UNIQ0001', 60_000);
    const handle = decodeRecallHandle(r.extFields?.['recallHandle']);
    assert.ok(handle);
    const wheel = await cluster.broker('broker-a').store.getMessages(TIMER_TOPIC, 0, 0, 10_000);
    const parked = wheel.messages
      .map((rec) => decodeProperties(decodeStoredMessage(rec).message.properties))
      .find((p) => p['UNIQ_KEY'] === 'UNIQ0001');
    assert.ok(parked, 'the message waits in the wheel');
    assert.deepEqual(handle, {
      version: 'v1',
      topic,
      brokerName: 'broker-a',
      timestamp: String(Number(parked['TIMER_OUT_MS']) + 1),
      messageId: 'UNIQ0001',
    });
  });

  it('checks in Java order with Java remarks; success answers the msgId and parks a _RECALL_TAG_ marker', async () => {
    const topic = uniqueName('RecallChecks');
    await cluster.createTopic(topic, 1);
    const r = await timerSend(topic, 'UNIQ0002', 60_000);
    const good = r.extFields?.['recallHandle'] ?? '';
    const h = decodeRecallHandle(good)!;
    const withTime = (t: string) => encodeRecallHandle({ ...h, timestamp: t });
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ topic: uniqueName('Nope'), recallHandle: good }, ResponseCode.TOPIC_NOT_EXIST, 'not exist'],
      [{ topic, recallHandle: 'garbage!' }, ResponseCode.ILLEGAL_OPERATION, 'recall handle is invalid'],
      [
        { topic, recallHandle: encodeRecallHandle({ ...h, topic: 'Other' }) },
        ResponseCode.ILLEGAL_OPERATION,
        'recall failed, topic not match',
      ],
      [
        { topic, recallHandle: encodeRecallHandle({ ...h, brokerName: 'broker-q' }) },
        ResponseCode.ILLEGAL_OPERATION,
        'recall failed, broker service not available',
      ],
      [
        { topic, recallHandle: withTime(String(Date.now() - 1)) },
        ResponseCode.ILLEGAL_OPERATION,
        'timestamp invalid',
      ],
      [{ topic, recallHandle: withTime('soon') }, ResponseCode.ILLEGAL_OPERATION, 'timestamp invalid'],
      [
        { topic, recallHandle: withTime(String(Date.now() + 601_000)) },
        ResponseCode.ILLEGAL_OPERATION,
        'timestamp invalid',
      ],
    ];
    for (const [ext, code, remark] of cases) {
      const resp = await recall(ext);
      assert.equal(resp.code, code, `${JSON.stringify(ext)}: ${resp.remark}`);
      assert.ok(resp.remark?.includes(remark), `${resp.remark} should say ${remark}`);
    }
    const ok = await recall({ producerGroup: 'PGRaw', topic, recallHandle: good, bname: 'broker-a' });
    assert.equal(ok.code, ResponseCode.SUCCESS, ok.remark);
    assert.equal(ok.extFields?.['msgId'], 'UNIQ0002');
    const wheel = await cluster.broker('broker-a').store.getMessages(TIMER_TOPIC, 0, 0, 10_000);
    const marker = wheel.messages
      .map((rec) => decodeProperties(decodeStoredMessage(rec).message.properties))
      .find((p) => p['TIMER_DEL_UNIQKEY'] === 'UNIQ0002');
    assert.ok(marker, 'the marker is in the wheel');
    assert.equal(marker['TAGS'], '_RECALL_TAG_');
    assert.equal(marker['REAL_TOPIC'], topic);
    assert.equal(marker['TIMER_DELIVER_MS'], h.timestamp);
    assert.equal(marker['PGROUP'], 'PGRaw');
  });

  it('recall off: NO_PERMISSION "recall failed, operation is forbidden" before anything else', async () => {
    const off = await EmbeddedCluster.start({ brokers: 1 });
    const conn = await Rpc.connect(off.broker('broker-a').address);
    try {
      const resp = await conn.request(RequestCode.RECALL_MESSAGE, { topic: 'Missing', recallHandle: 'x' });
      assert.equal(resp.code, ResponseCode.NO_PERMISSION);
      assert.equal(resp.remark, 'recall failed, operation is forbidden');
    } finally {
      conn.close();
      await off.stop();
    }
  });
});
