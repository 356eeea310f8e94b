import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import {
  IDS_PER_CLOCK_READING,
  UniqIdGenerator,
  decodeOffsetMsgId,
  decodeUniqId,
  encodeOffsetMsgId,
  startOfMonth,
} from '../../src/protocol/message/message-id.js';

describe('offsetMsgId (§3.4)', () => {
  it('encodes the verified example', () => {
    assert.equal(encodeOffsetMsgId('127.0.0.1', 10911, 1234), '7F00000100002A9F00000000000004D2');
  });

  it('decodes the verified example, in either case', () => {
    const expected = { host: '127.0.0.1', port: 10911, offset: 1234 };
    assert.deepEqual(decodeOffsetMsgId('7F00000100002A9F00000000000004D2'), expected);
    assert.deepEqual(decodeOffsetMsgId('7f00000100002a9f00000000000004d2'), expected);
  });

  it('uses 56 hex chars for IPv6 store hosts and round trips', () => {
    const id = encodeOffsetMsgId('::1', 10911, 2 ** 40 + 7);
    assert.equal(id.length, 56);
    assert.equal(id, '00000000000000000000000000000001' + '00002A9F' + '0000010000000007');
    assert.deepEqual(decodeOffsetMsgId(id), { host: '::1', port: 10911, offset: 2 ** 40 + 7 });
    assert.deepEqual(decodeOffsetMsgId(encodeOffsetMsgId('fe80::1:2', 1, 5)), {
      host: 'fe80::1:2',
      port: 1,
      offset: 5,
    });
  });

  it('round trips large offsets', () => {
    const offset = Number.MAX_SAFE_INTEGER;
    assert.equal(decodeOffsetMsgId(encodeOffsetMsgId('127.1.2.3', 65535, offset)).offset, offset);
  });

  it('rejects malformed ids', () => {
    for (const bad of [
      '',
      'XYZ',
      '7F00000100002A9F00000000000004D',
      '7F00000100002A9F00000000000004DZ',
      'FFFFFFFF00002A9FFFFFFFFFFFFFFFFF',
    ]) {
      assert.throws(() => decodeOffsetMsgId(bad), ProtocolError, bad);
    }
  });
});

/** Lets the generator's clock reading end (it lasts for the current run of code). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('UNIQ_KEY (§5)', () => {
  it('lays out the illustrative id of §5', () => {
    // IP 127.0.0.10 (7F00000A), pid 12345, hash 0x1B6D3586, time 0x0A1B2C3D, counter 1.
    const now = startOfMonth(Date.UTC(2026, 5, 15)).start + 0x0a1b2c3d;
    const gen = new UniqIdGenerator({
      ip: Uint8Array.of(127, 0, 0, 10),
      pid: 12345,
      hash: 0x1b6d3586,
      now: () => now,
    });
    assert.equal(gen.next(), '7F00000A30391B6D35860A1B2C3D0000');
    assert.equal(gen.next(), '7F00000A30391B6D35860A1B2C3D0001');
  });

  it('is 32 uppercase hex chars by default, distinct, and decodes back', () => {
    const gen = new UniqIdGenerator();
    const a = gen.next();
    const b = gen.next();
    assert.match(a, /^[0-9A-F]{32}$/);
    assert.notEqual(a, b);
    const parts = decodeUniqId(b);
    assert.equal(parts.pid, process.pid & 0xffff);
    assert.equal(parts.counter, 1);
    // Java truncates the difference to int32, so it wraps after ~24.8 days.
    const sinceMonth = (Date.now() - startOfMonth(Date.now()).start) | 0;
    assert.ok(Math.abs(parts.monthOffsetMs - sinceMonth) < 60_000);
  });

  it('wraps the counter at 16 bits and truncates the pid to a short', () => {
    const gen = new UniqIdGenerator({
      ip: Uint8Array.of(127, 0, 0, 4),
      pid: 0x12345,
      hash: -1,
      now: () => 0,
    });
    let last = '';
    for (let i = 0; i <= 0x10000; i++) last = gen.next();
    assert.equal(decodeUniqId(last).counter, 0);
    assert.equal(decodeUniqId(last).pid, 0x2345);
    assert.equal(decodeUniqId(last).hash, -1);
  });

  it('clamps small negative time differences to 0 and moves to the next month', async () => {
    let now = startOfMonth(Date.UTC(2026, 0, 20)).next - 1;
    const gen = new UniqIdGenerator({ ip: Uint8Array.of(127, 0, 0, 4), pid: 1, hash: 1, now: () => now });
    const before = decodeUniqId(gen.next()).monthOffsetMs;
    // int32 truncation as in Java: the last ms of a 31-day month wraps negative.
    assert.equal(before, (31 * 86_400_000 - 1) | 0);
    now += 2;
    await nextTurn();
    assert.equal(decodeUniqId(gen.next()).monthOffsetMs, 1);
    now -= 500; // clock skew back into the previous month
    await nextTurn();
    assert.equal(decodeUniqId(gen.next()).monthOffsetMs, 0);
  });

  it('reads the clock once per run of code, for at most IDS_PER_CLOCK_READING ids', async () => {
    let now = startOfMonth(Date.UTC(2026, 0, 20)).start + 1000;
    let reads = 0;
    const gen = new UniqIdGenerator({
      ip: Uint8Array.of(127, 0, 0, 4),
      pid: 1,
      hash: 1,
      now: () => {
        reads++;
        return now;
      },
    });
    const first = decodeUniqId(gen.next()).monthOffsetMs;
    now += 5;
    // Same run: the reading stands.
    assert.equal(decodeUniqId(gen.next()).monthOffsetMs, first);
    assert.equal(reads, 1);
    // A microtask queued after the reading already sees a new one.
    await Promise.resolve();
    assert.equal(decodeUniqId(gen.next()).monthOffsetMs, first + 5);
    assert.equal(reads, 2);
    await nextTurn();
    now += 5;
    const seen = new Set<number>();
    for (let i = 0; i < IDS_PER_CLOCK_READING * 3; i++) {
      seen.add(decodeUniqId(gen.next()).monthOffsetMs);
      now++;
    }
    // Three readings in one run, each used for IDS_PER_CLOCK_READING ids.
    assert.equal(reads, 5);
    assert.deepEqual(
      [...seen],
      [first + 10, first + 10 + IDS_PER_CLOCK_READING, first + 10 + 2 * IDS_PER_CLOCK_READING],
    );
  });

  it('is 56 hex chars with an IPv6 address', () => {
    const ip = new Uint8Array(16);
    ip[15] = 1;
    const id = new UniqIdGenerator({ ip, pid: 1, hash: 2 }).next();
    assert.equal(id.length, 56);
    assert.equal(decodeUniqId(id).ip, '::1');
  });
});
