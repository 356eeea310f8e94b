import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import type { Broker } from '../../../src/server/broker/broker.js';
import { Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

const EVERY_HOUR = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')).join(';');

describe('broker retention', () => {
  let cluster: EmbeddedCluster;
  let broker: Broker;
  let rpc: Rpc;
  before(async () => {
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      // 64 KiB files that expire at once, at any hour: every pass may delete.
      brokerOptions: { mappedFileSizeCommitLog: 64 * 1024, fileReservedTime: 1e-9, deleteWhen: EVERY_HOUR },
    });
    broker = cluster.brokers[0]!.broker;
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
  });
  after(async () => {
    rpc.close();
    await cluster.stop();
  });

  const pull = (topic: string, offset: number) =>
    rpc.request(RequestCode.PULL_MESSAGE, {
      consumerGroup: 'RetentionCG',
      topic,
      queueId: '0',
      queueOffset: String(offset),
      maxMsgNums: '1',
      sysFlag: '0',
      commitOffset: '0',
      suspendTimeoutMillis: '0',
      subVersion: '0',
    });

  it("a pull of a deleted range answers PULL_OFFSET_MOVED with the advanced min offset, and a group's unconsumed range is kept", async () => {
    const topic = uniqueName('Retained');
    await cluster.createTopic(topic, 1);
    for (let i = 0; i < 120; i++) {
      const body = `m${i}`.padEnd(2000, '.');
      const r = await rpc.request(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic, body, queueId: 0 }),
        Buffer.from(body),
      );
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
    const update = await rpc.request(RequestCode.UPDATE_CONSUMER_OFFSET, {
      consumerGroup: 'SlowCG',
      topic,
      queueId: 0,
      commitOffset: 60,
    });
    assert.equal(update.code, ResponseCode.SUCCESS);

    const r = await broker.store.cleanExpiredFiles();
    assert.ok(r.commitLogFilesDeleted > 0, 'old files deleted');
    assert.deepEqual(r.pinnedBy, [`${topic}@SlowCG`]);
    const min = Number(
      (await rpc.request(RequestCode.GET_MIN_OFFSET, { topic, queueId: 0 })).extFields?.offset,
    );
    assert.ok(min > 0 && min <= 60, `min offset ${min}`);

    const moved = await pull(topic, 0);
    assert.equal(moved.code, ResponseCode.PULL_OFFSET_MOVED);
    assert.equal(Number(moved.extFields?.nextBeginOffset), min);
    assert.equal(Number(moved.extFields?.minOffset), min);
    const kept = await pull(topic, 60);
    assert.equal(kept.code, ResponseCode.SUCCESS, 'the group still gets what it has not consumed');
  });
});
