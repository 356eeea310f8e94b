import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import type { StoreOptions } from '../../../src/server/store/options.js';
import { message, tempDir } from './helpers.js';

const SEG = 64 * 1024;
const HOUR = 3600_000;
/** 04:30 local time: inside Java's default `deleteWhen` "04". */
const AT_FOUR = new Date(2026, 0, 15, 4, 30).getTime();
const AT_TEN = new Date(2026, 0, 15, 10, 0).getTime();

interface Probe {
  now: number;
  ratio: number;
}

function recordingLogger(): { logger: StoreOptions['logger']; warnings: Array<[string, unknown]> } {
  const warnings: Array<[string, unknown]> = [];
  const logger = {
    debug() {},
    info() {},
    warn(msg: string, ctx?: unknown) {
      warnings.push([msg, ctx]);
    },
    error() {},
  };
  return { logger, warnings };
}

async function openStore(
  dir: string,
  probe: Probe,
  extra: Partial<StoreOptions> = {},
): Promise<MessageStore> {
  return MessageStore.open({
    dataDir: dir,
    segmentSize: SEG,
    deleteCommitLogFilesIntervalMs: 0,
    testHooks: { now: () => probe.now, diskUsedRatio: () => probe.ratio },
    ...extra,
  });
}

/** ~2.5 KiB records: about 25 per 64 KiB segment. */
async function fill(store: MessageStore, count: number, topic = 'Ret', from = 0): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const r = await store.putMessage(message(topic, 0, `m${i}`.padEnd(2500, '.'), { KEYS: `key-${i}` }));
    assert.equal(r.status, 'PUT_OK');
  }
}

async function commitLogFiles(dir: string): Promise<string[]> {
  return (await readdir(join(dir, 'commitlog'))).sort();
}

/** Sets the last-modified time of every commit-log file `hours` back from `now`. */
async function age(dir: string, now: number, hours: number): Promise<void> {
  const t = new Date(now - hours * HOUR);
  for (const f of await commitLogFiles(dir)) await utimes(join(dir, 'commitlog', f), t, t);
}

/** The queue offset of the first message stored in commit-log file `index`. */
async function firstOffsetInFile(store: MessageStore, index: number, topic = 'Ret'): Promise<number> {
  const fileStart = index * SEG;
  for (let o = store.getMinOffset(topic, 0); o < store.getMaxOffset(topic, 0); o++) {
    const r = await store.getMessages(topic, 0, o, 1);
    const m = decodeStoredMessage(r.messages[0]!).message;
    if (m.physicalOffset >= fileStart) return o;
  }
  throw new Error('no message in that file');
}

test("a commit log older than fileReservedTime is deleted but a group's unconsumed range is kept", async () => {
  const tmp = await tempDir();
  const probe = { now: AT_FOUR, ratio: 0.3 };
  try {
    const store = await openStore(tmp.dir, probe);
    try {
      await fill(store, 150); // 6+ files
      const files = await commitLogFiles(tmp.dir);
      assert.ok(files.length >= 6, `only ${files.length} files`);
      const committed = await firstOffsetInFile(store, 3);
      store.consumerOffsets.set('SlowGroup', 'Ret', 0, committed + 2);
      await age(tmp.dir, probe.now, 80);

      const r = await store.cleanExpiredFiles();
      assert.deepEqual([r.timeToDelete, r.forced, r.commitLogFilesDeleted], [true, false, 3]);
      assert.deepEqual(r.pinnedBy, ['Ret@SlowGroup']);
      assert.deepEqual(await commitLogFiles(tmp.dir), files.slice(3));
      assert.equal(store.minPhysicalOffset, 3 * SEG);
      assert.equal(store.getMinOffset('Ret', 0), committed);

      // Java: a pull below the new minimum answers OFFSET_TOO_SMALL pointing at it...
      const gone = await store.getMessages('Ret', 0, 0, 1);
      assert.deepEqual(
        [gone.status, gone.nextBeginOffset, gone.minOffset],
        ['OFFSET_TOO_SMALL', committed, committed],
      );
      // ...and what the group has not consumed is still there.
      const kept = await store.getMessages('Ret', 0, committed + 2, 1);
      assert.equal(kept.status, 'FOUND');
      assert.match(
        decodeStoredMessage(kept.messages[0]!).message.body.toString(),
        new RegExp(`^m${committed + 2}\\.`),
      );

      // Once the group has consumed everything, the remaining expired files go too, but never the newest.
      store.consumerOffsets.set('SlowGroup', 'Ret', 0, store.getMaxOffset('Ret', 0));
      const again = await store.cleanExpiredFiles();
      assert.equal(again.commitLogFilesDeleted, files.length - 4);
      assert.deepEqual(await commitLogFiles(tmp.dir), files.slice(-1));
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('expired files wait for a deleteWhen hour unless the disk is above diskMaxUsedSpaceRatio', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_TEN, ratio: 0.5 };
  try {
    const store = await openStore(tmp.dir, probe);
    try {
      await fill(store, 100);
      const files = await commitLogFiles(tmp.dir);
      await age(tmp.dir, probe.now, 73);
      let r = await store.cleanExpiredFiles();
      assert.deepEqual([r.timeToDelete, r.spaceToDelete, r.commitLogFilesDeleted], [false, false, 0]);

      probe.ratio = 0.8; // above the default 75 %
      r = await store.cleanExpiredFiles();
      assert.deepEqual([r.timeToDelete, r.spaceToDelete, r.forced], [false, true, false]);
      assert.equal(r.commitLogFilesDeleted, files.length - 1);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('files younger than fileReservedTime are kept at a deleteWhen hour', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_FOUR, ratio: 0.3 };
  try {
    const store = await openStore(tmp.dir, probe);
    try {
      await fill(store, 60);
      await age(tmp.dir, probe.now, 71);
      const r = await store.cleanExpiredFiles();
      assert.deepEqual([r.timeToDelete, r.commitLogFilesDeleted], [true, 0]);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('above diskSpaceCleanForciblyRatio unexpired files go even if a group still needs them, and that is logged', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_TEN, ratio: 0.87 };
  const { logger, warnings } = recordingLogger();
  try {
    const store = await openStore(tmp.dir, probe, { logger, deleteFileBatchMax: 2 });
    try {
      await fill(store, 150);
      store.consumerOffsets.set('Stuck', 'Ret', 0, 0);
      const r = await store.cleanExpiredFiles();
      assert.deepEqual([r.forced, r.commitLogFilesDeleted], [true, 2], 'at most deleteFileBatchMax per pass');
      assert.deepEqual(r.pinnedBy, ['Ret@Stuck']);
      const warned = warnings.find(([m]) => m.includes('consumer groups had not consumed'));
      assert.ok(warned, 'the forced loss is logged');
      assert.deepEqual((warned[1] as { groups: string[] }).groups, ['Ret@Stuck']);
      assert.equal(store.isDiskFull, false, 'below the warning level puts still go through');
      const pull = await store.getMessages('Ret', 0, 0, 1);
      assert.equal(pull.status, 'OFFSET_TOO_SMALL');
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('with cleanFileForciblyEnable false a full disk deletes only expired files', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_TEN, ratio: 0.88 };
  try {
    const store = await openStore(tmp.dir, probe, { cleanFileForciblyEnable: false });
    try {
      await fill(store, 60);
      const r = await store.cleanExpiredFiles();
      assert.deepEqual([r.spaceToDelete, r.forced, r.commitLogFilesDeleted], [true, false, 0]);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('above diskSpaceWarningLevelRatio puts are refused as disk full until there is room again', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_TEN, ratio: 0.95 };
  try {
    const store = await openStore(tmp.dir, probe);
    try {
      await fill(store, 3);
      await store.cleanExpiredFiles();
      assert.equal(store.isDiskFull, true);
      const refused = await store.putMessage(message('Ret', 0, 'while full'));
      assert.equal(refused.status, 'SERVICE_NOT_AVAILABLE');
      assert.match(refused.error?.message ?? '', /disk is full/);

      probe.ratio = 0.86; // Java marks the disk OK only below the forcible ratio
      await store.cleanExpiredFiles();
      assert.equal(store.isDiskFull, true);
      probe.ratio = 0.5;
      await store.cleanExpiredFiles();
      assert.equal(store.isDiskFull, false);
      assert.equal((await store.putMessage(message('Ret', 0, 'room again'))).status, 'PUT_OK');
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('consume-queue and key-index files below the commit log start are deleted, and a restart keeps the new minimum', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_FOUR, ratio: 0.3 };
  const small = { consumeQueueEntriesPerFile: 20, maxIndexNum: 30, maxHashSlotNum: 8 };
  try {
    let store = await openStore(tmp.dir, probe, small);
    let minOffset: number;
    try {
      await fill(store, 150);
      const cqDir = join(tmp.dir, 'consumequeue', 'Ret', '0');
      const cqBefore = (await readdir(cqDir)).length;
      const indexBefore = (await readdir(join(tmp.dir, 'index'))).length;
      assert.ok(cqBefore >= 7 && indexBefore >= 5, `${cqBefore} queue files, ${indexBefore} index files`);
      await age(tmp.dir, probe.now, 100);
      store.consumerOffsets.set('G', 'Ret', 0, 100);
      const r = await store.cleanExpiredFiles();
      assert.ok(r.commitLogFilesDeleted >= 3);
      assert.ok(r.consumeQueueFilesDeleted >= 3, `deleted ${r.consumeQueueFilesDeleted} queue files`);
      assert.ok(r.indexFilesDeleted >= 2, `deleted ${r.indexFilesDeleted} index files`);
      assert.equal((await readdir(cqDir)).length, cqBefore - r.consumeQueueFilesDeleted);
      minOffset = store.getMinOffset('Ret', 0);
      assert.ok(minOffset > 0 && minOffset <= 100);
      assert.deepEqual(await store.queryMessagesByKey('Ret', 'key-0', 1, 0, Number.MAX_SAFE_INTEGER), []);
      assert.equal(
        (await store.queryMessagesByKey('Ret', 'key-140', 1, 0, Number.MAX_SAFE_INTEGER)).length,
        1,
      );
    } finally {
      await store.close();
    }
    store = await openStore(tmp.dir, probe, small);
    try {
      assert.equal(store.lastRecovery?.fullRebuild, false);
      assert.equal(store.getMinOffset('Ret', 0), minOffset);
      assert.equal(store.getMaxOffset('Ret', 0), 150);
      assert.equal((await store.getMessages('Ret', 0, 0, 1)).status, 'OFFSET_TOO_SMALL');
      assert.equal((await store.getMessages('Ret', 0, minOffset, 1)).status, 'FOUND');
      assert.equal((await store.putMessage(message('Ret', 0, 'next'))).queueOffset, 150);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('a full rebuild after retention starts each queue at its first surviving message', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_FOUR, ratio: 0.3 };
  try {
    let store = await openStore(tmp.dir, probe);
    let minOffset: number;
    try {
      await fill(store, 120);
      await age(tmp.dir, probe.now, 100);
      await store.cleanExpiredFiles();
      minOffset = store.getMinOffset('Ret', 0);
      assert.ok(minOffset > 0);
    } finally {
      await store.close();
    }
    const { rm } = await import('node:fs/promises');
    await rm(join(tmp.dir, 'consumequeue'), { recursive: true });
    store = await openStore(tmp.dir, probe);
    try {
      assert.equal(store.lastRecovery?.fullRebuild, true);
      assert.deepEqual([store.getMinOffset('Ret', 0), store.getMaxOffset('Ret', 0)], [minOffset, 120]);
      assert.equal((await store.getMessages('Ret', 0, minOffset, 1)).status, 'FOUND');
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});

test('a position registered by a broker mechanism (the timer wheel) is kept like a group offset', async () => {
  const tmp = await tempDir();
  const probe = { now: AT_FOUR, ratio: 0.3 };
  try {
    const store = await openStore(tmp.dir, probe);
    try {
      await fill(store, 150, 'rmq_sys_wheel_timer');
      const undelivered = await firstOffsetInFile(store, 2, 'rmq_sys_wheel_timer');
      store.registerRetentionPin('timer', () => [
        { topic: 'rmq_sys_wheel_timer', queueId: 0, offset: undelivered },
      ]);
      await age(tmp.dir, probe.now, 500);
      const r = await store.cleanExpiredFiles();
      assert.equal(r.commitLogFilesDeleted, 2);
      assert.deepEqual(r.pinnedBy, ['rmq_sys_wheel_timer@timer']);
      assert.equal(store.getMinOffset('rmq_sys_wheel_timer', 0), undelivered);
    } finally {
      await store.close();
    }
  } finally {
    await tmp.remove();
  }
});
