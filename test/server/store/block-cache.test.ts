import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockCache } from '../../../src/server/store/block-cache.js';
import { SegmentedFile } from '../../../src/server/store/segmented-file.js';
import { tempDir } from './helpers.js';

const SEGMENT = 4096;

function pattern(length: number, from = 0): Buffer {
  return Buffer.from(Array.from({ length }, (_, i) => (from + i) % 251));
}

test('a block serves the bytes of the log below the limit, and a tail block grows as the log does', async () => {
  const tmp = await tempDir();
  const file = await SegmentedFile.open(tmp.dir, SEGMENT);
  try {
    await file.write(0, pattern(3000));
    const cache = new BlockCache(file);
    assert.deepEqual(cache.read(100, 200, 3000), pattern(200, 100));
    // Bytes past the limit (not confirmed yet) are never served.
    assert.equal(cache.read(2900, 200, 3000), undefined);
    await file.write(3000, pattern(1000, 3000));
    // The block read up to 3000 before; it now reads the rest of what is confirmed.
    assert.deepEqual(cache.read(2900, 200, 4000), pattern(200, 2900));
    assert.deepEqual(cache.read(0, 4000, 4000), pattern(4000));
  } finally {
    await file.close();
    await tmp.remove();
  }
});

test('a range across a block boundary or in a closed segment is left to the caller', async () => {
  const tmp = await tempDir();
  try {
    const writer = await SegmentedFile.open(tmp.dir, SEGMENT);
    await writer.write(0, pattern(3 * SEGMENT));
    await writer.close();
    const file = await SegmentedFile.open(tmp.dir, SEGMENT);
    const cache = new BlockCache(file);
    // Segments listed at open have no handle until an async read opens them.
    assert.equal(cache.read(10, 10, 3 * SEGMENT), undefined);
    await file.read(0, 1);
    await file.read(SEGMENT, 1);
    assert.deepEqual(cache.read(10, 10, 3 * SEGMENT), pattern(10, 10));
    assert.equal(cache.read(SEGMENT - 10, 20, 3 * SEGMENT), undefined);
    assert.deepEqual(cache.read(SEGMENT + 5, 20, 3 * SEGMENT), pattern(20, SEGMENT + 5));
    await file.close();
  } finally {
    await tmp.remove();
  }
});

test('with more blocks read than kept, the least recently used one is replaced and reads stay right', async () => {
  const tmp = await tempDir();
  const file = await SegmentedFile.open(tmp.dir, SEGMENT);
  try {
    const total = 6 * SEGMENT;
    await file.write(0, pattern(total));
    const cache = new BlockCache(file, 2);
    for (const block of [0, 1, 0, 2, 0, 3, 1, 5, 4, 0]) {
      const at = block * SEGMENT + 100;
      assert.deepEqual(cache.read(at, 300, total), pattern(300, at), `block ${block}`);
    }
  } finally {
    await file.close();
    await tmp.remove();
  }
});
