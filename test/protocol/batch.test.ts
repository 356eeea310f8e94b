import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import { BatchWriter, decodeBatch, encodeBatch, type BatchEntry } from '../../src/protocol/message/batch.js';
import { encodeProperties } from '../../src/protocol/message/properties.js';

// §14.4: msg1 body "a" (KEYS=k1, WAIT=true, TAGS=TagA in Java HashMap order), msg2 body "bc" (WAIT=true).
const V14_4 =
  '00000032 00000000 00000000 00000000 00000001 61 001b 4b455953016b310257414954017472756502544147530154616741 00000021 00000000 00000000 00000000 00000002 6263 0009 5741495401 74727565';
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

const entries: BatchEntry[] = [
  {
    body: Buffer.from('a'),
    flag: 0,
    properties: encodeProperties({ KEYS: 'k1', WAIT: 'true', TAGS: 'TagA' }),
  },
  { body: Buffer.from('bc'), flag: 0, properties: encodeProperties({ WAIT: 'true' }) },
];

describe('batch body (§6.1)', () => {
  it('encodes §14.4 byte for byte', () => {
    assert.equal(encodeBatch(entries).toString('hex'), hex(V14_4).toString('hex'));
  });

  it('decodes §14.4', () => {
    const decoded = decodeBatch(hex(V14_4));
    assert.equal(decoded.length, 2);
    assert.equal(Buffer.from(decoded[0]!.body).toString(), 'a');
    assert.equal(decoded[0]!.properties, 'KEYS\u0001k1\u0002WAIT\u0001true\u0002TAGS\u0001TagA');
    assert.equal(Buffer.from(decoded[1]!.body).toString(), 'bc');
    assert.equal(decoded[1]!.properties, 'WAIT\u0001true');
  });

  it('round trips flags, empty properties, binary and multi-byte content', () => {
    const list: BatchEntry[] = [
      { body: Buffer.from([0, 255, 1]), flag: -7, properties: '' },
      { body: Buffer.alloc(5000, 3), flag: 2147483647, properties: 'K\u0001中文' },
    ];
    const decoded = decodeBatch(encodeBatch(list));
    assert.deepEqual(
      decoded.map((e) => ({ ...e, body: Buffer.from(e.body) })),
      list.map((e) => ({ ...e, body: Buffer.from(e.body) })),
    );
  });

  it('an empty batch is an empty body', () => {
    assert.equal(encodeBatch([]).length, 0);
    assert.deepEqual(decodeBatch(Buffer.alloc(0)), []);
  });

  it('refuses properties over 32767 bytes', () => {
    assert.throws(
      () => encodeBatch([{ body: Buffer.from('x'), flag: 0, properties: 'K\u0001' + 'v'.repeat(32767) }]),
      ProtocolError,
    );
  });

  it('rejects malformed bodies with ProtocolError at every truncation point', () => {
    const good = hex(V14_4);
    for (let cut = 1; cut < good.length; cut++) {
      if (cut === 0x32) continue; // a clean record boundary: a valid one-message batch
      assert.throws(() => decodeBatch(good.subarray(0, cut)), ProtocolError, `cut ${cut}`);
    }
  });

  it('rejects inconsistent lengths', () => {
    const mutate = (at: number, value: number, size: 2 | 4) => {
      const b = Buffer.from(hex(V14_4));
      if (size === 4) b.writeInt32BE(value, at);
      else b.writeInt16BE(value, at);
      return b;
    };
    assert.throws(() => decodeBatch(mutate(0, -1, 4)), ProtocolError, 'negative TOTALSIZE');
    assert.throws(() => decodeBatch(mutate(0, 0x7fffffff, 4)), ProtocolError, 'huge TOTALSIZE');
    assert.throws(() => decodeBatch(mutate(16, -1, 4)), ProtocolError, 'negative body length');
    assert.throws(() => decodeBatch(mutate(16, 1000, 4)), ProtocolError, 'body past the record');
    assert.throws(() => decodeBatch(mutate(21, -1, 2)), ProtocolError, 'negative properties length');
    assert.throws(
      () => decodeBatch(mutate(21, 5, 2)),
      ProtocolError,
      'properties length disagrees with TOTALSIZE',
    );
  });

  it('BatchWriter writes records in place, growing its buffer, byte-equal to encodeBatch', () => {
    const list: BatchEntry[] = Array.from({ length: 40 }, (_, i) => ({
      body: Buffer.alloc(i * 13, i),
      flag: i - 20,
      properties: i % 3 === 0 ? '' : encodeProperties({ UNIQ_KEY: `ID${i}`, KEYS: 'ключ' }),
    }));
    const w = new BatchWriter(16);
    let sum = 0;
    for (const e of list) sum += w.append(e.body, e.flag, e.properties);
    assert.equal(w.byteLength, sum);
    assert.equal(w.finish().toString('hex'), encodeBatch(list).toString('hex'));
  });

  it('BatchWriter refuses properties over 32767 bytes and keeps what it wrote', () => {
    const w = new BatchWriter(64);
    w.append(Buffer.from('a'), 0, 'K\u0001v');
    const before = w.finish().toString('hex');
    assert.throws(() => w.append(Buffer.from('b'), 0, 'K\u0001' + 'é'.repeat(20000)), ProtocolError);
    assert.equal(w.finish().toString('hex'), before);
    w.append(Buffer.from('c'), 0, '');
    assert.equal(decodeBatch(w.finish()).length, 2);
  });

  it('BatchWriter writes every byte of its records: what a refused record left behind never shows', () => {
    const w = new BatchWriter(64);
    // The refused record's properties (0x61 bytes) are written at 22..; the records after it
    // land on them: their MAGICCODE, BODYCRC and FLAG must still read 0.
    assert.throws(() => w.append(Buffer.alloc(0), 0, 'a'.repeat(40_000)), ProtocolError);
    const records: BatchEntry[] = [
      { body: Buffer.alloc(0), flag: 0, properties: 'A\u0001b' },
      { body: Buffer.from('x'), flag: 0, properties: '' },
      { body: Buffer.from('yz'), flag: 0, properties: 'C\u0001d' },
    ];
    for (const e of records) w.append(e.body, e.flag, e.properties);
    assert.equal(w.finish().toString('hex'), encodeBatch(records).toString('hex'));
    const at = 25;
    assert.deepEqual(
      [w.finish().readInt32BE(at + 4), w.finish().readInt32BE(at + 8), w.finish().readInt32BE(at + 12)],
      [0, 0, 0],
    );
  });

  it('BatchWriter.appendParts is byte-equal to append of the joined properties, heads changing or not', () => {
    const heads = [
      'WAIT\u0001true\u0002UNIQ_KEY\u0001',
      'TAGS\u0001标签\u0002WAIT\u0001false\u0002UNIQ_KEY\u0001',
    ];
    const idHeads = ['7F000001ABCD0000000000000000', '7F000001ABCD00000000000000FF'];
    const hex4 = (c: number): string => c.toString(16).toUpperCase().padStart(4, '0');
    const parts = new BatchWriter(16);
    const joined = new BatchWriter(16);
    let sum = 0;
    for (let i = 0; i < 60; i++) {
      const body = Buffer.alloc(i * 7, i);
      if (i % 7 === 3) {
        // A record written whole between parts records: the cached head bytes stay where they were.
        sum += parts.append(body, i, 'K\u0001v');
        joined.append(body, i, 'K\u0001v');
        continue;
      }
      const head = heads[Math.floor(i / 5) % 2]!;
      const idHead = idHeads[Math.floor(i / 11) % 2]!;
      const counter = (i * 4099) & 0xffff;
      sum += parts.appendParts(body, i, head, idHead, counter);
      joined.append(body, i, head + idHead + hex4(counter));
    }
    assert.equal(parts.byteLength, sum);
    assert.equal(parts.finish().toString('hex'), joined.finish().toString('hex'));
    assert.equal(decodeBatch(parts.finish()).length, 60);
  });

  it('BatchWriter.appendParts after a refused record does not copy the head from the refused bytes', () => {
    const w = new BatchWriter(64);
    const big = 'K\u0001' + 'é'.repeat(20000) + '\u0002UNIQ_KEY\u0001';
    assert.throws(() => w.appendParts(Buffer.from('a'), 0, big, '7F000001', 1), ProtocolError);
    // Same head again: still refused (not copied from the uncounted record as if it fit).
    assert.throws(() => w.appendParts(Buffer.from('a'), 0, big, '7F000001', 2), ProtocolError);
    w.append(Buffer.from('b'), 0, 'X'.repeat(300));
    w.appendParts(Buffer.from('c'), 0, 'W\u0001t\u0002UNIQ_KEY\u0001', '7F000001', 0xabcd);
    const out = decodeBatch(w.finish());
    assert.deepEqual(
      out.map((e) => e.properties),
      ['X'.repeat(300), 'W\u0001t\u0002UNIQ_KEY\u00017F000001ABCD'],
    );
  });

  it('BatchWriters sharing a slab never write into each other’s finished batches', () => {
    const record = (w: BatchWriter, i: number): number => w.append(Buffer.alloc(40, i), i, `K\u0001${i}`);
    // Made before any writer below: encodeBatch carves from the same slab.
    const expectedHex = new Map<string, string>();
    for (let from = 0; from < 40; from++) {
      for (const n of [2, 3, 4]) {
        const entries = Array.from({ length: n }, (_, k) => ({
          body: Buffer.alloc(40, from + k),
          flag: from + k,
          properties: `K\u0001${from + k}`,
        }));
        expectedHex.set(`${from}/${n}`, encodeBatch(entries).toString('hex'));
      }
    }
    const expected = (from: number, n: number): string => expectedHex.get(`${from}/${n}`)!;
    const done: Array<[Buffer, string]> = [];
    // Interleaved writers, one finished while the other is the slab's last carving, appends
    // after finish, and enough writers to use up a slab (1 MiB in 64 KiB carvings).
    for (let round = 0; round < 40; round++) {
      const a = new BatchWriter(64 * 1024);
      const b = new BatchWriter(64 * 1024);
      for (let i = 0; i < 3; i++) record(a, round + i);
      for (let i = 0; i < 2; i++) record(b, round + i);
      done.push([b.finish(), expected(round, 2)]);
      record(a, round + 3);
      done.push([a.finish(), expected(round, 4)]);
      record(b, round + 2);
      done.push([b.finish(), expected(round, 3)]);
    }
    for (const [batch, hex] of done) assert.equal(batch.toString('hex'), hex);
  });
});
