/**
 * Properties found in their UTF-8 bytes (property-scan.ts) answer what `lookUpProperties` answers
 * for the decoded text: byte fixtures for the edge cases, then a seeded comparison over broken
 * and multi-byte input.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { lookUpProperties } from '../../../src/protocol/message/properties.js';
import { javaStringHashCode } from '../../../src/protocol/java-string-hash.js';
import {
  continueAsciiHash,
  PropertyScanner,
  utf8Text,
  viewOf,
} from '../../../src/server/store/property-scan.js';

const NAMES = ['KEY', 'KEYS', 'KEYS2', 'UNIQ_KEY', 'ключ', '\ufffd', 'K\ud800'];

/** The scanner's answer as texts, `undefined` for an absent name. */
function scanned(
  bytes: Buffer,
  names: readonly string[],
  from = 0,
  to = bytes.length,
): (string | undefined)[] {
  const s = new PropertyScanner(names);
  const view = viewOf(bytes);
  s.scan(view, from, to);
  return names.map((_, i) =>
    s.valueStart[i]! < 0 ? undefined : utf8Text(view, s.valueStart[i]!, s.valueEnd[i]!),
  );
}

function lookedUp(text: string, names: readonly string[]): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  lookUpProperties(text, names, out);
  return out;
}

test('byte fixtures: prefixes of other names, the last occurrence, empty names and values, no properties', () => {
  const bytes = Buffer.from(
    'KEYS\u0001a b\u0002KEY\u0001k\u0002KEYS2\u0001x\u0002KEYS\u0001last\u0002\u0001nameless\u0002UNIQ_KEY\u0001\u0002X\u0002',
    'utf8',
  );
  assert.deepEqual(scanned(bytes, NAMES), ['k', 'last', 'x', undefined, undefined, undefined, undefined]);
  assert.deepEqual(
    scanned(Buffer.alloc(0), NAMES),
    NAMES.map(() => undefined),
  );
  // A range inside a larger buffer: nothing outside it is seen.
  const framed = Buffer.concat([Buffer.from('KEY\u0001out\u0002'), bytes, Buffer.from('\u0002KEY\u0001out')]);
  assert.deepEqual(scanned(framed, ['KEY'], 9, 9 + bytes.length), ['k']);
  // Trailing separator (5.x), value holding U+0001, a name with no separator at all.
  assert.deepEqual(scanned(Buffer.from('KEY\u0001v\u0001w\u0002KEYS\u0002', 'utf8'), ['KEY', 'KEYS']), [
    'v\u0001w',
    undefined,
  ]);
});

test('multi-byte names and values, and broken UTF-8 decoded as U+FFFD, match the text lookup', () => {
  const bytes = Buffer.concat([
    Buffer.from('ключ\u0001значение\u0002', 'utf8'),
    Buffer.from([0xff, 0x01, 0x41, 0x02]), // a broken name decodes to U+FFFD
    Buffer.from('KEY\u0001', 'utf8'),
    Buffer.from([0xc3, 0x02]), // a value cut inside a sequence, before the separator
    Buffer.from('KEYS\u0001ok', 'utf8'),
  ]);
  const text = bytes.toString('utf8');
  assert.deepEqual(scanned(bytes, NAMES), lookedUp(text, NAMES));
  assert.deepEqual(scanned(bytes, NAMES).slice(0, 6), [
    '\ufffd',
    'ok',
    undefined,
    undefined,
    'значение',
    'A',
  ]);
});

test('seeded random properties: the scanner agrees with lookUpProperties on the decoded text', () => {
  let seed = 77;
  const next = (): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const pieces = [
    [0x01],
    [0x02],
    [0x02, 0x02],
    [...Buffer.from('KEY')],
    [...Buffer.from('KEYS')],
    [...Buffer.from('UNIQ_KEY')],
    [...Buffer.from('ключ')],
    [...Buffer.from('\ufffd')],
    [0x61],
    [0x20],
    [0xff],
    [0xc3],
    [0xe2, 0x82],
    [0xf0, 0x9f, 0x98, 0x80],
    // Around the word scan's "below 3" test: U+0000, the first byte above it, lone 0x80-0x82.
    [0x00],
    [0x03],
    [0x80],
    [0x81, 0x82],
    [...Buffer.from('VALUE_LONGER_THAN_A_WORD')],
  ];
  for (let i = 0; i < 5000; i++) {
    const bytes: number[] = [];
    for (let n = Math.floor(next() * 20); n > 0; n--)
      bytes.push(...pieces[Math.floor(next() * pieces.length)]!);
    const buf = Buffer.from(bytes);
    assert.deepEqual(scanned(buf, NAMES), lookedUp(buf.toString('utf8'), NAMES), buf.toString('hex'));
  }
});

test('the ASCII hash of bytes is Java hashCode of their text, continued from a prefix; other bytes answer undefined', () => {
  const key = Buffer.from('7F00000100012A3B4C5D6E7F80910000');
  assert.equal(continueAsciiHash(0, viewOf(key), 0, key.length), javaStringHashCode(key.toString()));
  const prefix = javaStringHashCode('Topic#');
  assert.equal(
    continueAsciiHash(prefix, viewOf(key), 3, 9),
    javaStringHashCode('Topic#' + key.toString('latin1', 3, 9)),
  );
  assert.equal(continueAsciiHash(0, viewOf(Buffer.from('é')), 0, 2), undefined);
  assert.equal(continueAsciiHash(5, viewOf(key), 4, 4), 5);
});

test('the four-bytes-a-step hash equals Java hashCode at every length and offset, and finds a non-ASCII byte anywhere', () => {
  const text = 'UNIQ_KEY#7F00000100012A3B4C5D6E7F80910000~!@ {}|';
  const bytes = Buffer.from(text, 'latin1');
  const view = viewOf(bytes);
  for (let from = 0; from < 6; from++) {
    for (let to = from; to <= bytes.length; to++) {
      assert.equal(
        continueAsciiHash(0, view, from, to),
        javaStringHashCode(text.slice(from, to)),
        `${from}..${to}`,
      );
      assert.equal(
        continueAsciiHash(javaStringHashCode('Topic#'), view, from, to),
        javaStringHashCode('Topic#' + text.slice(from, to)),
        `continued ${from}..${to}`,
      );
    }
  }
  for (let at = 0; at < 12; at++) {
    const b = Buffer.from('abcdefghijkl', 'latin1');
    b[at] = 0x80 | at;
    assert.equal(continueAsciiHash(7, viewOf(b), 0, b.length), undefined, `non-ASCII at ${at}`);
  }
});
