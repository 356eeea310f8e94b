import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mqKey } from '../../../src/protocol/body/message-queue-map.js';
import { parseConsumeStats, parseConsumerConnection } from '../../../src/protocol/body/consumer-admin.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import type { RemotingCommand } from '../../../src/protocol/command.js';
import type { EmbeddedCluster } from '../../../src/server/cluster.js';
import {
  brokerWithTopic,
  heartbeatBody,
  pullHeader,
  type Rpc,
  sendV2Header,
  sleep,
  uniqueName,
} from './rpc-helpers.js';

const FLAG_COMMIT_OFFSET = 0x1;
const FLAG_SUSPEND = 0x2;

describe('consumer admin codes and offset rules on the embedded broker', () => {
  let cluster: EmbeddedCluster;
  let broker: Rpc;
  let topic: string;
  let stop: () => Promise<void>;
  before(async () => {
    ({ cluster, broker, topic, stop } = await brokerWithTopic('AdminTopic', 2));
  });
  after(() => stop());

  async function send(body: string, queueId: number): Promise<RemotingCommand> {
    const r = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic, body, queueId, props: { TAGS: 'TagA' } }),
      Buffer.from(body),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    return r;
  }

  it('GET_CONSUMER_CONNECTION_LIST answers CONSUMER_NOT_ONLINE, then lists the members and the subscription', async () => {
    const group = uniqueName('ConnGroup');
    const none = await broker.request(RequestCode.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: group });
    assert.equal(none.code, ResponseCode.CONSUMER_NOT_ONLINE);
    assert.equal(none.remark, `the consumer group[${group}] not online`);
    const hb = await broker.request(
      RequestCode.HEART_BEAT,
      undefined,
      heartbeatBody(
        '127.0.0.1@admin',
        group,
        [
          {
            topic,
            subString: 'TagA || TagB',
            subVersion: 1_700_000_000_000,
            tagsSet: ['TagA', 'TagB'],
            codeSet: [2598919, 2598920],
          },
        ],
        'CONSUME_FROM_FIRST_OFFSET',
      ),
    );
    assert.equal(hb.code, ResponseCode.SUCCESS);
    const r = await broker.request(RequestCode.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: group });
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    const c = parseConsumerConnection(r.body!);
    assert.equal(c.connectionSet.length, 1);
    assert.equal(c.connectionSet[0]!.clientId, '127.0.0.1@admin');
    assert.match(c.connectionSet[0]!.clientAddr, /^127\.0\.0\.1:\d+$/);
    assert.equal(c.connectionSet[0]!.language, 'JAVA');
    assert.deepEqual(
      [c.consumeType, c.messageModel, c.consumeFromWhere],
      ['CONSUME_PASSIVELY', 'CLUSTERING', 'CONSUME_FROM_FIRST_OFFSET'],
    );
    // The group also subscribes its retry topic only when the client says so; here just the topic.
    assert.deepEqual(Object.keys(c.subscriptionTable), [topic]);
    assert.deepEqual(c.subscriptionTable[topic], {
      topic,
      subString: 'TagA || TagB',
      tagsSet: ['TagA', 'TagB'],
      codeSet: [2598919, 2598920],
      subVersion: 1_700_000_000_000,
      expressionType: 'TAG',
      classFilterMode: false,
    });
    await broker.request(RequestCode.UNREGISTER_CLIENT, {
      clientID: '127.0.0.1@admin',
      consumerGroup: group,
    });
  });

  it('GET_CONSUME_STATS reports broker and consumer offsets per queue with the last consumed store time', async () => {
    const group = uniqueName('StatsGroup');
    for (let i = 0; i < 3; i++) await send(`q0-${i}`, 0);
    await send('q1-0', 1);
    await broker.request(RequestCode.UPDATE_CONSUMER_OFFSET, {
      consumerGroup: group,
      topic,
      queueId: 0,
      commitOffset: 2,
    });
    const headers: Array<Record<string, string>> = [
      { consumerGroup: group, topic },
      { consumerGroup: group },
    ];
    for (const header of headers) {
      const r = await broker.request(RequestCode.GET_CONSUME_STATS, header);
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      const stats = parseConsumeStats(r.body!);
      const q0 = stats.offsetTable.get(mqKey({ topic, brokerName: 'broker-a', queueId: 0 }))?.value;
      const q1 = stats.offsetTable.get(mqKey({ topic, brokerName: 'broker-a', queueId: 1 }))?.value;
      assert.equal(q0?.brokerOffset, 3);
      assert.equal(q0?.consumerOffset, 2);
      assert.ok(q0.lastTimestamp > 0 && q0.lastTimestamp <= Date.now());
      assert.deepEqual(q1, { brokerOffset: 1, consumerOffset: 0, lastTimestamp: 0, popInflight: 0 });
      assert.equal(stats.offsetTable.size, 2);
    }
    const unknown = await broker.request(RequestCode.GET_CONSUME_STATS, {
      consumerGroup: uniqueName('Nobody'),
    });
    assert.equal(unknown.code, ResponseCode.SUCCESS);
    assert.equal(parseConsumeStats(unknown.body!).offsetTable.size, 0);
  });

  it('a suspended pull stores its commitOffset on the first pass only', async () => {
    const group = uniqueName('CommitGroup');
    const empty = uniqueName('CommitTopic');
    await cluster.createTopic(empty, 1);
    const held = broker.request(
      RequestCode.PULL_MESSAGE,
      pullHeader(empty, group, FLAG_COMMIT_OFFSET | FLAG_SUSPEND, {
        commitOffset: '1',
        suspendTimeoutMillis: '5000',
      }),
      undefined,
      10_000,
    );
    const query = async (): Promise<string | undefined> =>
      (
        await broker.request(RequestCode.QUERY_CONSUMER_OFFSET, {
          consumerGroup: group,
          topic: empty,
          queueId: 0,
        })
      ).extFields?.offset;
    for (let i = 0; i < 40 && (await query()) !== '1'; i++) await sleep(25);
    assert.equal(await query(), '1', 'stored when the pull arrived');
    // Meanwhile the consumer commits further; the woken pull must not move it back.
    await broker.request(RequestCode.UPDATE_CONSUMER_OFFSET, {
      consumerGroup: group,
      topic: empty,
      queueId: 0,
      commitOffset: 5,
    });
    const wake = await broker.request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: empty, body: 'wake', queueId: 0 }),
      Buffer.from('wake'),
    );
    assert.equal(wake.code, ResponseCode.SUCCESS);
    const r = await held;
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(await query(), '5');
  });
});
