import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeConsumeStats,
  encodeConsumerConnection,
  javaDoubleText,
  parseConsumeStats,
  parseConsumerConnection,
} from '../../../src/protocol/body/consumer-admin.js';

const MQ = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

describe('ConsumeStats and ConsumerConnection bodies (fastjson form)', () => {
  it('writes ConsumeStats with a Java double and bare MessageQueue keys', () => {
    const text = encodeConsumeStats({
      consumeTps: 0,
      offsetTable: [
        [
          { ...MQ, queueId: 1 },
          { brokerOffset: 9, consumerOffset: 9, lastTimestamp: 1700000000123 },
        ],
        [MQ, { brokerOffset: 5, consumerOffset: 2, lastTimestamp: 0 }],
      ],
    }).toString();
    assert.equal(
      text,
      '{"consumeTps":0.0,"offsetTable":{' +
        '{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"brokerOffset":5,"consumerOffset":2,"lastTimestamp":0},' +
        '{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"brokerOffset":9,"consumerOffset":9,"lastTimestamp":1700000000123}}}',
    );
    const back = parseConsumeStats(text);
    assert.equal(back.consumeTps, 0);
    assert.deepEqual(back.offsetTable.get('T@broker-a@0')?.value, {
      brokerOffset: 5,
      consumerOffset: 2,
      lastTimestamp: 0,
    });
    assert.equal(javaDoubleText(12.5), '12.5');
  });

  it('writes ConsumerConnection with sorted keys and reads it back', () => {
    const c = {
      connectionSet: [
        { clientId: '127.0.0.1@1', clientAddr: '127.0.0.1:50000', language: 'JAVA', version: 395 },
      ],
      subscriptionTable: {
        T: {
          topic: 'T',
          subString: '*',
          tagsSet: [],
          codeSet: [],
          subVersion: 1,
          expressionType: 'TAG',
          classFilterMode: false,
        },
      },
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
    };
    const text = encodeConsumerConnection(c).toString();
    assert.equal(
      text,
      '{"connectionSet":[{"clientAddr":"127.0.0.1:50000","clientId":"127.0.0.1@1","language":"JAVA","version":395}],' +
        '"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",' +
        '"subscriptionTable":{"T":{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":1,"tagsSet":[],"topic":"T"}}}',
    );
    assert.deepEqual(parseConsumerConnection(text), c);
  });
});
