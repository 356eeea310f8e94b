import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../../src/errors.js';
import {
  compareMessageQueues,
  decodeLongValue,
  decodeMessageQueueMap,
  encodeMessageQueueJson,
  encodeMessageQueueMap,
  mqKey,
  type MessageQueueData,
} from '../../../src/protocol/body/message-queue-map.js';
import { expectObject, jsonNumber } from '../../../src/protocol/headers/fields.js';
import { parseFastjson } from '../../../src/protocol/fastjson.js';

const A0: MessageQueueData = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

describe('Map<MessageQueue, V> codec (fastjson bare object keys)', () => {
  it('writes the verified offsetTable bytes', () => {
    assert.equal(
      `{"offsetTable":${encodeMessageQueueMap([[A0, 5]])}}`,
      '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5}}',
    );
  });

  it('writes MessageQueue keys with sorted fields', () => {
    assert.equal(
      encodeMessageQueueJson({ queueId: 3, topic: '%RETRY%g', brokerName: 'b' }),
      '{"brokerName":"b","queueId":3,"topic":"%RETRY%g"}',
    );
  });

  it('orders entries by MessageQueue.compareTo (topic, brokerName, queueId)', () => {
    const text = encodeMessageQueueMap([
      [{ topic: 'U', brokerName: 'a', queueId: 0 }, 4],
      [{ topic: 'T', brokerName: 'b', queueId: 0 }, 3],
      [{ topic: 'T', brokerName: 'a', queueId: 10 }, 2],
      [{ topic: 'T', brokerName: 'a', queueId: 2 }, 1],
    ]);
    assert.equal(
      text,
      '{{"brokerName":"a","queueId":2,"topic":"T"}:1,{"brokerName":"a","queueId":10,"topic":"T"}:2,' +
        '{"brokerName":"b","queueId":0,"topic":"T"}:3,{"brokerName":"a","queueId":0,"topic":"U"}:4}',
    );
    assert.ok(
      compareMessageQueues(
        { topic: 'T', brokerName: 'a', queueId: 2 },
        { topic: 'T', brokerName: 'a', queueId: 10 },
      ) < 0,
    );
  });

  it('writes an empty map as {} and object values through the value encoder', () => {
    assert.equal(encodeMessageQueueMap([]), '{}');
    assert.equal(
      encodeMessageQueueMap([[A0, { brokerOffset: 9, consumerOffset: 7, lastTimestamp: 0 }]]),
      '{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"brokerOffset":9,"consumerOffset":7,"lastTimestamp":0}}',
    );
    assert.equal(
      encodeMessageQueueMap([[A0, 1.5]], (v) => `${v}x`),
      '{{"brokerName":"broker-a","queueId":0,"topic":"T"}:1.5x}',
    );
  });

  it('decodes the verified body into mqKey → {mq, value}', () => {
    const body = parseFastjson('{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5}}') as {
      offsetTable: unknown;
    };
    const m = decodeMessageQueueMap(body.offsetTable, decodeLongValue);
    assert.deepEqual([...m], [['T@broker-a@0', { mq: A0, value: 5 }]]);
    assert.equal(mqKey(A0), 'T@broker-a@0');
  });

  it('round-trips many queues with object values', () => {
    const entries: Array<[MessageQueueData, { brokerOffset: number; consumerOffset: number }]> = [];
    for (const b of ['broker-b', 'broker-a'])
      for (let q = 3; q >= 0; q--)
        entries.push([
          { topic: 'T', brokerName: b, queueId: q },
          { brokerOffset: q * 10, consumerOffset: q },
        ]);
    const text = `{"consumeTps":0.0,"offsetTable":${encodeMessageQueueMap(entries)}}`;
    const parsed = expectObject(parseFastjson(text), 'ConsumeStats');
    const m = decodeMessageQueueMap(parsed.offsetTable, (v, what) => {
      const o = expectObject(v, what);
      return {
        brokerOffset: jsonNumber(o.brokerOffset, what),
        consumerOffset: jsonNumber(o.consumerOffset, what),
      };
    });
    assert.equal(m.size, 8);
    for (const [mq, v] of entries) assert.deepEqual(m.get(mqKey(mq)), { mq, value: v });
  });

  it('accepts an empty {}, a missing field, and keys written as quoted JSON', () => {
    assert.equal(decodeMessageQueueMap({}, decodeLongValue).size, 0);
    assert.equal(decodeMessageQueueMap(undefined, decodeLongValue).size, 0);
    const quoted = JSON.parse(
      '{"{\\"brokerName\\":\\"broker-a\\",\\"queueId\\":0,\\"topic\\":\\"T\\"}":7}',
    ) as unknown;
    assert.deepEqual(decodeMessageQueueMap(quoted, decodeLongValue).get('T@broker-a@0'), {
      mq: A0,
      value: 7,
    });
  });

  it('rejects malformed keys and values with ProtocolError naming the field', () => {
    const badKey = parseFastjson('{{"brokerName":"b","topic":"T"}:1}');
    assert.throws(() => decodeMessageQueueMap(badKey, decodeLongValue, 'mqTable'), /mqTable key\.queueId/);
    const badValue = parseFastjson('{{"brokerName":"b","queueId":1,"topic":"T"}:"x"}');
    assert.throws(() => decodeMessageQueueMap(badValue, decodeLongValue), ProtocolError);
    assert.throws(() => decodeMessageQueueMap({ notJson: 1 }, decodeLongValue), ProtocolError);
    assert.throws(() => decodeMessageQueueMap([1], decodeLongValue), ProtocolError);
  });
});
