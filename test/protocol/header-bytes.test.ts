/**
 * The header encoders' fast paths give the same bytes as the plain ones: the JSON header written
 * byte by byte equals the UTF-8 of its text, and the binary decoder's cache of short strings
 * never returns another string than the bytes say.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SerializeType, type RemotingCommand } from '../../src/protocol/command.js';
import { decodeBinaryHeader, encodeBinaryHeader } from '../../src/protocol/header-binary.js';
import { encodeJsonHeaderWithReserve, jsonHeaderText } from '../../src/protocol/header-json.js';

/** A small deterministic generator (tests must not depend on Math.random). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TRICKY = [
  'a',
  'Z',
  '0',
  '"',
  '\\',
  '\u0001',
  '\u0002',
  '\b',
  '\t',
  '\n',
  '\f',
  '\r',
  '\u001f',
  '\u007f',
  '/',
  'é',
  '\u2028',
  '\ud800',
  '😀',
];

function command(over: Partial<RemotingCommand>): RemotingCommand {
  return {
    code: 310,
    language: 'JAVA',
    version: 399,
    opaque: 7,
    flag: 0,
    serializeType: SerializeType.JSON,
    ...over,
  };
}

function jsonBytes(cmd: RemotingCommand): Buffer {
  return encodeJsonHeaderWithReserve(cmd, 8).subarray(8);
}

describe('JSON header written as bytes', () => {
  it('a send header with properties separators equals the UTF-8 of its text', () => {
    const cmd = command({
      opaque: -2147483648,
      extFields: {
        a: 'PG',
        b: 'T',
        i: 'TAGS\u0001bench\u0002WAIT\u0001true\u0002UNIQ_KEY\u0001AB12',
        k: 'false',
      },
    });
    assert.deepEqual(jsonBytes(cmd), Buffer.from(jsonHeaderText(cmd), 'utf8'));
    assert.deepEqual(JSON.parse(jsonBytes(cmd).toString('utf8')).extFields, cmd.extFields);
  });

  it('quotes, backslashes, control characters, non-ASCII text, remarks and absent values match JSON.stringify', () => {
    const next = seeded(12);
    const pick = (n: number): string =>
      Array.from({ length: Math.floor(next() * n) }, () => TRICKY[Math.floor(next() * TRICKY.length)]).join(
        '',
      );
    for (let i = 0; i < 3000; i++) {
      const ext: Record<string, string> = {};
      for (let k = Math.floor(next() * 5); k > 0; k--) {
        if (next() < 0.1) (ext as Record<string, string | undefined>)[`u${k}`] = undefined;
        else ext[pick(4) || `k${k}`] = pick(12);
      }
      const cmd = command({
        code: Math.floor(next() * 2 ** 32) - 2 ** 31,
        flag: Math.floor(next() * 4),
        opaque: Math.floor(next() * 2 ** 32) - 2 ** 31,
        language: next() < 0.8 ? 'JAVA' : pick(5),
        remark: next() < 0.3 ? pick(10) : undefined,
        extFields: next() < 0.8 ? ext : undefined,
      });
      assert.deepEqual(jsonBytes(cmd), Buffer.from(jsonHeaderText(cmd), 'utf8'), JSON.stringify(cmd));
    }
  });

  it('long values (a batch of comma-joined msgIds) equal the UTF-8 of the text, with any tricky character anywhere', () => {
    const ids = Array.from(
      { length: 40 },
      (_, i) => `7F00000100002A9F${(4096 + i * 301).toString(16).toUpperCase().padStart(16, '0')}`,
    );
    const plain = ids.join(',');
    const plainCmd = command({ extFields: { msgId: plain, queueId: '3' }, remark: plain });
    assert.deepEqual(jsonBytes(plainCmd), Buffer.from(jsonHeaderText(plainCmd), 'utf8'));
    assert.equal(JSON.parse(jsonBytes(plainCmd).toString('utf8')).extFields.msgId, plain);
    // Each tricky character at each position a four-byte step can see it (start, inside, the
    // three tail bytes, the end), in a key, a value, the remark or the language.
    for (const c of TRICKY) {
      for (const at of [0, 1, 2, 3, 4, 126, 127, 128, 129, 130, 131, plain.length - 1]) {
        for (const len of [127, 128, 129, 130, 131, 132, plain.length]) {
          const s = plain.slice(0, len);
          const tricky = s.slice(0, Math.min(at, len)) + c + s.slice(Math.min(at, len) + 1);
          for (const cmd of [
            command({ extFields: { msgId: tricky, queueId: '3' } }),
            command({ extFields: { [tricky]: 'v' } }),
            command({ remark: tricky }),
            command({ language: tricky }),
          ]) {
            assert.deepEqual(jsonBytes(cmd), Buffer.from(jsonHeaderText(cmd), 'utf8'), JSON.stringify(cmd));
          }
        }
      }
    }
  });
});

describe('binary header decoding of short strings', () => {
  it('repeated and colliding short keys and values decode to what was encoded, ASCII or not', () => {
    const next = seeded(34);
    const alphabet = ['a', 'b', 'c', 'Q', '0', '_', 'é', '😀'];
    for (let i = 0; i < 2000; i++) {
      const ext: Record<string, string> = {};
      for (let k = 1 + Math.floor(next() * 4); k > 0; k--) {
        const len = 1 + Math.floor(next() * 6);
        const key = Array.from({ length: len }, () => alphabet[Math.floor(next() * alphabet.length)]).join(
          '',
        );
        ext[key] = Array.from({ length: len }, () => alphabet[Math.floor(next() * 3)]).join('');
      }
      const cmd: RemotingCommand = { ...command({ extFields: ext }), serializeType: SerializeType.ROCKETMQ };
      const bytes = encodeBinaryHeader(cmd);
      // Twice: the second decode is served from the cache where the first filled it.
      assert.deepEqual(decodeBinaryHeader(bytes).extFields, ext);
      assert.deepEqual(decodeBinaryHeader(bytes).extFields, ext);
    }
  });

  it('an invalid UTF-8 byte decodes to U+FFFD every time, never to a cached ASCII string', () => {
    const ascii: RemotingCommand = {
      ...command({ extFields: { key: 'v\u007f' } }),
      serializeType: SerializeType.ROCKETMQ,
    };
    const good = encodeBinaryHeader(ascii);
    assert.deepEqual(decodeBinaryHeader(good).extFields, { key: 'v\u007f' });
    const bad = Buffer.from(good);
    bad[bad.length - 1] = 0xff; // the value's last byte: not UTF-8
    assert.deepEqual(decodeBinaryHeader(bad).extFields, { key: 'v\ufffd' });
    assert.deepEqual(decodeBinaryHeader(bad).extFields, { key: 'v\ufffd' });
    assert.deepEqual(decodeBinaryHeader(good).extFields, { key: 'v\u007f' });
  });
});
