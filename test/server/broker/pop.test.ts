import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { PopMessageResponse } from '../../../src/protocol/headers/pop.js';
import { encodeBatchAckBody } from '../../../src/protocol/pop/batch-ack.js';
import { parseMsgOffsetInfo, parseStartOffsetInfo } from '../../../src/protocol/pop/extra-info.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, bodyOf, decodeBody, sendV2Header, uniqueName } from './rpc-helpers.js';

interface Env {
  cluster: EmbeddedCluster;
  rpc: Rpc;
  topic: string;
  group: string;
  send(n: number, queueId?: number): Promise<void>;
  pop(extra?: Record<string, string | number | boolean>, timeoutMs?: number): ReturnType<Rpc['request']>;
}

async function withBroker(queues: number, fn: (e: Env) => Promise<void>): Promise<void> {
  const cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { reviveInterval: 100 } });
  const rpc = await Rpc.connect(cluster.broker('broker-a').address);
  try {
    const topic = uniqueName('PopRaw');
    const group = uniqueName('PopRawG');
    await cluster.createTopic(topic, queues);
    let n = 0;
    await fn({
      cluster,
      rpc,
      topic,
      group,
      async send(count, queueId = 0) {
        for (let i = 0; i < count; i++) {
          const r = await rpc.request(
            RequestCode.SEND_MESSAGE_V2,
            sendV2Header({ topic, body: '', queueId }),
            bodyOf(`m${n++}`),
          );
          assert.equal(r.code, ResponseCode.SUCCESS);
        }
      },
      pop(extra = {}, timeoutMs = 5000) {
        return rpc.request(
          RequestCode.POP_MESSAGE,
          {
            consumerGroup: group,
            topic,
            queueId: -1,
            maxMsgNums: 32,
            invisibleTime: 60_000,
            pollTime: 0,
            bornTime: Date.now(),
            initMode: 0,
            ...extra,
          },
          undefined,
          timeoutMs,
        );
      },
    });
  } finally {
    rpc.close();
    await cluster.stop();
  }
}

test('POP_MESSAGE answers with the 5.x header: popTime, startOffsetInfo and msgOffsetInfo per queue', async () => {
  await withBroker(2, async ({ send, pop }) => {
    await send(3, 0);
    await send(2, 1);
    const r = await pop({ invisibleTime: 12_345 });
    assert.equal(r.code, ResponseCode.SUCCESS);
    const h = PopMessageResponse.decode(r.extFields);
    assert.equal(h.invisibleTime, 12_345);
    assert.equal(h.reviveQid, 0);
    assert.equal(h.restNum, 0);
    assert.deepEqual(
      parseStartOffsetInfo(h.startOffsetInfo),
      new Map([
        ['0@0', 0],
        ['0@1', 0],
      ]),
    );
    assert.deepEqual(
      parseMsgOffsetInfo(h.msgOffsetInfo),
      new Map([
        ['0@0', [0, 1, 2]],
        ['0@1', [0, 1]],
      ]),
    );
    assert.equal(decodeBody(r).length, 5);
    const again = await pop();
    assert.equal(again.code, ResponseCode.POLLING_TIMEOUT, 'all five are invisible now');
  });
});

test('POP_MESSAGE rejects more than 32 messages and unknown topics', async () => {
  await withBroker(1, async ({ pop }) => {
    assert.equal((await pop({ maxMsgNums: 33 })).code, ResponseCode.INVALID_PARAMETER);
    assert.equal((await pop({ topic: 'NoSuchTopicHere' })).code, ResponseCode.TOPIC_NOT_EXIST);
    assert.equal((await pop({ queueId: 7 })).code, ResponseCode.INVALID_PARAMETER);
  });
});

test('long polling: a waiting POP is answered when a message arrives, else with POLLING_TIMEOUT', async () => {
  await withBroker(2, async ({ send, pop }) => {
    assert.equal((await pop({ pollTime: 200 })).code, ResponseCode.POLLING_TIMEOUT);
    const waiting = pop({ pollTime: 20_000 }, 30_000);
    await new Promise((r) => setTimeout(r, 200));
    await send(1, 1);
    const r = await waiting;
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(decodeBody(r)[0]?.body.toString(), 'm0');
  });
});

test('long polling: a message that arrives while the POP reads its queues ends the wait at once (its notify is not missed)', async () => {
  await withBroker(1, async ({ cluster, rpc, pop, topic }) => {
    const sendTagged = async (tag: string, body: string): Promise<void> => {
      const header = sendV2Header({ topic, body: '', queueId: 0, props: { TAGS: tag } });
      const r = await rpc.request(RequestCode.SEND_MESSAGE_V2, header, bodyOf(body));
      assert.equal(r.code, ResponseCode.SUCCESS);
    };
    // The POP's read finds only a message its filter rejects; the one it wants is stored (and
    // notified) before that read returns, i.e. before the POP begins to wait.
    await sendTagged('other', 'skipped');
    const store = cluster.broker('broker-a').store;
    const read = store.getMessages.bind(store);
    let arrivedDuringRead = false;
    store.getMessages = async (...args: Parameters<typeof store.getMessages>) => {
      const got = await read(...args);
      if (args[0] === topic && !arrivedDuringRead) {
        arrivedDuringRead = true;
        await sendTagged('wanted', 'arrived during the read');
      }
      return got;
    };
    // A missed notify would leave the POP waiting out its 60 s poll, past the request's 30 s.
    const r = await pop({ pollTime: 60_000, expType: 'TAG', exp: 'wanted' }, 30_000);
    assert.ok(arrivedDuringRead);
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      decodeBody(r).map((m) => m.body.toString()),
      ['arrived during the read'],
    );
  });
});

test('ACK_MESSAGE: once OK, then NO_MESSAGE; offsets outside the queue are NO_MESSAGE too', async () => {
  await withBroker(1, async ({ rpc, topic, group, send, pop }) => {
    await send(1);
    const r = await pop();
    const h = PopMessageResponse.decode(r.extFields);
    const extraInfo = `0 ${h.popTime} ${h.invisibleTime} 0 0 broker-a 0 0`;
    const ack = (offset: number, g = group) =>
      rpc.request(RequestCode.ACK_MESSAGE, { consumerGroup: g, topic, queueId: 0, extraInfo, offset });
    assert.equal((await ack(0, 'SomeOtherGroup')).code, ResponseCode.NO_MESSAGE);
    assert.equal((await ack(0)).code, ResponseCode.SUCCESS);
    assert.equal((await ack(0)).code, ResponseCode.NO_MESSAGE);
    assert.equal((await ack(5)).code, ResponseCode.NO_MESSAGE);
  });
});

test('BATCH_ACK_MESSAGE: two entries of one checkpoint are acked together; an offset named twice is NO_MESSAGE and nothing is applied', async () => {
  await withBroker(1, async ({ cluster, rpc, topic, group, send, pop }) => {
    await send(3);
    const r = await pop();
    assert.equal(r.code, ResponseCode.SUCCESS);
    const h = PopMessageResponse.decode(r.extFields);
    const entry = {
      consumerGroup: group,
      topic,
      retry: '0' as const,
      startOffset: parseStartOffsetInfo(h.startOffsetInfo).get('0@0') ?? -1,
      queueId: 0,
      reviveQueueId: 0,
      popTime: h.popTime,
      invisibleTime: h.invisibleTime,
    };
    const batchAck = (indexes: number[][]) =>
      rpc.request(
        RequestCode.BATCH_ACK_MESSAGE,
        {},
        encodeBatchAckBody({ brokerName: 'broker-a', acks: indexes.map((i) => ({ ...entry, indexes: i })) }),
      );
    const state = cluster.broker('broker-a').pop.state;
    const twice = await batchAck([
      [0, 1],
      [1, 2],
    ]);
    assert.equal(twice.code, ResponseCode.NO_MESSAGE);
    assert.match(twice.remark ?? '', /1 of 4 offsets/);
    assert.equal(state.inflight, 3, 'nothing applied');
    const split = await batchAck([[0, 2], [1]]);
    assert.equal(split.code, ResponseCode.SUCCESS);
    assert.equal(state.inflight, 0);
  });
});

test('NOTIFICATION tells whether the group has a message to pop, waiting up to pollTime', async () => {
  await withBroker(1, async ({ rpc, topic, group, send }) => {
    const notify = (pollTime: number) =>
      rpc.request(RequestCode.NOTIFICATION, {
        consumerGroup: group,
        topic,
        queueId: -1,
        pollTime,
        bornTime: Date.now(),
      });
    const none = await notify(0);
    assert.equal(none.code, ResponseCode.SUCCESS);
    assert.equal(none.extFields?.hasMsg, 'false');
    const waiting = notify(10_000);
    await send(1);
    assert.equal((await waiting).extFields?.hasMsg, 'true');
  });
});

test('the consumer-offset file is never written ahead of the POP state: a POP advanced offset is written only after its checkpoint', async () => {
  await withBroker(1, async ({ cluster, send, pop, topic, group }) => {
    await send(3);
    assert.equal((await pop()).code, ResponseCode.SUCCESS);
    const broker = cluster.broker('broker-a');
    // POP state writes are coalesced (a timer); the offsets file's write barrier flushes it first.
    await broker.store.consumerOffsets.persist();
    const dir = join(broker.options.storePathRootDir, 'config');
    const offsets = JSON.parse(await readFile(join(dir, 'consumerOffset.json'), 'utf8')) as {
      offsetTable: Record<string, Record<string, number>>;
    };
    assert.equal(offsets.offsetTable[`${topic}@${group}`]?.['0'], 3);
    const state = JSON.parse(await readFile(join(dir, 'pop.json'), 'utf8')) as {
      checkpoints: Array<{ offsets: number[] }>;
    };
    assert.deepEqual(
      state.checkpoints.map((c) => c.offsets),
      [[0, 1, 2]],
    );
  });
});

test('POP state is written to config/pop.json and read back after a restart', async () => {
  await withBroker(1, async ({ cluster, send, pop }) => {
    await send(2);
    assert.equal((await pop()).code, ResponseCode.SUCCESS);
    const broker = cluster.broker('broker-a');
    await broker.pop.state.settled();
    const file = JSON.parse(
      await readFile(join(broker.options.storePathRootDir, 'config', 'pop.json'), 'utf8'),
    ) as {
      checkpoints: Array<{ offsets: number[] }>;
    };
    assert.deepEqual(
      file.checkpoints.map((c) => c.offsets),
      [[0, 1]],
    );
    await cluster.stopBroker('broker-a');
    await cluster.startBroker('broker-a');
    assert.equal(cluster.broker('broker-a').pop.state.inflight, 2);
  });
});
