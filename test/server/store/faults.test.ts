import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import type { StoreTestHooks } from '../../../src/server/store/options.js';
import { message, tempDir } from './helpers.js';

const SEG = 64 * 1024;

function diskFull(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

test('a failing commit-log write gives an error result, and the store keeps serving', async () => {
  const tmp = await tempDir();
  let fail: ((file: string) => boolean) | undefined;
  const hooks: StoreTestHooks = {
    beforeWrite(file) {
      if (fail?.(file)) throw diskFull();
    },
  };
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG, testHooks: hooks });
    const ok1 = await store.putMessage(message('F', 0, 'one'));
    fail = (file) => file.includes('commitlog');
    const bad = await Promise.all([
      store.putMessage(message('F', 0, 'lost-a')),
      store.putMessage(message('F', 1, 'lost-b')),
    ]);
    for (const r of bad) {
      assert.equal(r.status, 'SERVICE_NOT_AVAILABLE');
      assert.equal((r.error as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    fail = undefined;
    const ok2 = await store.putMessage(message('F', 0, 'two'));
    assert.equal(ok2.status, 'PUT_OK');
    assert.equal(ok2.physicalOffset, ok1.physicalOffset + ok1.wroteBytes, 'write position rolled back');
    assert.equal(ok2.queueOffset, 1, 'queue offset rolled back');
    assert.equal(store.getMaxOffset('F', 1), 0);

    // A failing consume-queue write rolls the commit log back too.
    fail = (file) => file.includes('consumequeue');
    const bad2 = await store.putMessage(message('F', 0, 'lost-c'));
    assert.equal(bad2.status, 'SERVICE_NOT_AVAILABLE');
    fail = undefined;
    const ok3 = await store.putMessage(message('F', 0, 'three'));
    assert.deepEqual([ok3.queueOffset, ok3.physicalOffset], [2, ok2.physicalOffset + ok2.wroteBytes]);
    await store.close();

    const reopened = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    const got = await reopened.getMessages('F', 0, 0, 10);
    assert.deepEqual(
      got.messages.map((b) => decodeStoredMessage(b).message.body.toString()),
      ['one', 'two', 'three'],
    );
    assert.equal(reopened.getMaxOffset('F', 1), 0);
    await reopened.close();
  } finally {
    await tmp.remove();
  }
});

test('a write failing while rolling to a new segment is rolled back, blank included', async () => {
  const tmp = await tempDir();
  let failNewSegment = false;
  const hooks: StoreTestHooks = {
    beforeWrite(file) {
      if (failNewSegment && file.endsWith(String(SEG).padStart(20, '0'))) throw new Error('EIO: i/o error');
    },
  };
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG, testHooks: hooks });
    let last = await store.putMessage(message('Roll', 0, 'x'.repeat(1000)));
    while (last.physicalOffset + 2 * last.wroteBytes + 8 <= SEG) {
      last = await store.putMessage(message('Roll', 0, 'x'.repeat(1000)));
    }
    const end = last.physicalOffset + last.wroteBytes;
    failNewSegment = true;
    const bad = await store.putMessage(message('Roll', 0, 'y'.repeat(1000)));
    assert.equal(bad.status, 'UNKNOWN_ERROR');
    assert.match(bad.error!.message, /EIO/);
    assert.equal(store.maxPhysicalOffset, end);
    failNewSegment = false;
    const good = await store.putMessage(message('Roll', 0, 'z'.repeat(1000)));
    assert.deepEqual(
      [good.status, good.physicalOffset, good.queueOffset],
      ['PUT_OK', SEG, last.queueOffset + 1],
    );
    await store.close();
    const reopened = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    assert.equal(reopened.getMaxOffset('Roll', 0), last.queueOffset + 2);
    await reopened.close();
  } finally {
    await tmp.remove();
  }
});

test('a removed data directory gives error results, not a crash, and reads keep working', async () => {
  const tmp = await tempDir();
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    const first = await store.putMessage(message('Gone', 0, 'kept'));
    await rm(join(tmp.dir, 'commitlog'), { recursive: true, force: true });
    // The open segment is unlinked but still writable; rolling to a new one must fail.
    let r = first;
    for (let i = 0; i < 200 && r.status === 'PUT_OK'; i++)
      r = await store.putMessage(message('Gone', 0, 'p'.repeat(2000)));
    assert.equal(r.status, 'UNKNOWN_ERROR');
    assert.equal((r.error as NodeJS.ErrnoException).code, 'ENOENT');
    const again = await store.putMessage(message('Gone', 0, 'p'.repeat(2000)));
    assert.notEqual(again.status, 'PUT_OK');
    const got = await store.getMessages('Gone', 0, 0, 1);
    assert.equal(decodeStoredMessage(got.messages[0]!).message.body.toString(), 'kept');
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('sync flush: puts resolve only after fdatasync, and concurrent puts share one (group commit)', async () => {
  const tmp = await tempDir();
  let syncs = 0;
  let gate: Promise<void> | undefined;
  const hooks: StoreTestHooks = {
    async beforeSync() {
      syncs++;
      await gate;
    },
  };
  try {
    const store = await MessageStore.open({
      dataDir: tmp.dir,
      segmentSize: SEG,
      flush: 'sync',
      testHooks: hooks,
    });
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    let resolved = false;
    const pending = store.putMessage(message('S', 0, 'durable')).then((r) => {
      resolved = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(resolved, false, 'a sync put waits for the fsync');
    assert.equal(store.getMaxOffset('S', 0), 0, 'not visible before it is durable');
    open();
    assert.equal((await pending).status, 'PUT_OK');
    gate = undefined;

    syncs = 0;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.putMessage(message('S', i % 4, `m${i}`))),
    );
    assert.ok(results.every((r) => r.status === 'PUT_OK'));
    assert.ok(syncs >= 1 && syncs <= 10, `200 concurrent puts took ${syncs} fsyncs`);
    assert.equal(store.getMaxOffset('S', 0), 51);
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('sync flush: a failed fsync rolls the batch back; a slow one gives FLUSH_DISK_TIMEOUT', async () => {
  const tmp = await tempDir();
  let mode: 'ok' | 'fail' | 'slow' = 'ok';
  const hooks: StoreTestHooks = {
    async beforeSync() {
      if (mode === 'fail') throw Object.assign(new Error('EIO: fsync failed'), { code: 'EIO' });
      if (mode === 'slow') await new Promise((r) => setTimeout(r, 100));
    },
  };
  try {
    const store = await MessageStore.open({
      dataDir: tmp.dir,
      segmentSize: SEG,
      flush: 'sync',
      syncFlushTimeoutMs: 20,
      testHooks: hooks,
    });
    await store.putMessage(message('S', 0, 'a'));
    mode = 'fail';
    const failed = await store.putMessage(message('S', 0, 'b'));
    assert.equal(failed.status, 'UNKNOWN_ERROR');
    assert.equal(store.getMaxOffset('S', 0), 1);
    mode = 'slow';
    const slow = await store.putMessage(message('S', 0, 'c'));
    assert.equal(slow.status, 'FLUSH_DISK_TIMEOUT');
    assert.equal(slow.queueOffset, 1, 'stored anyway, as Java does');
    mode = 'ok';
    await store.close();
    const reopened = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    const got = await reopened.getMessages('S', 0, 0, 10);
    assert.deepEqual(
      got.messages.map((b) => decodeStoredMessage(b).message.body.toString()),
      ['a', 'c'],
    );
    await reopened.close();
  } finally {
    await tmp.remove();
  }
});
