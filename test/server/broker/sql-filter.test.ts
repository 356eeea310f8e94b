import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import type { RemotingCommand } from '../../../src/protocol/command.js';
import { decodeProperties } from '../../../src/protocol/message/properties.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { decodeBody, pullHeader, Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

const FLAG_SUBSCRIPTION = 0x4;

function heartbeat(group: string, topic: string, subString: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientID: `127.0.0.1@${group}`,
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: group,
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          subscriptionDataSet: [
            {
              classFilterMode: false,
              codeSet: [],
              expressionType: 'SQL92',
              subString,
              subVersion: 1,
              tagsSet: [],
              topic,
            },
          ],
          unitMode: false,
        },
      ],
    }),
  );
}

describe('SQL92 filtering on the embedded broker (enablePropertyFilter on by default in EmbeddedCluster)', () => {
  let cluster: EmbeddedCluster;
  let broker: Rpc;
  let topic: string;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    broker = await Rpc.connect(cluster.brokers[0]!.addr);
    topic = uniqueName('SqlTopic');
    await cluster.createTopic(topic, 1);
    const rows: Array<Record<string, string>> = [
      { TAGS: 'TagA', price: '5' },
      { TAGS: 'TagB', price: '15' },
      { TAGS: 'TagA', price: '25' },
      { TAGS: 'TagA' },
      { price: 'cheap' },
    ];
    for (const [i, props] of rows.entries()) {
      const r = await broker.request(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic, body: `m${i}`, props }),
        Buffer.from(`m${i}`),
      );
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
  });
  after(async () => {
    broker.close();
    await cluster.stop();
  });

  const bodies = (r: RemotingCommand): string[] => decodeBody(r).map((m) => Buffer.from(m.body).toString());
  const pullSql = (group: string, subscription: string): Promise<RemotingCommand> =>
    broker.request(
      RequestCode.PULL_MESSAGE,
      pullHeader(topic, group, FLAG_SUBSCRIPTION, { subscription, expressionType: 'SQL92' }),
    );

  it('a pull with a SQL92 subscription gets only the messages whose properties match, TAGS included', async () => {
    const r = await pullSql('SqlPullGroup', "TAGS = 'TagA' AND price > 10");
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.deepEqual(bodies(r), ['m2']);
    assert.equal(decodeProperties(decodeBody(r)[0]!.properties).price, '25');
    assert.equal(r.extFields?.nextBeginOffset, '5');
  });

  it('a batch in which nothing matches answers PULL_RETRY_IMMEDIATELY and moves the offset on', async () => {
    const r = await pullSql('SqlNoneGroup', 'price > 1000');
    assert.equal(r.code, ResponseCode.PULL_RETRY_IMMEDIATELY);
    assert.equal(r.extFields?.nextBeginOffset, '5');
  });

  it('missing properties and unconvertible values do not match, and IS NULL finds them', async () => {
    const between = await pullSql('SqlBetween', 'price BETWEEN 1 AND 20');
    assert.deepEqual(bodies(between), ['m0', 'm1']);
    const isNull = await pullSql('SqlNull', 'price IS NULL');
    assert.deepEqual(bodies(isNull), ['m3']);
  });

  it('a bad expression in the pull answers SUBSCRIPTION_PARSE_FAILED', async () => {
    const r = await pullSql('SqlBad', 'price >');
    assert.equal(r.code, ResponseCode.SUBSCRIPTION_PARSE_FAILED);
  });

  it('a pull without FLAG_SUBSCRIPTION uses the SQL92 subscription the group registered by heartbeat', async () => {
    const group = uniqueName('SqlHbGroup');
    const hb = await broker.request(
      RequestCode.HEART_BEAT,
      undefined,
      heartbeat(group, topic, "TAGS IN ('TagB')"),
    );
    assert.equal(hb.code, ResponseCode.SUCCESS);
    const r = await broker.request(RequestCode.PULL_MESSAGE, pullHeader(topic, group, 0));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.deepEqual(bodies(r), ['m1']);
  });

  it('a registered SQL92 subscription that does not compile answers FILTER_DATA_NOT_EXIST', async () => {
    const group = uniqueName('SqlHbBad');
    await broker.request(RequestCode.HEART_BEAT, undefined, heartbeat(group, topic, 'a = = 1'));
    const r = await broker.request(RequestCode.PULL_MESSAGE, pullHeader(topic, group, 0));
    assert.equal(r.code, ResponseCode.FILTER_DATA_NOT_EXIST);
  });

  it('CHECK_CLIENT_CONFIG accepts a valid SQL92 subscription and rejects a bad one with the parse error', async () => {
    const body = (subString: string): Buffer =>
      Buffer.from(
        JSON.stringify({
          clientId: '127.0.0.1@c',
          group: 'CfgGroup',
          subscriptionData: { topic, subString, expressionType: 'SQL92', subVersion: 1 },
        }),
      );
    const ok = await broker.request(RequestCode.CHECK_CLIENT_CONFIG, undefined, body('a IS NOT NULL'));
    assert.equal(ok.code, ResponseCode.SUCCESS, ok.remark);
    const bad = await broker.request(RequestCode.CHECK_CLIENT_CONFIG, undefined, body("a > 'x'"));
    assert.equal(bad.code, ResponseCode.SUBSCRIPTION_PARSE_FAILED);
    assert.match(bad.remark ?? '', /cannot be compared/);
  });
});
