import * as assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { deflateSync } from 'node:zlib';
import {
  decodePullBody,
  filterByTags,
  markConsumeStart,
  markPopCheckpoint,
  popFactsOf,
  type ConsumerMessage,
  type PopRecordFacts,
} from '../../src/consumer/core/message-view.js';
import { ProtocolError, UnsupportedCompressionError } from '../../src/errors.js';
import { COMPRESSED_SYSFLAG, compressWith, loadCompressor } from '../../src/protocol/message/compression.js';

before(() => loadCompressor('ZSTD'));

const props = (p: Record<string, string>): string =>
  Object.entries(p)
    .map(([k, v]) => `${k}\u0001${v}`)
    .join('\u0002');

/** A naive stored-record builder (IPv4 hosts, V1 magic), written field by field from §6.2. */
function record(r: {
  topic: string;
  body: Buffer;
  properties: Record<string, string>;
  queueId?: number;
  queueOffset?: number;
  commitLogOffset?: number;
  sysFlag?: number;
  flag?: number;
  reconsumeTimes?: number;
}): Buffer {
  const i32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return b;
  };
  const i64 = (v: number) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(v));
    return b;
  };
  const topic = Buffer.from(r.topic);
  const p = Buffer.from(props(r.properties));
  const parts = [
    i32(0xdaa320a7 | 0),
    i32(0), // BODYCRC: the client does not check it
    i32(r.queueId ?? 0),
    i32(r.flag ?? 0),
    i64(r.queueOffset ?? 0),
    i64(r.commitLogOffset ?? 0),
    i32(r.sysFlag ?? 0),
    i64(1700000000000),
    Buffer.from([127, 0, 0, 1]),
    i32(50000),
    i64(1700000000001),
    Buffer.from([127, 0, 0, 1]),
    i32(10911),
    i32(r.reconsumeTimes ?? 0),
    i64(0),
    i32(r.body.length),
    r.body,
    Buffer.from([topic.length]),
    topic,
    Buffer.from([p.length >> 8, p.length & 0xff]),
    p,
  ];
  const rest = Buffer.concat(parts);
  return Buffer.concat([i32(rest.length + 4), rest]);
}

/** A naive SEND_BATCH body (§6.1): TOTALSIZE, MAGIC 0, CRC 0, FLAG, body, int16 props. */
function batchBody(entries: { body: string; flag: number; properties: Record<string, string> }[]): Buffer {
  return Buffer.concat(
    entries.map((e) => {
      const body = Buffer.from(e.body);
      const p = Buffer.from(props(e.properties));
      const b = Buffer.alloc(20 + body.length + 2 + p.length);
      b.writeInt32BE(b.length, 0);
      b.writeInt32BE(e.flag, 12);
      b.writeInt32BE(body.length, 16);
      body.copy(b, 20);
      b.writeInt16BE(p.length, 20 + body.length);
      p.copy(b, 22 + body.length);
      return b;
    }),
  );
}

const QUEUE = { topic: 'T', brokerName: 'broker-a', queueId: 1 };

describe('decodePullBody', () => {
  it('decodes a stored record into the listener view', () => {
    const stored = record({
      topic: 'T',
      body: Buffer.from('hello'),
      queueId: 1,
      queueOffset: 5,
      commitLogOffset: 1234,
      properties: { TAGS: 'A' },
    });
    const [m, ...rest] = decodePullBody(stored, { queue: QUEUE });
    assert.equal(rest.length, 0);
    assert.ok(m);
    assert.equal(m.topic, 'T');
    assert.equal(m.body.toString(), 'hello');
    assert.equal(m.tags, 'A');
    assert.deepEqual(m.keys, []);
    assert.deepEqual(m.properties, {});
    assert.deepEqual(m.systemProperties, { TAGS: 'A' });
    // No UNIQ_KEY: the id falls back to the broker's offsetMsgId.
    assert.equal(m.offsetMsgId, '7F00000100002A9F00000000000004D2');
    assert.equal(m.msgId, m.offsetMsgId);
    assert.deepEqual(m.queue, QUEUE);
    assert.equal(m.queueOffset, 5);
    assert.equal(m.commitLogOffset, 1234);
    assert.equal(m.bornTimestamp, 1700000000000);
    assert.equal(m.storeTimestamp, 1700000000001);
    assert.deepEqual(m.bornHost, { address: '127.0.0.1', port: 50000 });
    assert.deepEqual(m.storeHost, { address: '127.0.0.1', port: 10911 });
    assert.equal(m.reconsumeTimes, 0);
    assert.equal(m.delayTimeLevel, 0);
    assert.equal(m.transactionId, undefined);
  });

  it('splits user and system properties, keys, ids, delay, transaction id and pull offsets', () => {
    const body = Buffer.concat([
      record({
        topic: 'T',
        body: Buffer.from('one'),
        queueOffset: 7,
        commitLogOffset: 100,
        flag: 9,
        reconsumeTimes: 2,
        properties: { UNIQ_KEY: 'ID1', KEYS: 'k1 k2', TAGS: 'x', DELAY: '3', TRAN_MSG: 'true', color: 'red' },
      }),
      record({ topic: 'T', body: Buffer.from('two'), queueOffset: 8, properties: { UNIQ_KEY: 'ID2' } }),
    ]);
    const [a, b] = decodePullBody(body, { queue: QUEUE, offsetDelta: 1000, minOffset: 0, maxOffset: 9 });
    assert.ok(a && b);
    assert.equal(a.msgId, 'ID1');
    assert.deepEqual(a.keys, ['k1', 'k2']);
    assert.deepEqual(a.properties, { color: 'red' });
    assert.equal(a.systemProperties.UNIQ_KEY, 'ID1');
    assert.equal(a.systemProperties.MIN_OFFSET, '0');
    assert.equal(a.systemProperties.MAX_OFFSET, '9');
    assert.equal(a.delayTimeLevel, 3);
    assert.equal(a.transactionId, 'ID1');
    assert.equal(a.flag, 9);
    assert.equal(a.reconsumeTimes, 2);
    assert.equal(a.queueOffset, 1007);
    assert.equal(a.commitLogOffset, 100);
    assert.equal(b.msgId, 'ID2');
    assert.equal(b.body.toString(), 'two');
    assert.equal(b.queueOffset, 1008);
    assert.equal(b.transactionId, undefined);
  });

  it('inflates zlib bodies, from old clients (bit 0 only) and 4.9.4+ (type bits 0x300)', () => {
    const text = 'compressible '.repeat(500);
    for (const sysFlag of [0x1, 0x301]) {
      const body = record({ topic: 'T', body: deflateSync(text), sysFlag, properties: {} });
      assert.equal(decodePullBody(body, { queue: QUEUE })[0]?.body.toString(), text);
    }
  });

  it('LZ4 and ZSTD bodies are inflated by default; a supplied decompressor replaces the built-in one', () => {
    const text = 'compressible '.repeat(500);
    for (const type of ['LZ4', 'ZSTD'] as const) {
      const sysFlag = COMPRESSED_SYSFLAG[type];
      const body = record({
        topic: 'T',
        body: Buffer.from(compressWith(type, Buffer.from(text), 3)),
        sysFlag,
        properties: {},
      });
      assert.equal(decodePullBody(body, { queue: QUEUE })[0]?.body.toString(), text);
    }
    const lz4 = record({ topic: 'T', body: Buffer.from('packed'), sysFlag: 0x101, properties: {} });
    const decoded = decodePullBody(lz4, {
      queue: QUEUE,
      decompressors: { LZ4: (b) => Buffer.from(b.toString().toUpperCase()) },
    });
    assert.equal(decoded[0]?.body.toString(), 'PACKED');
  });

  it('a compression type outside ZLIB, LZ4 and ZSTD is UnsupportedCompressionError', () => {
    const odd = record({ topic: 'T', body: Buffer.from('packed'), sysFlag: 0x501, properties: {} });
    assert.throws(
      () => decodePullBody(odd, { queue: QUEUE }),
      (err: unknown) =>
        err instanceof UnsupportedCompressionError && err.compressionType === 'unknown type 5',
    );
  });

  it('a retried message shows its original topic, without the namespace', () => {
    const retried = record({
      topic: '%RETRY%NS%G',
      body: Buffer.from('again'),
      reconsumeTimes: 1,
      properties: { RETRY_TOPIC: 'NS%Orders', UNIQ_KEY: 'ID' },
    });
    const queue = { topic: '%RETRY%NS%G', brokerName: 'broker-a', queueId: 0 };
    const [m] = decodePullBody(retried, { queue, consumerGroup: 'NS%G', namespace: 'NS' });
    assert.equal(m?.topic, 'Orders');
    assert.deepEqual(m?.queue, queue);
    assert.equal(m?.reconsumeTimes, 1);
    // Another group's retry topic is not ours to map back.
    const [other] = decodePullBody(retried, { queue, consumerGroup: 'NS%H', namespace: 'NS' });
    assert.equal(other?.topic, '%RETRY%G');
    // A plain topic loses only the namespace.
    const plain = record({ topic: 'NS%Orders', body: Buffer.from('x'), properties: {} });
    assert.equal(decodePullBody(plain, { queue: QUEUE, namespace: 'NS' })[0]?.topic, 'Orders');
  });

  it('[5.x] unwraps an inner batch into one message per entry at consecutive offsets', () => {
    const inner = batchBody([
      { body: 'm0', flag: 1, properties: { UNIQ_KEY: 'U0', TAGS: 'a' } },
      { body: 'm1', flag: 2, properties: { UNIQ_KEY: 'U1', KEYS: 'k' } },
      { body: 'm2', flag: 3, properties: { UNIQ_KEY: 'U2' } },
    ]);
    const outer = record({
      topic: 'T',
      body: inner,
      sysFlag: 0xc0,
      queueOffset: 40,
      commitLogOffset: 500,
      properties: {},
    });
    const single = record({
      topic: 'T',
      body: Buffer.from('after'),
      queueOffset: 43,
      properties: { UNIQ_KEY: 'U3' },
    });
    const msgs = decodePullBody(Buffer.concat([outer, single]), { queue: QUEUE });
    assert.deepEqual(
      msgs.map((m) => [m.msgId, m.body.toString(), m.queueOffset, m.flag, m.commitLogOffset]),
      [
        ['U0', 'm0', 40, 1, 500],
        ['U1', 'm1', 41, 2, 500],
        ['U2', 'm2', 42, 3, 500],
        ['U3', 'after', 43, 0, 0],
      ],
    );
    assert.equal(msgs[0]?.tags, 'a');
    assert.deepEqual(msgs[1]?.keys, ['k']);
    // INNER_BATCH_FLAG alone (no NEED_UNWRAP) is delivered as stored.
    const wrapped = record({ topic: 'T', body: inner, sysFlag: 0x80, properties: {} });
    assert.equal(decodePullBody(wrapped, { queue: QUEUE }).length, 1);
  });

  it('a view keeps CONSUME_START_TIME whether its system properties were built before or after', () => {
    const body = Buffer.concat([
      record({ topic: 'T', body: Buffer.from('a'), properties: { UNIQ_KEY: 'A' } }),
      record({ topic: 'T', body: Buffer.from('b'), properties: { UNIQ_KEY: 'B' } }),
    ]);
    const [before, after] = decodePullBody(body, { queue: QUEUE, minOffset: 0, maxOffset: 2 });
    assert.ok(before && after);
    assert.equal(before.systemProperties.UNIQ_KEY, 'A', 'built before the stamp');
    markConsumeStart([before, after], 1700000000123);
    assert.equal(before.systemProperties.CONSUME_START_TIME, '1700000000123');
    assert.deepEqual(after.systemProperties, {
      UNIQ_KEY: 'B',
      MIN_OFFSET: '0',
      MAX_OFFSET: '2',
      CONSUME_START_TIME: '1700000000123',
    });
  });

  it('toJSON and inspection show every field of a view, not its buffer', () => {
    const stored = record({
      topic: 'T',
      body: Buffer.from('hello'),
      queueOffset: 3,
      commitLogOffset: 77,
      properties: { UNIQ_KEY: 'U', KEYS: 'k', color: 'red' },
    });
    const [m] = decodePullBody(stored, { queue: QUEUE });
    assert.ok(m);
    const plain = JSON.parse(JSON.stringify(m)) as Record<string, unknown>;
    assert.equal(plain['msgId'], 'U');
    assert.equal(plain['topic'], 'T');
    assert.equal(plain['commitLogOffset'], 77);
    assert.deepEqual(plain['keys'], ['k']);
    assert.deepEqual(plain['properties'], { color: 'red' });
    assert.deepEqual(plain['storeHost'], { address: '127.0.0.1', port: 10911 });
    assert.equal('raw' in plain, false);
    assert.match(inspect(m), /msgId: 'U'/);
  });

  it('the messages of one pull share one queue object; reconsumeTimes stays writable', () => {
    const body = Buffer.concat([
      record({ topic: 'T', body: Buffer.from('a'), queueOffset: 1, reconsumeTimes: 4, properties: {} }),
      record({ topic: 'T', body: Buffer.from('b'), queueOffset: 2, properties: {} }),
    ]);
    const [a, b] = decodePullBody(body, { queue: QUEUE });
    assert.ok(a && b);
    assert.equal(a.queue, b.queue);
    assert.notEqual(a.queue, QUEUE, 'a copy: the caller may reuse its queue object');
    assert.equal(a.reconsumeTimes, 4);
    a.reconsumeTimes++;
    assert.equal(a.reconsumeTimes, 5);
  });

  it("a body pulled for queueId -1 (every queue of a broker) names each record's own queue", () => {
    const body = Buffer.concat([
      record({ topic: 'T', body: Buffer.from('a'), queueId: 3, properties: {} }),
      record({ topic: 'T', body: Buffer.from('b'), queueId: 5, properties: {} }),
    ]);
    const msgs = decodePullBody(body, { queue: { ...QUEUE, queueId: -1 } });
    assert.deepEqual(
      msgs.map((m) => m.queue.queueId),
      [3, 5],
    );
  });

  it('a truncated body is a ProtocolError, not a silent partial list', () => {
    const one = record({ topic: 'T', body: Buffer.from('x'), properties: {} });
    const body = Buffer.concat([one, one.subarray(0, 50)]);
    assert.throws(() => decodePullBody(body, { queue: QUEUE }), ProtocolError);
  });

  it('an empty body has no messages', () => {
    assert.deepEqual(decodePullBody(new Uint8Array(0), { queue: QUEUE }), []);
  });
});

describe('POP facts of a record', () => {
  // Three records in one body: a POP_CK found must be the record's own, never a later record's.
  const body = Buffer.concat([
    record({ topic: 'T', body: Buffer.from('a'), queueOffset: 1, properties: { TAGS: 'A' } }),
    record({
      topic: '%RETRY%g_T',
      body: Buffer.from('b'),
      queueOffset: 2,
      properties: { POP_CK: '0 1 2 3 1 broker-a 0 2', RETRY_TOPIC: 'T' },
    }),
    record({ topic: 'T', body: Buffer.from('c'), queueOffset: 3, properties: { note: 'POP_CK' } }),
  ]);
  const facts = (m: ConsumerMessage): PopRecordFacts => {
    const out: PopRecordFacts = { retryTopic: 'stale', popCheckpoint: 'stale' };
    popFactsOf(m, out);
    return out;
  };

  it("reads each record's retry topic and POP_CK, and nothing of its neighbours", () => {
    const [first, retried, named] = decodePullBody(body, { queue: QUEUE, consumerGroup: 'g' });
    assert.ok(first && retried && named);
    assert.deepEqual(facts(first), { retryTopic: undefined, popCheckpoint: undefined });
    assert.deepEqual(facts(retried), { retryTopic: '%RETRY%g_T', popCheckpoint: '0 1 2 3 1 broker-a 0 2' });
    // The name as another property's value is not a POP_CK.
    assert.deepEqual(facts(named), { retryTopic: undefined, popCheckpoint: undefined });
    // Once the properties are decoded, the answer is the same.
    assert.equal(retried.systemProperties.POP_CK, '0 1 2 3 1 broker-a 0 2');
    assert.deepEqual(facts(retried), { retryTopic: '%RETRY%g_T', popCheckpoint: '0 1 2 3 1 broker-a 0 2' });
  });

  it('a POP_CK marked by the client shows in the system properties, and never replaces the broker one', () => {
    const [first, retried] = decodePullBody(body, { queue: QUEUE, consumerGroup: 'g' });
    assert.ok(first && retried);
    markPopCheckpoint(first, 'client handle');
    markPopCheckpoint(retried, 'client handle');
    assert.equal(first.systemProperties.POP_CK, 'client handle');
    assert.equal(retried.systemProperties.POP_CK, '0 1 2 3 1 broker-a 0 2');
    // Marked after the system properties were built: set there directly.
    const [again] = decodePullBody(body, { queue: QUEUE });
    assert.ok(again);
    assert.equal(again.systemProperties.POP_CK, undefined);
    markPopCheckpoint(again, 'later');
    assert.equal(again.systemProperties.POP_CK, 'later');
  });
});

describe('filterByTags', () => {
  const body = Buffer.concat([
    record({ topic: 'T', body: Buffer.from('a'), properties: { TAGS: 'TagA' } }),
    record({ topic: 'T', body: Buffer.from('b'), properties: { TAGS: 'TagB' } }),
    record({ topic: 'T', body: Buffer.from('none'), properties: {} }),
  ]);
  const msgs: ConsumerMessage[] = decodePullBody(body, { queue: QUEUE });

  it('keeps only subscribed tag strings and drops untagged messages', () => {
    assert.deepEqual(
      filterByTags(msgs, new Set(['TagA', 'TagC'])).map((m) => m.body.toString()),
      ['a'],
    );
  });

  it('keeps everything for a `*` subscription (empty tag set)', () => {
    assert.equal(filterByTags(msgs, new Set()).length, 3);
  });
});
