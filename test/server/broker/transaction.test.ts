import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import type { RemotingCommand } from '../../../src/protocol/command.js';
import { decodeProperties } from '../../../src/protocol/message/properties.js';
import { MessageSysFlag } from '../../../src/protocol/message/sysflag.js';
import { decodeOffsetMsgId } from '../../../src/protocol/message/message-id.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { decodeBody, Rpc, sendV2Header, sleep, uniqueName } from './rpc-helpers.js';

/** A half message (TRAN_MSG, PGROUP, prepared sysFlag) sent with SEND_MESSAGE_V2. */
function sendHalf(
  rpc: Rpc,
  topic: string,
  group: string,
  uniq: string,
  body: string,
): Promise<RemotingCommand> {
  return rpc.request(
    RequestCode.SEND_MESSAGE_V2,
    sendV2Header({
      topic,
      body,
      group,
      sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
      props: { TRAN_MSG: 'true', PGROUP: group, UNIQ_KEY: uniq },
    }),
    Buffer.from(body),
  );
}

/** END_TRANSACTION (oneway) committing the half message at `commitLogOffset`, as a check answer. */
function commit(
  rpc: Rpc,
  group: string,
  tranStateTableOffset: string,
  commitLogOffset: string,
  msgId: string,
): Promise<void> {
  return rpc.conn.oneway({
    code: RequestCode.END_TRANSACTION,
    language: 'JAVA',
    version: 407,
    opaque: 0,
    flag: 0,
    serializeType: 0,
    extFields: {
      producerGroup: group,
      tranStateTableOffset,
      commitLogOffset,
      commitOrRollback: String(MessageSysFlag.TRANSACTION_COMMIT_TYPE),
      fromTransactionCheck: 'true',
      msgId,
    },
  });
}

describe('transaction check-back', () => {
  it('an unresolved half message is checked with a producer of its group, which can then commit it', async () => {
    const cluster = await EmbeddedCluster.start({
      brokers: 1,
      brokerOptions: { transactionTimeOut: 100, transactionCheckInterval: 100 },
    });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const topic = uniqueName('TxCheck');
      const group = uniqueName('TxPG');
      await cluster.createTopic(topic, 1);
      const checks: RemotingCommand[] = [];
      rpc.conn.setRequestHandler((req) => {
        if (req.code === RequestCode.CHECK_TRANSACTION_STATE) checks.push(req);
        return undefined;
      });
      const hb = { clientID: '127.0.0.9@tx', producerDataSet: [{ groupName: group }], consumerDataSet: [] };
      assert.equal(
        (await rpc.request(RequestCode.HEART_BEAT, undefined, Buffer.from(JSON.stringify(hb)))).code,
        ResponseCode.SUCCESS,
      );
      const sent = await sendHalf(rpc, topic, group, 'TXID1', 'pending');
      assert.equal(sent.code, ResponseCode.SUCCESS);
      for (let i = 0; i < 60 && checks.length === 0; i++) await sleep(25);
      const check = checks[0];
      assert.ok(check, 'CHECK_TRANSACTION_STATE arrived');
      assert.equal(check.extFields?.transactionId, 'TXID1');
      const [half] = decodeBody(check);
      assert.equal(half?.topic, topic, 'the checked message carries its real topic');
      assert.equal(decodeProperties(half?.properties ?? '').PGROUP, group);
      await commit(
        rpc,
        group,
        check.extFields?.tranStateTableOffset ?? '',
        check.extFields?.commitLogOffset ?? '',
        'TXID1',
      );
      const b = cluster.broker('broker-a');
      for (let i = 0; i < 40 && b.store.getMaxOffset(topic, 0) === 0; i++) await sleep(25);
      assert.equal(b.store.getMaxOffset(topic, 0), 1);
      const before = checks.length;
      await sleep(300);
      assert.equal(checks.length, before, 'a resolved half message is not checked again');
    } finally {
      rpc.close();
      await cluster.stop();
    }
  });

  it('two commits of one half message arriving together store it once', async () => {
    const cluster = await EmbeddedCluster.start({ brokers: 1 });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const topic = uniqueName('TxTwice');
      const group = uniqueName('TxPG');
      await cluster.createTopic(topic, 1);
      const sent = await sendHalf(rpc, topic, group, 'TXID2', 'once');
      assert.equal(sent.code, ResponseCode.SUCCESS);
      const commitLogOffset = String(decodeOffsetMsgId(sent.extFields?.msgId ?? '').offset);
      const once = (): Promise<void> =>
        commit(rpc, group, sent.extFields?.queueOffset ?? '', commitLogOffset, 'TXID2');
      await Promise.all([once(), once(), once()]);
      const b = cluster.broker('broker-a');
      for (let i = 0; i < 40 && b.store.getMaxOffset(topic, 0) === 0; i++) await sleep(25);
      await sleep(200);
      assert.equal(b.store.getMaxOffset(topic, 0), 1, 'committed exactly once');
    } finally {
      rpc.close();
      await cluster.stop();
    }
  });
});
