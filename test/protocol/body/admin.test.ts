import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeGroupList,
  encodeProducerConnection,
  encodePropertiesText,
  encodeResetOffsetBody,
  encodeSubscriptionGroupConfig,
  encodeSubscriptionGroupWrapper,
  encodeTopicStatsTable,
  parseGroupList,
  parseProducerConnection,
  parsePropertiesText,
  parseResetOffsetBody,
  parseSubscriptionGroupConfig,
  parseSubscriptionGroupWrapper,
  parseTopicStatsTable,
  subscriptionGroupConfig,
} from '../../../src/protocol/body/admin.js';
import {
  encodeConsumerRunningInfo,
  parseConsumeMessageDirectlyResult,
  parseConsumerRunningInfo,
} from '../../../src/protocol/body/consumer-running-info.js';
import { ProtocolError } from '../../../src/errors.js';

const MQ = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

describe('admin bodies (fastjson form)', () => {
  it('TopicStatsTable: bare MessageQueue keys in queue order, read back by queue', () => {
    const text = encodeTopicStatsTable([
      [
        { ...MQ, queueId: 1 },
        { minOffset: 0, maxOffset: 7, lastUpdateTimestamp: 1700000000001 },
      ],
      [MQ, { minOffset: 2, maxOffset: 3, lastUpdateTimestamp: 0 }],
    ]).toString();
    assert.equal(
      text,
      '{"offsetTable":{' +
        '{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"lastUpdateTimestamp":0,"maxOffset":3,"minOffset":2},' +
        '{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"lastUpdateTimestamp":1700000000001,"maxOffset":7,"minOffset":0}}}',
    );
    const back = parseTopicStatsTable(text);
    assert.deepEqual(back.get('T@broker-a@1')?.value, {
      minOffset: 0,
      maxOffset: 7,
      lastUpdateTimestamp: 1700000000001,
    });
    assert.equal(back.size, 2);
  });

  it('reads a Java 5.x TopicStatsTable with extra fields (topicPutTps) and unquoted keys', () => {
    const java =
      '{"offsetTable":{{"brokerName":"b","queueId":3,"topic":"X"}:{"lastUpdateTimestamp":5,"maxOffset":9,"minOffset":1}},"topicPutTps":0.0}';
    assert.deepEqual(parseTopicStatsTable(java).get('X@b@3')?.value, {
      minOffset: 1,
      maxOffset: 9,
      lastUpdateTimestamp: 5,
    });
  });

  it('GroupList, ResetOffsetBody and ProducerConnection round-trip', () => {
    assert.equal(encodeGroupList(['g1', 'g2']).toString(), '{"groupList":["g1","g2"]}');
    assert.deepEqual(parseGroupList('{"groupList":["a"]}'), ['a']);
    assert.deepEqual(parseGroupList('{}'), []);
    const reset = encodeResetOffsetBody([[MQ, 42]]).toString();
    assert.equal(reset, '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:42}}');
    assert.equal(parseResetOffsetBody(reset).get('T@broker-a@0')?.value, 42);
    const conn = { clientId: '127.0.0.1@1', clientAddr: '127.0.0.1:5000', language: 'JAVA', version: 407 };
    const body = encodeProducerConnection([conn]).toString();
    assert.equal(
      body,
      '{"connectionSet":[{"clientAddr":"127.0.0.1:5000","clientId":"127.0.0.1@1","language":"JAVA","version":407}]}',
    );
    assert.deepEqual(parseProducerConnection(body), [conn]);
  });

  it("SubscriptionGroupConfig: Java's defaults, sorted keys, 5.x fields tolerated", () => {
    const c = subscriptionGroupConfig('G', { retryMaxTimes: 3 });
    assert.equal(
      encodeSubscriptionGroupConfig(c).toString(),
      '{"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,' +
        '"groupName":"G","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":3,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1}',
    );
    assert.deepEqual(parseSubscriptionGroupConfig(encodeSubscriptionGroupConfig(c)), c);
    const java5 =
      '{"groupName":"G5","consumeEnable":false,"groupRetryPolicy":{"type":"CUSTOMIZED"},"consumeMessageOrderly":true,"attributes":{}}';
    const parsed = parseSubscriptionGroupConfig(java5);
    assert.equal(parsed.consumeEnable, false);
    assert.equal(parsed.consumeMessageOrderly, true);
    assert.equal(parsed.retryMaxTimes, 16);
    assert.throws(() => parseSubscriptionGroupConfig('{"consumeEnable":true}'), ProtocolError);
  });

  it('SubscriptionGroupWrapper round-trips with its data version', () => {
    const w = {
      dataVersion: { counter: 4, timestamp: 1700000000000 },
      subscriptionGroupTable: { B: subscriptionGroupConfig('B'), A: subscriptionGroupConfig('A') },
    };
    const text = encodeSubscriptionGroupWrapper(w).toString();
    assert.ok(text.indexOf('"A"') < text.indexOf('"B"'), 'groups sorted');
    const back = parseSubscriptionGroupWrapper(text);
    assert.equal(back.dataVersion.counter, 4);
    assert.deepEqual(back.subscriptionGroupTable, w.subscriptionGroupTable);
  });

  it('properties text: key=value lines as the broker writes, Java Properties.load rules when read', () => {
    assert.equal(encodePropertiesText({ b: '2', a: 'x y' }).toString(), 'a=x y\nb=2\n');
    assert.deepEqual(
      parsePropertiesText(
        '# comment\n! also\n  brokerName=broker-a\nflag : true\nspaced value\nempty=\nuni=\\u0041\\tB\nlong=a\\\n   b\n',
      ),
      { brokerName: 'broker-a', flag: 'true', spaced: 'value', empty: '', uni: 'A\tB', long: 'ab' },
    );
    assert.deepEqual(parsePropertiesText(Buffer.from('k=v=w\r\nx=1')), { k: 'v=w', x: '1' });
  });

  it('ConsumerRunningInfo and ConsumeMessageDirectlyResult are read back from what a client writes', () => {
    const info = {
      properties: { PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY' },
      subscriptionSet: [
        {
          topic: 'T',
          subString: '*',
          tagsSet: [],
          codeSet: [],
          subVersion: 1,
          expressionType: 'TAG',
          classFilterMode: false,
        },
      ],
      mqTable: [
        [
          MQ,
          {
            commitOffset: 5,
            cachedMsgMinOffset: 0,
            cachedMsgMaxOffset: 0,
            cachedMsgCount: 0,
            cachedMsgSizeInMiB: 0,
            transactionMsgMinOffset: 0,
            transactionMsgMaxOffset: 0,
            transactionMsgCount: 0,
            locked: false,
            tryUnlockTimes: 0,
            lastLockTimestamp: 0,
            droped: false,
            lastPullTimestamp: 9,
            lastConsumeTimestamp: 8,
          },
        ] as const,
      ],
      statusTable: {
        T: {
          pullRT: 1,
          pullTPS: 2,
          consumeRT: 3,
          consumeOKTPS: 4,
          consumeFailedTPS: 0,
          consumeFailedMsgs: 0,
        },
      },
    };
    const back = parseConsumerRunningInfo(
      encodeConsumerRunningInfo({ ...info, mqTable: info.mqTable.map(([m, p]) => [m, p]) }),
    );
    assert.deepEqual(back.properties, info.properties);
    assert.equal(back.subscriptionSet[0]?.topic, 'T');
    assert.deepEqual(back.mqTable[0]?.[0], MQ);
    assert.equal(back.mqTable[0]?.[1].commitOffset, 5);
    assert.equal(back.statusTable.T?.consumeOKTPS, 4);
    const r = parseConsumeMessageDirectlyResult(
      '{"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"spentTimeMills":3}',
    );
    assert.deepEqual(r, {
      order: false,
      autoCommit: true,
      consumeResult: 'CR_SUCCESS',
      remark: undefined,
      spentTimeMills: 3,
    });
  });
});
