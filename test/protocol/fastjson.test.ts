import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import { parseFastjson, parseFastjsonBytes } from '../../src/protocol/fastjson.js';

describe('fastjson reader: unquoted integer map keys (§7.2)', () => {
  it('parses the verified unquoted route form', () => {
    const text =
      '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}';
    const parsed = parseFastjson(text) as { brokerDatas: Array<{ brokerAddrs: Record<string, string> }> };
    assert.deepEqual(parsed.brokerDatas[0]!.brokerAddrs, { '0': '127.0.0.1:10911', '1': '127.0.0.1:10921' });
  });

  it('parses plain JSON unchanged', () => {
    assert.deepEqual(parseFastjson('{"a":{"0":"x"},"b":[1,2,3]}'), { a: { '0': 'x' }, b: [1, 2, 3] });
  });

  it('quotes negative keys and keys surrounded by whitespace', () => {
    assert.deepEqual(parseFastjson('{ -1 : "neg" ,\n\t 42\r\n: "pos"}'), { '-1': 'neg', '42': 'pos' });
  });

  it('quotes keys in nested maps at every depth', () => {
    assert.deepEqual(parseFastjson('{"a":{1:{2:{3:"deep"}},"b":[{7:"in array"}]}}'), {
      a: { '1': { '2': { '3': 'deep' } }, b: [{ '7': 'in array' }] },
    });
  });

  it('leaves text inside strings alone, even when it looks like a key', () => {
    const text = '{"remark":"x,{1:2},0:\\"y\\",3:z","orderTopicConf":"broker-a:4;broker-b:4",5:"v"}';
    assert.deepEqual(parseFastjson(text), {
      remark: 'x,{1:2},0:"y",3:z',
      orderTopicConf: 'broker-a:4;broker-b:4',
      '5': 'v',
    });
  });

  it('handles escaped backslashes right before a closing quote', () => {
    // The string value is `a\` ; the quote after the escaped backslash ends it.
    assert.deepEqual(parseFastjson('{"k":"a\\\\",1:"b"}'), { k: 'a\\', '1': 'b' });
  });

  it('handles unicode escapes and control-character escapes inside strings', () => {
    assert.deepEqual(parseFastjson('{"i":"UNIQ_KEY\\u00011,2:3\\u0002",9:"\\u4e2d"}'), {
      i: 'UNIQ_KEY\u00011,2:3\u0002',
      '9': '中',
    });
  });

  it('does not touch numbers in arrays or values', () => {
    assert.deepEqual(parseFastjson('{1:[1,2,3],"n":-5,2:{"x":0}}'), { '1': [1, 2, 3], n: -5, '2': { x: 0 } });
  });

  it('parses UTF-8 bytes, including from a view with an offset', () => {
    const backing = Buffer.from('xxx{1:"é"}');
    assert.deepEqual(parseFastjsonBytes(backing.subarray(3)), { '1': 'é' });
  });

  it('rejects invalid JSON with ProtocolError', () => {
    for (const bad of ['{', '{1:}', '{"a":1,}', '', '{a:1}', '{1.5:"x"}', '{"a":"unterminated}']) {
      assert.throws(() => parseFastjson(bad), ProtocolError, bad);
    }
  });
});

describe('fastjson reader: bare object map keys (docs/protocol.md §10.4)', () => {
  it('returns an object-keyed map as a Map from the parsed key', () => {
    const parsed = parseFastjson('{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5}}') as {
      offsetTable: Map<unknown, unknown>;
    };
    assert.ok(parsed.offsetTable instanceof Map);
    assert.deepEqual([...parsed.offsetTable], [[{ brokerName: 'broker-a', queueId: 0, topic: 'T' }, 5]]);
  });

  it('keeps string and integer keys as strings inside an object-keyed map', () => {
    const parsed = parseFastjson('{{"a":1}:"x","s":2,7:3}') as Map<unknown, unknown>;
    assert.deepEqual(
      [...parsed],
      [
        [{ a: 1 }, 'x'],
        ['s', 2],
        ['7', 3],
      ],
    );
  });

  it('parses object keys next to integer keys, nested values and whitespace', () => {
    const text = '{ "t" : { {"k":"a:b,{1:2}"} : {"v":[1,{2:"z"}]} , {"k":"c"}:null } , 9:true }';
    const parsed = parseFastjson(text) as { t: Map<unknown, unknown>; '9': boolean };
    assert.equal(parsed['9'], true);
    assert.deepEqual(
      [...parsed.t],
      [
        [{ k: 'a:b,{1:2}' }, { v: [1, { '2': 'z' }] }],
        [{ k: 'c' }, null],
      ],
    );
  });

  it('keeps a __proto__ key an own property, as JSON.parse does', () => {
    const parsed = parseFastjson('{1:0,"__proto__":{"x":1}}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['1', '__proto__']);
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
  });

  it('rejects malformed object-keyed maps with ProtocolError', () => {
    for (const bad of [
      '{{"a":1}}',
      '{{"a":1}:}',
      '{{"a":1}:1,}',
      '{{"a":1}:1 2}',
      '{[1]:2',
      '{{"a":1}:1}x',
    ]) {
      assert.throws(() => parseFastjson(bad), ProtocolError, bad);
    }
  });
});
