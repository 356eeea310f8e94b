import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  decodeTraceRecords,
  encodeTraceContext,
  type PubTrace,
  type SubAfterTrace,
  type SubBeforeTrace,
} from '../../../src/protocol/trace/trace-data.js';
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

describe('decodeTraceRecords (Java decoderFromTraceDataString): what queryMsgTraceById reads back', () => {
  it('encoded Pub, SubBefore and SubAfter records decode to one context per message', () => {
    const before: SubBeforeTrace = {
      type: 'SubBefore',
      timeStamp: 1_700_000_000_200,
      regionId: 'DefaultRegion',
      groupName: 'CG',
      requestId: 'req-1',
      beans: [
        { msgId: 'A', keys: undefined, retryTimes: 0 },
        { msgId: 'B', keys: 'kb', retryTimes: 2 },
      ],
    };
    const afterSub: SubAfterTrace = {
      type: 'SubAfter',
      requestId: 'req-1',
      costTime: 7,
      success: true,
      contextCode: 0,
      timeStamp: 1_700_000_000_300,
      groupName: 'CG',
      beans: [{ msgId: 'A', keys: undefined, retryTimes: 0 }],
    };
    const failed: PubTrace = { ...pub, tags: undefined, success: false };
    const body = [failed, before, afterSub].map((c) => encodeTraceContext(c).data).join('');
    assert.deepEqual(decodeTraceRecords(body), [
      failed,
      { ...before, beans: [before.beans[0]!] },
      { ...before, beans: [before.beans[1]!] },
      afterSub,
    ]);
  });

  it("older Java records decode with Java's defaults; unknown types and short records are skipped", () => {
    const f = (...fields: Array<string | number>): string => fields.join('\u0001') + '\u0002';
    const body =
      // Pub without offsetMsgId and success (Java before 4.4): success defaults to true
      f('Pub', 1, 'R', 'PG', 'T', 'M1', 'null', 'null', '127.0.0.1:10911', 4, 2, 0) +
      // SubAfter without contextCode, timeStamp, groupName
      f('SubAfter', 'req', 'M1', 5, 'false', 'null') +
      f('EndTransaction', 1, 'R', 'PG') +
      f('SubBefore', 1, 'R');
    const [p, s, ...rest] = decodeTraceRecords(body);
    assert.equal(rest.length, 0);
    assert.deepEqual(p && { type: p.type, success: (p as PubTrace).success, tags: (p as PubTrace).tags }, {
      type: 'Pub',
      success: true,
      tags: undefined,
    });
    assert.equal(s?.type, 'SubAfter');
    assert.deepEqual((s as SubAfterTrace).beans, [{ msgId: 'M1', keys: undefined, retryTimes: 0 }]);
    assert.equal((s as SubAfterTrace).success, false);
    assert.equal(s?.timeStamp, 0);
  });
});
