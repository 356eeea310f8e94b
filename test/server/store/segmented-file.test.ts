import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { SegmentedFile } from '../../../src/server/store/segmented-file.js';
import { tempDir } from './helpers.js';

test('readSyncIfOpen reads what read reads, across segments, once the segments are open', async () => {
  const tmp = await tempDir();
  try {
    const data = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    const writer = await SegmentedFile.open(tmp.dir, 1024);
    await writer.write(0, data);
    await writer.close();

    const file = await SegmentedFile.open(tmp.dir, 1024);
    // Freshly listed segments have no handle yet: the caller must take the async path.
    assert.equal(file.readSyncIfOpen(1000, 100), undefined);
    assert.deepEqual(await file.read(1000, 100), data.subarray(1000, 1100));
    assert.equal(file.readSyncIfOpen(1000, 2000), undefined, 'the third segment is still closed');
    await file.read(2048, 1);
    assert.deepEqual(file.readSyncIfOpen(1000, 2000), data.subarray(1000, 3000));
    // Short at the end of the data, like read.
    assert.deepEqual(file.readSyncIfOpen(2900, 500), data.subarray(2900));
    // Into a caller's buffer: a view of it.
    const into = Buffer.alloc(4096);
    const view = file.readSyncIfOpen(10, 50, into);
    assert.equal(view?.buffer, into.buffer);
    assert.deepEqual(view, data.subarray(10, 60));
    await file.close();
  } finally {
    await tmp.remove();
  }
});

test('writeParts lays parts back to back: gathered within a segment, joined when they cross into the next', async () => {
  const tmp = await tempDir();
  try {
    const data = Buffer.from(Array.from({ length: 2500 }, (_, i) => (i * 7) % 253));
    const file = await SegmentedFile.open(tmp.dir, 1024);
    // Within the first segment (new), then within it again after a gap-free start.
    await file.writeParts(0, [data.subarray(0, 100), data.subarray(100, 101), data.subarray(101, 700)], 700);
    await file.writeParts(700, [data.subarray(700, 1000), data.subarray(1000, 1024)], 324);
    assert.equal(file.segmentCount, 1);
    // Crossing from the second segment into the third: joined, then split at the boundary.
    await file.writeParts(1024, [data.subarray(1024, 1500)], 476);
    await file.writeParts(1500, [data.subarray(1500, 2000), data.subarray(2000, 2500)], 1000);
    assert.equal(file.segmentCount, 3);
    assert.equal(file.endOffset, 2500);
    assert.deepEqual(await file.read(0, 2500), data);
    // A write past the end that would leave a gap is refused.
    await assert.rejects(file.writeParts(4096, [data.subarray(0, 10), data.subarray(10, 20)], 20), /gap/);
    await file.close();
    const reopened = await SegmentedFile.open(tmp.dir, 1024);
    assert.deepEqual(await reopened.read(0, 2500), data);
    await reopened.close();
  } finally {
    await tmp.remove();
  }
});

test('writeParts with more parts than one pwritev takes (IOV_MAX is 1024 on Linux) writes them all, in order', async () => {
  const tmp = await tempDir();
  try {
    const parts = Array.from({ length: 3000 }, (_, i) => Buffer.from([i & 0xff, (i >> 8) & 0xff, 0x5a]));
    const file = await SegmentedFile.open(tmp.dir, 1 << 20);
    await file.writeParts(0, parts, 9000);
    assert.equal(file.endOffset, 9000);
    assert.deepEqual(await file.read(0, 9000), Buffer.concat(parts));
    await file.close();
  } finally {
    await tmp.remove();
  }
});
