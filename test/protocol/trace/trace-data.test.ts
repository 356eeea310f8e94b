import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { encodeTraceContext, type PubTrace } from '../../../src/protocol/trace/trace-data.js';
import { parseJavaTrace } from './java-trace-parser.js';

const pub: PubTrace = {
  type: 'Pub',
  timeStamp: 1_700_000_000_123,
  regionId: 'DefaultRegion',
  groupName: 'PG',
  topic: 'T',
  msgId: 'C0A8000100002A9F0000000000000001',
  tags: 'TagA',
  keys: 'k1 k2',
  storeHost: '127.0.0.1:10911',
  bodyLength: 5,
  costTime: 3,
  msgType: 0,
  offsetMsgId: '7F00000100002A9F0000000000000010',
  success: true,
};

describe('trace data (Java TraceDataEncoder format)', () => {
  it('a Pub record has Java’s 14 fields in order, and keys = msgId + user keys', () => {
    const { data, keys } = encodeTraceContext(pub);
    assert.ok(data.endsWith('\u0002'));
    const [r] = parseJavaTrace(data);
    assert.equal(r?.type, 'Pub');
    assert.equal(r?.fields.length, 13, 'Pub + 13 fields: Java’s 14-field form (offsetMsgId, success)');
    assert.deepEqual(r?.named, {
      timeStamp: '1700000000123',
      regionId: 'DefaultRegion',
      groupName: 'PG',
      topic: 'T',
      msgId: pub.msgId,
      tags: 'TagA',
      keys: 'k1 k2',
      storeHost: '127.0.0.1:10911',
      bodyLength: '5',
      costTime: '3',
      msgType: '0',
      offsetMsgId: pub.offsetMsgId,
      success: 'true',
    });
    assert.deepEqual(keys, [pub.msgId, 'k1 k2']);
  });

  it('absent tags and keys are written "null", as StringBuilder.append(null), and add no key', () => {
    const { data, keys } = encodeTraceContext({ ...pub, tags: undefined, keys: undefined });
    const [r] = parseJavaTrace(data);
    assert.equal(r?.named['tags'], 'null');
    assert.equal(r?.named['keys'], 'null');
    assert.deepEqual(keys, [pub.msgId]);
  });

  it('SubBefore and SubAfter give one record per message, paired by requestId', () => {
    const beans = [
      { msgId: 'A', keys: 'ka', retryTimes: 0 },
      { msgId: 'B', keys: undefined, retryTimes: 2 },
    ];
    const before = encodeTraceContext({
      type: 'SubBefore',
      timeStamp: 10,
      regionId: 'R',
      groupName: 'CG',
      requestId: 'REQ',
      beans,
    });
    const after = encodeTraceContext({
      type: 'SubAfter',
      requestId: 'REQ',
      costTime: 4,
      success: false,
      contextCode: 2,
      timeStamp: 20,
      groupName: 'CG',
      beans,
    });
    const records = parseJavaTrace(before.data + after.data);
    assert.deepEqual(
      records.map((r) => [r.type, r.named['msgId'], r.named['requestId']]),
      [
        ['SubBefore', 'A', 'REQ'],
        ['SubBefore', 'B', 'REQ'],
        ['SubAfter', 'A', 'REQ'],
        ['SubAfter', 'B', 'REQ'],
      ],
    );
    assert.deepEqual(records[1]?.named, {
      timeStamp: '10',
      regionId: 'R',
      groupName: 'CG',
      requestId: 'REQ',
      msgId: 'B',
      retryTimes: '2',
      keys: 'null',
    });
    assert.deepEqual(records[2]?.named, {
      requestId: 'REQ',
      msgId: 'A',
      costTime: '4',
      success: 'false',
      keys: 'ka',
      contextCode: '2',
      timeStamp: '20',
      groupName: 'CG',
    });
    assert.deepEqual(before.keys, ['A', 'ka', 'B']);
  });
});
