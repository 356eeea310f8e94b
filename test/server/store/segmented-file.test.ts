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
