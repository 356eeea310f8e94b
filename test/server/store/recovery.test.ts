import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { appendFile, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import { message, tempDir } from './helpers.js';

const SEG = 64 * 1024;

async function lastSegment(dir: string): Promise<string> {
  const files = (await readdir(join(dir, 'commitlog'))).sort();
  return join(dir, 'commitlog', files[files.length - 1]!);
}

/** Writes `count` messages in `store` and returns the file size of the last segment afterwards. */
async function fill(dir: string, count: number): Promise<{ end: number; lastSize: number }> {
  const store = await MessageStore.open({ dataDir: dir, segmentSize: SEG });
  for (let i = 0; i < count; i++)
    await store.putMessage(message('Torn', i % 2, `body-${i}`.padEnd(500, '-')));
  const end = store.maxPhysicalOffset;
  await store.close();
  return { end, lastSize: (await stat(await lastSegment(dir))).size };
}

async function reopenAndCheck(dir: string, count: number, end: number): Promise<void> {
  const store = await MessageStore.open({ dataDir: dir, segmentSize: SEG });
  try {
    assert.equal(store.maxPhysicalOffset, end, 'log cut back to the last valid record');
    assert.equal(store.getMaxOffset('Torn', 0) + store.getMaxOffset('Torn', 1), count);
    // Later appends work and land right after the last valid record.
    const r = await store.putMessage(message('Torn', 0, 'after-recovery'));
    assert.equal(r.status, 'PUT_OK');
    assert.equal(r.physicalOffset, end);
    assert.equal(r.queueOffset, Math.ceil(count / 2));
    const got = await store.getMessages('Torn', 0, r.queueOffset, 1);
    assert.equal(decodeStoredMessage(got.messages[0]!).message.body.toString(), 'after-recovery');
  } finally {
    await store.close();
  }
  // And the repaired log recovers cleanly again.
  const again = await MessageStore.open({ dataDir: dir, segmentSize: SEG });
  assert.equal(again.getMaxOffset('Torn', 0) + again.getMaxOffset('Torn', 1), count + 1);
  await again.close();
}

test('a commit log with garbage appended is cut back on recovery', async () => {
  const tmp = await tempDir();
  try {
    const { end } = await fill(tmp.dir, 150);
    await appendFile(
      await lastSegment(tmp.dir),
      Buffer.from('this is not a record at all, just trailing garbage bytes'),
    );
    await reopenAndCheck(tmp.dir, 150, end);
  } finally {
    await tmp.remove();
  }
});

test('a half-written last record is cut off on recovery', async () => {
  const tmp = await tempDir();
  try {
    const { end } = await fill(tmp.dir, 150);
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    const extra = await store.putMessage(message('Torn', 0, 'x'.repeat(500)));
    await store.close();
    assert.equal(extra.physicalOffset, end);
    // Drop the second half of the last record, as a crash mid-write would.
    const path = await lastSegment(tmp.dir);
    await truncate(path, (await stat(path)).size - 250);
    await reopenAndCheck(tmp.dir, 150, end);
  } finally {
    await tmp.remove();
  }
});

test('a record with a bad body CRC ends the valid log', async () => {
  const tmp = await tempDir();
  try {
    const { lastSize } = await fill(tmp.dir, 120);
    const path = await lastSegment(tmp.dir);
    const bytes = await readFile(path);
    // Walk the last segment to find the start of its last record.
    let at = 0;
    let last = 0;
    while (at < lastSize) {
      last = at;
      at += bytes.readInt32BE(at);
    }
    const segStart = Number(path.slice(-20));
    bytes[last + 300] = bytes[last + 300]! ^ 0xff; // flip a body byte; the stored CRC no longer matches
    await writeFile(path, bytes);
    await reopenAndCheck(tmp.dir, 119, segStart + last);
  } finally {
    await tmp.remove();
  }
});

test('a zero-filled tail (preallocated or torn) is not mistaken for records', async () => {
  const tmp = await tempDir();
  try {
    const { end } = await fill(tmp.dir, 10);
    await appendFile(await lastSegment(tmp.dir), Buffer.alloc(4096));
    await reopenAndCheck(tmp.dir, 10, end);
  } finally {
    await tmp.remove();
  }
});

test('segments after a corrupt one are deleted', async () => {
  const tmp = await tempDir();
  try {
    const { end } = await fill(tmp.dir, 300); // spans 3 segments
    const files = (await readdir(join(tmp.dir, 'commitlog'))).sort();
    assert.ok(files.length >= 3);
    // Corrupt the magic of the first record of the second segment.
    const second = join(tmp.dir, 'commitlog', files[1]!);
    const bytes = await readFile(second);
    bytes.writeInt32BE(0x12345678, 4);
    await writeFile(second, bytes);
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    try {
      assert.equal(store.maxPhysicalOffset, SEG);
      assert.ok(store.maxPhysicalOffset < end);
      assert.deepEqual((await readdir(join(tmp.dir, 'commitlog'))).sort(), files.slice(0, 1));
      const r = await store.putMessage(message('Torn', 0, 'x'));
      assert.equal(r.physicalOffset, SEG);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('records with IPv6 hosts and long (V2) topics are recovered', async () => {
  const tmp = await tempDir();
  try {
    const longTopic = 'L'.repeat(200);
    let store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    const v6 = { ...message(longTopic, 0, 'six', { KEYS: 'v6key' }), bornHost: { address: '::1', port: 1 } };
    const v6store = { ...message('Six', 3, 'store6'), storeHost: { address: 'fe80::1', port: 10911 } };
    assert.equal((await store.putMessage(v6)).status, 'PUT_OK');
    assert.equal((await store.putMessage(v6store)).status, 'PUT_OK');
    await store.close();
    store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    try {
      assert.equal(store.getMaxOffset(longTopic, 0), 1);
      assert.equal(store.getMaxOffset('Six', 3), 1);
      const [rec] = await store.queryMessagesByKey(longTopic, 'v6key', 1, 0, Number.MAX_SAFE_INTEGER);
      assert.ok(rec !== undefined);
      const { message: m } = decodeStoredMessage(rec);
      assert.deepEqual([m.body.toString(), m.bornHost.address], ['six', '::1']);
      assert.equal((await store.putMessage(message(longTopic, 0, 'more'))).queueOffset, 1);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});
