import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import { message, tempDir } from './helpers.js';

const SEG = 64 * 1024;
const crashWriter = fileURLToPath(new URL('./fixtures/crash-writer.js', import.meta.url));

async function put(store: MessageStore, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const r = await store.putMessage(message('Rs', i % 3, `r${i}`.padEnd(600, '-'), { KEYS: `rk-${i}` }));
    assert.equal(r.status, 'PUT_OK');
  }
}

function total(store: MessageStore): number {
  return [0, 1, 2].reduce((n, q) => n + store.getMaxOffset('Rs', q), 0);
}

/**
 * What a kill -9 leaves: the files as the OS has them while the store is still open (abort
 * file present, no final checkpoint). Copies `dir` to `<dir>-crash`.
 */
async function crashCopy(dir: string): Promise<string> {
  const copy = crashCopyPath(dir);
  await cp(dir, copy, { recursive: true });
  return copy;
}

const crashCopyPath = (dir: string): string => `${dir}-crash`;

/** Removes a test's data directory and its crash copy, if it made one. */
async function removeWithCrashCopy(tmp: { dir: string; remove(): Promise<void> }): Promise<void> {
  await tmp.remove();
  await rm(crashCopyPath(tmp.dir), { recursive: true, force: true });
}

test('a store closed cleanly reopens from its checkpoint without re-dispatching any record', async () => {
  const tmp = await tempDir();
  try {
    let store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    await put(store, 0, 400); // ~4 segments
    await store.close();
    store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    try {
      const info = store.lastRecovery!;
      assert.deepEqual([info.abnormal, info.fullRebuild, info.dispatched], [false, false, 0]);
      assert.equal(info.dispatchedFrom, store.maxPhysicalOffset);
      assert.ok(info.verifiedFrom > 0, 'only the last three segments are re-validated');
      assert.equal(total(store), 400);
      const [hit] = await store.queryMessagesByKey('Rs', 'rk-17', 1, 0, Number.MAX_SAFE_INTEGER);
      assert.ok(hit !== undefined, 'key index loaded from disk');
      assert.match(decodeStoredMessage(hit).message.body.toString(), /^r17-/);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('a broker restarted after a kill -9 recovers from the checkpoint without scanning the whole log', async () => {
  const tmp = await tempDir();
  try {
    const child = spawn(process.execPath, [crashWriter, tmp.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: Array<{ queueId: number; offset: number; i: number }> = [];
    let buffered = '';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [q, o, i] = line.split(' ').map(Number) as [number, number, number];
          acked.push({ queueId: q, offset: o, i });
        }
        // Enough for several segments and checkpoints.
        if (acked.length >= 3000 && !child.killed) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () => resolve());
    });
    await exited;
    assert.ok(acked.length >= 3000, `child acknowledged only ${acked.length} puts`);

    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    try {
      const info = store.lastRecovery!;
      assert.equal(info.abnormal, true, 'the abort file tells a crash');
      assert.equal(info.fullRebuild, false);
      assert.ok(info.checkpointOffset !== undefined && info.checkpointOffset > 0);
      assert.ok(
        info.verifiedFrom > 0,
        `validation started at ${info.verifiedFrom}, not at the start of the log`,
      );
      assert.ok(
        info.dispatched < acked.length,
        `${info.dispatched} records re-dispatched of ${acked.length}`,
      );
      for (const a of acked) {
        const r = await store.getMessages('Crash', a.queueId, a.offset, 1);
        assert.equal(r.status, 'FOUND', `acknowledged ${a.queueId}/${a.offset} missing`);
        assert.equal(
          decodeStoredMessage(r.messages[0]!).message.body.toString().replace(/#+$/, ''),
          `payload-${a.i}`,
        );
      }
      const first = acked[0]!;
      const last = acked[acked.length - 1]!;
      for (const a of [first, last]) {
        const hits = await store.queryMessagesByKey('Crash', `crash-${a.i}`, 4, 0, Number.MAX_SAFE_INTEGER);
        assert.equal(hits.length, 1, `key crash-${a.i} found once`);
      }
      const more = await store.putMessage(message('Crash', 0, 'after'));
      assert.equal(more.status, 'PUT_OK');
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('after a crash, records written since the checkpoint are re-dispatched to queues and index', async () => {
  const tmp = await tempDir();
  let copy: string | undefined;
  try {
    const store = await MessageStore.open({
      dataDir: tmp.dir,
      segmentSize: SEG,
      checkpointIntervalMs: 3_600_000,
    });
    try {
      await put(store, 0, 300);
      await store.checkpointNow();
      await put(store, 300, 50);
      copy = await crashCopy(tmp.dir);
    } finally {
      await store.close();
    }
    const crashed = await MessageStore.open({ dataDir: copy, segmentSize: SEG });
    try {
      const info = crashed.lastRecovery!;
      assert.deepEqual([info.abnormal, info.fullRebuild, info.dispatched], [true, false, 50]);
      assert.equal(total(crashed), 350);
      const [hit] = await crashed.queryMessagesByKey('Rs', 'rk-349', 2, 0, Number.MAX_SAFE_INTEGER);
      assert.match(decodeStoredMessage(hit!).message.body.toString(), /^r349-/);
      const r = await crashed.putMessage(message('Rs', 349 % 3, 'next'));
      assert.equal(r.queueOffset, crashed.getMaxOffset('Rs', 349 % 3) - 1);
    } finally {
      await crashed.close();
    }
  } finally {
    await removeWithCrashCopy(tmp);
  }
});

test('after a crash, a torn last record past the checkpoint is cut from the log and from its queue', async () => {
  const tmp = await tempDir();
  let copy: string | undefined;
  try {
    const store = await MessageStore.open({
      dataDir: tmp.dir,
      segmentSize: SEG,
      checkpointIntervalMs: 3_600_000,
    });
    let tornAt: number;
    try {
      await put(store, 0, 200);
      await store.checkpointNow();
      await put(store, 200, 20);
      tornAt = store.maxPhysicalOffset;
      await put(store, 220, 1);
      copy = await crashCopy(tmp.dir);
    } finally {
      await store.close();
    }
    const files = (await readdir(join(copy, 'commitlog'))).sort();
    const last = join(copy, 'commitlog', files[files.length - 1]!);
    await truncate(last, (await stat(last)).size - 300); // half of the last record never reached the disk
    const crashed = await MessageStore.open({ dataDir: copy, segmentSize: SEG });
    try {
      assert.equal(crashed.lastRecovery?.fullRebuild, false);
      assert.equal(crashed.maxPhysicalOffset, tornAt);
      assert.equal(total(crashed), 220);
      // Queue 1 holds i = 1, 4, …, 217 (73 messages); i = 220 was torn.
      assert.equal(crashed.getMaxOffset('Rs', 1), 73);
      const r = await crashed.putMessage(message('Rs', 1, 'replaces the torn one'));
      assert.deepEqual([r.physicalOffset, r.queueOffset], [tornAt, 73]);
    } finally {
      await crashed.close();
    }
  } finally {
    await removeWithCrashCopy(tmp);
  }
});

test('a torn consume-queue entry and zero-filled queue tail after a crash are repaired', async () => {
  const tmp = await tempDir();
  let copy: string | undefined;
  try {
    const store = await MessageStore.open({
      dataDir: tmp.dir,
      segmentSize: SEG,
      checkpointIntervalMs: 3_600_000,
    });
    try {
      await put(store, 0, 90);
      await store.checkpointNow();
      await put(store, 90, 30);
      copy = await crashCopy(tmp.dir);
    } finally {
      await store.close();
    }
    const qdir = join(copy, 'consumequeue', 'Rs', '0');
    const [qfile] = await readdir(qdir);
    const path = join(qdir, qfile!);
    const bytes = await readFile(path);
    // The last 3 entries: 2 zeroed (written as holes), the very last torn to 7 bytes.
    await writeFile(path, Buffer.concat([bytes.subarray(0, bytes.length - 60), Buffer.alloc(47)]));
    const crashed = await MessageStore.open({ dataDir: copy, segmentSize: SEG });
    try {
      assert.equal(crashed.lastRecovery?.fullRebuild, false);
      assert.equal(crashed.getMaxOffset('Rs', 0), 40);
      for (let o = 0; o < 40; o++) {
        const r = await crashed.getMessages('Rs', 0, o, 1);
        assert.match(decodeStoredMessage(r.messages[0]!).message.body.toString(), new RegExp(`^r${o * 3}-`));
      }
    } finally {
      await crashed.close();
    }
  } finally {
    await removeWithCrashCopy(tmp);
  }
});

test('a checkpoint that fails its CRC makes the store rebuild queues and index from the whole log', async () => {
  const tmp = await tempDir();
  try {
    let store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    await put(store, 0, 120);
    await store.close();
    const path = join(tmp.dir, 'checkpoint');
    const page = await readFile(path);
    page[73] = page[73]! ^ 0x40;
    await writeFile(path, page);
    store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    try {
      assert.deepEqual([store.lastRecovery?.fullRebuild, store.lastRecovery?.dispatched], [true, 120]);
      assert.equal(total(store), 120);
      assert.equal((await store.queryMessagesByKey('Rs', 'rk-5', 5, 0, Number.MAX_SAFE_INTEGER)).length, 1);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('a full key-index file rolls over to a new one and keys of every file are found after a restart', async () => {
  const tmp = await tempDir();
  const opts = { dataDir: tmp.dir, segmentSize: SEG, maxIndexNum: 50, maxHashSlotNum: 16 };
  try {
    let store = await MessageStore.open(opts);
    await put(store, 0, 130); // 49 keys per file: 3 files
    await store.close();
    assert.equal((await readdir(join(tmp.dir, 'index'))).length, 3);
    store = await MessageStore.open(opts);
    try {
      assert.equal(store.lastRecovery?.dispatched, 0);
      for (const i of [0, 48, 49, 98, 129]) {
        const hits = await store.queryMessagesByKey('Rs', `rk-${i}`, 4, 0, Number.MAX_SAFE_INTEGER);
        assert.equal(hits.length, 1, `rk-${i}`);
        assert.match(decodeStoredMessage(hits[0]!).message.body.toString(), new RegExp(`^r${i}-`));
      }
      assert.deepEqual(await store.queryMessagesByKey('Rs', 'rk-130', 4, 0, Number.MAX_SAFE_INTEGER), []);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});
