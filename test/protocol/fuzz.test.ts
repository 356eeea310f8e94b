import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import { parseFastjson } from '../../src/protocol/fastjson.js';
import { decodeFrame, encodeFrameToBuffer } from '../../src/protocol/frame.js';
import { decodeBatch, encodeBatch } from '../../src/protocol/message/batch.js';
import { decodeStoredMessages, encodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { rng } from '../helpers/rng.js';

const TRICKY = [
  'a',
  ':',
  ',',
  '{',
  '}',
  '"',
  '\\',
  '0',
  '-1',
  ' ',
  '\u0001',
  '\u0002',
  'é',
  '中',
  '1:',
  ',2:',
];

function randomString(r: () => number): string {
  let s = '';
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) s += TRICKY[Math.floor(r() * TRICKY.length)];
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 3 ? 3 : 6));
  if (k === 0) return randomString(r);
  if (k === 1) return Math.floor(r() * 2000) - 1000;
  if (k === 2) return r() < 0.5;
  if (k === 3) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const key = k === 4 ? String(Math.floor(r() * 200) - 100) : randomString(r) || 'x';
    o[key] = randomValue(r, depth + 1);
  }
  return o;
}

/** fastjson's default serializer: integer-looking map keys unquoted, everything else standard. */
function writeFastjsonStyle(v: unknown, r: () => number): string {
  const ws = () => (r() < 0.2 ? ' ' : '');
  if (Array.isArray(v)) return `[${v.map((x) => writeFastjsonStyle(x, r)).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const parts = Object.entries(v).map(([k, x]) => {
      const key = /^-?\d+$/.test(k) ? k : JSON.stringify(k);
      return `${ws()}${key}${ws()}:${ws()}${writeFastjsonStyle(x, r)}`;
    });
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v);
}

describe('fuzz', () => {
  it('fastjson: random documents with unquoted integer keys parse to the original value', () => {
    const r = rng(1);
    for (let i = 0; i < 2000; i++) {
      const value = { root: randomValue(r, 0) };
      const text = writeFastjsonStyle(value, r);
      assert.deepEqual(parseFastjson(text), value, text);
    }
  });

  const expectOnlyProtocolErrors = (name: string, good: Buffer, decode: (b: Buffer) => unknown) => {
    it(`${name}: random corruptions throw nothing but ProtocolError`, () => {
      const r = rng(name.length);
      for (let i = 0; i < 3000; i++) {
        const b = Buffer.from(good);
        const flips = 1 + Math.floor(r() * 4);
        for (let j = 0; j < flips; j++) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
        const cut = r() < 0.3 ? Math.floor(r() * b.length) : b.length;
        try {
          decode(b.subarray(0, cut));
        } catch (err) {
          if (!(err instanceof ProtocolError)) assert.fail(`${name} iteration ${i}: ${String(err)}`);
        }
      }
    });
  };

  expectOnlyProtocolErrors(
    'frame (JSON)',
    encodeFrameToBuffer({
      code: 310,
      language: 'JAVA',
      version: 407,
      opaque: 7,
      flag: 0,
      remark: 'r',
      extFields: { a: 'PG', 1: 'x', i: 'K\u0001V' },
      serializeType: 0,
      body: Buffer.from('body'),
    }).subarray(4),
    decodeFrame,
  );
  expectOnlyProtocolErrors(
    'frame (binary)',
    encodeFrameToBuffer({
      code: 310,
      language: 'JAVA',
      version: 407,
      opaque: 7,
      flag: 0,
      remark: 'r',
      extFields: { a: 'PG', b: 'T' },
      serializeType: 1,
      body: Buffer.from('body'),
    }).subarray(4),
    decodeFrame,
  );
  const stored = encodeStoredMessage({
    queueId: 1,
    flag: 0,
    queueOffset: 5,
    physicalOffset: 1234,
    sysFlag: 0,
    bornTimestamp: 1700000000000,
    bornHost: { address: '127.0.0.1', port: 50000 },
    storeTimestamp: 1700000000001,
    storeHost: { address: '::1', port: 10911 },
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    body: Buffer.from('hello'),
    topic: 'T',
    properties: 'TAGS\u0001A',
  });
  expectOnlyProtocolErrors('stored messages', Buffer.concat([stored, stored]), decodeStoredMessages);
  expectOnlyProtocolErrors(
    'batch',
    encodeBatch([
      { body: Buffer.from('a'), flag: 0, properties: 'K\u0001v' },
      { body: Buffer.from('bc'), flag: 1, properties: '' },
    ]),
    decodeBatch,
  );
});
