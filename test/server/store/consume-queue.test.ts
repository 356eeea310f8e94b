import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ConsumeQueue,
  CQ_ENTRY_SIZE,
  CqEntries,
  encodeCqEntries,
  readCqEntry,
  writeCqEntry,
} from '../../../src/server/store/consume-queue.js';
import { tempDir } from './helpers.js';

/** Entries `[first, first + count)` whose physical offset encodes `tag` and the queue offset. */
function entries(first: number, count: number, tag: number): Buffer {
  const buf = Buffer.alloc(count * CQ_ENTRY_SIZE);
  for (let i = 0; i < count; i++) writeCqEntry(buf, i * CQ_ENTRY_SIZE, tag * 1_000_000 + first + i, 100, tag);
  return buf;
}

function offsetsOf(raw: Buffer): number[] {
  const out: number[] = [];
  for (let at = 0; at < raw.length; at += CQ_ENTRY_SIZE) out.push(readCqEntry(raw, at).physicalOffset);
  return out;
}

const range = (from: number, n: number, tag = 0): number[] =>
  Array.from({ length: n }, (_, i) => tag * 1_000_000 + from + i);

test('entries pulls read from the in-memory block follow the queue as it grows and after a truncation', async () => {
  const tmp = await tempDir();
  // 1600 entries per file: the 800-entry block divides it.
  const queue = await ConsumeQueue.open(tmp.dir, 'T', 0, 1600);
  try {
    await queue.write(0, entries(0, 100, 0));
    queue.maxOffset = 100;
    assert.deepEqual(offsetsOf(await queue.readEntries(0, 32, true)), range(0, 32));
    // Only visible entries: the block holds 100 and reads the rest once they are visible.
    await queue.write(100, entries(100, 100, 0));
    assert.deepEqual(offsetsOf(await queue.readEntries(90, 32, true)), range(90, 10));
    queue.maxOffset = 200;
    assert.deepEqual(offsetsOf(await queue.readEntries(90, 32, true)), range(90, 32));
    // What a caller gets is its own copy.
    const mine = await queue.readEntries(0, 1, true);
    mine.fill(0);
    assert.deepEqual(offsetsOf(await queue.readEntries(0, 1, true)), [0]);
    // Recovery cuts visible entries; new ones take their place.
    await queue.truncate(50);
    await queue.write(50, entries(50, 50, 7));
    queue.maxOffset = 100;
    assert.deepEqual(offsetsOf(await queue.readEntries(40, 20, true)), [
      ...range(40, 10),
      ...range(50, 10, 7),
    ]);
    // Across the block boundary at entry 800.
    await queue.write(100, entries(100, 900, 0));
    queue.maxOffset = 1000;
    assert.deepEqual(offsetsOf(await queue.readEntries(790, 20, true)), range(790, 20));
  } finally {
    await queue.close();
    await tmp.remove();
  }
});

test("a batch of consume-queue entries is Java's layout: int64 offset, int32 size, int64 tags code (negative codes sign-extended)", () => {
  const fields = [0, 180, 0, 4096 + 2 ** 40, 212, -1_234_567_890, 2 ** 53 - 1, 1, 2_147_483_647];
  const bytes = encodeCqEntries(fields);
  assert.equal(
    bytes.toString('hex'),
    '0000000000000000' +
      '000000b4' +
      '0000000000000000' +
      '0000010000001000' +
      '000000d4' +
      'ffffffffb669fd2e' +
      '001fffffffffffff' +
      '00000001' +
      '000000007fffffff',
  );
  const one = Buffer.alloc(CQ_ENTRY_SIZE);
  writeCqEntry(one, 0, fields[3]!, fields[4]!, fields[5]!);
  assert.deepEqual(bytes.subarray(CQ_ENTRY_SIZE, 2 * CQ_ENTRY_SIZE), one);
  assert.equal(encodeCqEntries([]).length, 0);
});

test('CqEntries: single entries and stored batches, in the order added, are the bytes encodeCqEntries gives for the same fields', () => {
  const entries = new CqEntries();
  entries.addOne(4096 + 2 ** 40, 212, -1_234_567_890);
  // A batch of three records placed at 10_000: sizes 100, 150, 90; tags codes of all signs.
  entries.addBatch(10_000, Int32Array.of(0, 100, 250, 340), Int32Array.of(0, -1, 2_147_483_647), 3);
  entries.addOne(2 ** 53 - 1, 1, 7);
  entries.addOne(3, 4, -2_147_483_648);
  assert.equal(entries.count, 6);
  const fields = [
    4096 + 2 ** 40,
    212,
    -1_234_567_890,
    10_000,
    100,
    0,
    10_100,
    150,
    -1,
    10_250,
    90,
    2_147_483_647,
    2 ** 53 - 1,
    1,
    7,
    3,
    4,
    -2_147_483_648,
  ];
  assert.deepEqual(entries.encode(), encodeCqEntries(fields));
  assert.equal(new CqEntries().encode().length, 0);
});
