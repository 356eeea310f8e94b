import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexFile } from '../../../src/server/store/index-file.js';
import { keyHash, keyHashAfter, topicKeyPrefix } from '../../../src/server/store/key-index.js';
import { javaStringHashCode } from '../../../src/protocol/java-string-hash.js';
import { tempDir } from './helpers.js';

const GEOMETRY = { hashSlotNum: 4, indexNum: 64 };
const T0 = 1_700_000_000_000;

async function offsetsOf(file: IndexFile, key: string): Promise<number[]> {
  const out: number[] = [];
  await file.select(keyHash('T', key), 32, 0, Number.MAX_SAFE_INTEGER, out);
  return out;
}

test("an index file is written in Java's layout and read back from disk once full", async () => {
  const tmp = await tempDir();
  try {
    const path = join(tmp.dir, '20260101000000000');
    const file = IndexFile.create(path, { hashSlotNum: 4, indexNum: 4 }, 0);
    for (let i = 0; i < 3; i++)
      assert.equal(file.put(keyHash('T', `k${i % 2}`), 100 * i, T0 + i * 1000), true);
    assert.equal(file.put(keyHash('T', 'k9'), 999, T0), false, 'entry 0 is unused: 3 keys fill 4 entries');
    await file.flush(true);
    assert.equal(file.writable, false);
    const bytes = await readFile(path);
    assert.equal(bytes.length, 40 + 4 * 4 + 4 * 20);
    assert.deepEqual(
      [bytes.readBigInt64BE(0), bytes.readBigInt64BE(24), bytes.readInt32BE(32), bytes.readInt32BE(36)],
      [BigInt(T0), 200n, 2, 4],
      'beginTimestamp, endPhyOffset, hashSlotCount, indexCount',
    );
    assert.deepEqual(await offsetsOf(file, 'k0'), [200, 0], 'newest first, from disk');
    assert.deepEqual(await offsetsOf(file, 'k1'), [100]);
    await file.close();
  } finally {
    await tmp.remove();
  }
});

test('keys replayed after a crash during an index flush link to the right predecessors', async () => {
  const tmp = await tempDir();
  try {
    const path = join(tmp.dir, '20260101000000000');
    const file = IndexFile.create(path, GEOMETRY, 0);
    const keys = Array.from({ length: 20 }, (_, i) => `key-${i % 7}`);
    for (let i = 0; i < 10; i++) file.put(keyHash('T', keys[i]!), i * 10, T0);
    await file.flush();
    const oldHeader = Buffer.alloc(40);
    const fh = await open(path, 'r+');
    await fh.read(oldHeader, 0, 40, 0);
    for (let i = 10; i < 20; i++) file.put(keyHash('T', keys[i]!), i * 10, T0);
    await file.flush();
    await file.close();
    // The crash: entries and slots of the second flush reached the file, its header did not.
    await fh.write(oldHeader, 0, 40, 0);
    await fh.close();

    const reloaded = (await IndexFile.load(path, GEOMETRY))!;
    assert.equal(reloaded.header.indexCount, 11);
    assert.equal(reloaded.header.endPhyOffset, 90);
    // Recovery adds again the records after endPhyOffset, in log order.
    for (let i = 10; i < 20; i++) reloaded.put(keyHash('T', keys[i]!), i * 10, T0);
    for (let k = 0; k < 7; k++) {
      const expected = keys.flatMap((key, i) => (key === `key-${k}` ? [i * 10] : [])).reverse();
      assert.deepEqual(await offsetsOf(reloaded, `key-${k}`), expected, `key-${k}`);
    }
    await reloaded.close();
  } finally {
    await tmp.remove();
  }
});

test('keyHash is |hashCode("topic#key")| as Java computes it, also from a per-topic prefix; MIN_VALUE hashes to 0', () => {
  for (const [topic, key] of [
    ['T', 'k1'],
    ['BenchAutoBatch', '7F00000100012A3B4C5D6E7F80910000'],
    ['主题', 'ключ'],
  ] as const) {
    const h = keyHash(topic, key);
    assert.equal(h, Math.abs(javaStringHashCode(`${topic}#${key}`)));
    assert.equal(keyHashAfter(topicKeyPrefix(topic), key), h);
  }
  // "polygenelubricants".hashCode() is Integer.MIN_VALUE; Java's Math.abs keeps it negative → 0.
  assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
  assert.equal(keyHashAfter(0, 'polygenelubricants'), 0);
});

test('flushes write every changed slot page, near and far apart, and nothing stale', async () => {
  const tmp = await tempDir();
  try {
    const path = join(tmp.dir, '20260101000000000');
    // 40 pages of slots (1024 per page); a hash below hashSlotNum is its own slot.
    const geometry = { hashSlotNum: 40 * 1024 - 3, indexNum: 200 };
    const file = IndexFile.create(path, geometry, 0);
    const expected = new Int32Array(geometry.hashSlotNum);
    let n = 0;
    const putAt = (slot: number): void => {
      assert.equal(file.put(slot, 1000 + n, T0), true);
      expected[slot] = ++n;
    };
    const diskSlots = async (): Promise<Int32Array> => {
      const bytes = await readFile(path);
      return Int32Array.from({ length: geometry.hashSlotNum }, (_, s) => bytes.readInt32BE(40 + 4 * s));
    };
    // Round 1: the first slot, neighbouring pages, pages within the merge gap and far beyond
    // it, the last slot (a short last page).
    for (const page of [0, 1, 2, 5, 14, 15, 30]) putAt(page * 1024 + 7);
    putAt(0);
    putAt(geometry.hashSlotNum - 1);
    await file.flush();
    assert.deepEqual(await diskSlots(), expected);
    // Round 2: other pages, and a slot of round 1 taken again.
    for (const page of [3, 4, 13, 25, 26, 39]) putAt(page * 1024 + 500);
    putAt(5 * 1024 + 7);
    await file.flush();
    assert.deepEqual(await diskSlots(), expected);
    await file.close();
    const reloaded = (await IndexFile.load(path, geometry))!;
    assert.equal(reloaded.header.indexCount, n + 1);
    const out: number[] = [];
    await reloaded.select(5 * 1024 + 7, 8, 0, Number.MAX_SAFE_INTEGER, out);
    assert.deepEqual(out, [1000 + n - 1, 1000 + 3], 'the slot taken twice chains both entries');
    await reloaded.close();
  } finally {
    await tmp.remove();
  }
});
