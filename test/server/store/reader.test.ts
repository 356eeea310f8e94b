import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeStoredMessages } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import { LOG_BLOCK_BYTES } from '../../../src/server/store/block-cache.js';
import { tagsHashCode } from '../../../src/server/store/consume-queue.js';
import { message, tempDir } from './helpers.js';

test('pulls of queues interleaved in the log return every record once, in order, across cached blocks', async () => {
  const tmp = await tempDir();
  const store = await MessageStore.open({ dataDir: tmp.dir });
  try {
    const queues = 4;
    // Bodies of odd sizes so that records straddle the boundaries of the in-memory blocks.
    const sizes = [700, 1300, 2900, 333];
    let written = 0;
    let n = 0;
    while (written < 3 * LOG_BLOCK_BYTES) {
      const size = sizes[n % sizes.length]!;
      const puts = [];
      for (let q = 0; q < queues; q++)
        puts.push(store.putMessage(message('T', q, Buffer.alloc(size, n % 256))));
      for (const r of await Promise.all(puts)) assert.equal(r.status, 'PUT_OK');
      written += queues * (size + 150);
      n++;
    }
    for (let q = 0; q < queues; q++) {
      let offset = 0;
      let seen = 0;
      while (offset < n) {
        const got = await store.getMessages('T', q, offset, 32);
        assert.equal(got.status, 'FOUND');
        assert.ok(got.body, 'every record came back');
        const decoded = decodeStoredMessages(got.body);
        assert.equal(decoded.length, got.messages.length);
        for (const m of decoded) {
          assert.equal(m.queueOffset, seen);
          const size = sizes[seen % sizes.length]!;
          assert.ok(
            m.body.length === size && m.body.every((b) => b === seen % 256),
            `queue ${q} offset ${seen}`,
          );
          seen++;
        }
        offset = got.nextBeginOffset;
      }
      assert.equal(seen, n);
    }
  } finally {
    await store.close();
    await tmp.remove();
  }
});

const allEntries = { matchesEntry: (): boolean => true };

test("a pull gets Java's transfer limits: 32 messages from memory, 8 from disk, and the byte limits", async () => {
  const tmp = await tempDir();
  let store = await MessageStore.open({ dataDir: tmp.dir });
  try {
    for (let i = 0; i < 100; i++) await store.putMessage(message('T', 0, Buffer.alloc(1000, i)));
    // Without `pull` (internal readers) only maxNums and maxBytes count.
    assert.equal((await store.getMessages('T', 0, 0, 64)).messages.length, 64);
    const inMemory = await store.getMessages('T', 0, 0, 64, undefined, allEntries);
    assert.equal(inMemory.messages.length, 32);
    assert.equal(inMemory.nextBeginOffset, 32);
    await store.close();
    // Every record counts as on disk once the in-memory share of RAM is 0.
    store = await MessageStore.open({ dataDir: tmp.dir, accessMessageInMemoryMaxRatio: 0 });
    assert.equal((await store.getMessages('T', 0, 0, 64, undefined, allEntries)).messages.length, 8);
    await store.close();
    store = await MessageStore.open({ dataDir: tmp.dir, maxTransferBytesOnMessageInMemory: 5000 });
    const bytesCapped = await store.getMessages('T', 0, 10, 64, undefined, allEntries);
    assert.ok(bytesCapped.messages.length >= 1 && bytesCapped.messages.length < 5, 'about 1.1 KB per record');
    assert.equal(bytesCapped.nextBeginOffset, 10 + bytesCapped.messages.length);
  } finally {
    await store.close();
    await tmp.remove();
  }
});

test('a filtered pull skips non-matching entries without reading them and returns a full batch of matching ones', async () => {
  const tmp = await tempDir();
  const store = await MessageStore.open({ dataDir: tmp.dir });
  try {
    // One message in ten is TagA; then 900 of TagB only.
    for (let i = 0; i < 500; i++)
      await store.putMessage(message('T', 0, Buffer.from(`m${i}`), { TAGS: i % 10 === 0 ? 'TagA' : 'TagB' }));
    for (let i = 0; i < 900; i++) await store.putMessage(message('T', 0, Buffer.from('b'), { TAGS: 'TagB' }));
    const tagA = tagsHashCode('TagA');
    const onlyA = { matchesEntry: (code: number): boolean => code === tagA };
    const got = await store.getMessages('T', 0, 0, 32, undefined, onlyA);
    assert.equal(got.status, 'FOUND');
    assert.deepEqual(
      decodeStoredMessages(got.body!).map((m) => m.queueOffset),
      Array.from({ length: 32 }, (_, k) => k * 10),
    );
    // The next pull starts right after the last one returned, like Java's nextBeginOffset.
    assert.equal(got.nextBeginOffset, 311);
    // From 500 on nothing matches: Java scans 800 entries and answers NO_MATCHED_MESSAGE past them.
    const none = await store.getMessages('T', 0, 500, 32, undefined, onlyA);
    assert.equal(none.status, 'NO_MATCHED_MESSAGE');
    assert.equal(none.nextBeginOffset, 1300);
    assert.equal(none.messages.length, 0);
  } finally {
    await store.close();
    await tmp.remove();
  }
});
