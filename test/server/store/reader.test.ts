import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeStoredMessages } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import { LOG_BLOCK_BYTES } from '../../../src/server/store/log-block-cache.js';
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
