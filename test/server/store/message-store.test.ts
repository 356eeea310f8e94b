import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeStoredMessage, decodeStoredMessages } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import { tagsHashCode } from '../../../src/server/store/consume-queue.js';
import { message, tempDir } from './helpers.js';

const SEG = 64 * 1024;

test('put/get round trips across commit-log segment rollover', async () => {
  const tmp = await tempDir();
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    const bodies: string[] = [];
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) => {
        const body = `message-${i}-`.padEnd(200 + (i % 50), 'x');
        bodies.push(body);
        return store.putMessage(message('RollTopic', i % 3, body, { TAGS: `t${i % 2}` }));
      }),
    );
    for (const r of results) assert.equal(r.status, 'PUT_OK');
    const files = (await readdir(join(tmp.dir, 'commitlog'))).sort();
    assert.ok(files.length >= 3, `expected rollover, got ${files.join(',')}`);
    assert.equal(files[1], String(SEG).padStart(20, '0'));
    assert.equal(
      (await stat(join(tmp.dir, 'commitlog', files[0]!))).size,
      SEG,
      'a finished segment has the full size',
    );

    for (let q = 0; q < 3; q++) {
      assert.equal(store.getMaxOffset('RollTopic', q), 200);
      let offset = 0;
      const got: string[] = [];
      while (offset < 200) {
        const r = await store.getMessages('RollTopic', q, offset, 32);
        assert.equal(r.status, 'FOUND');
        // The pull body: every record back to back in one buffer, the messages views of it.
        assert.deepEqual(r.body, Buffer.concat(r.messages));
        assert.equal(r.messages[0]!.buffer, r.body!.buffer);
        decodeStoredMessages(Buffer.concat(r.messages)).forEach((m, i) => {
          assert.equal(m.queueOffset, offset + i);
          assert.equal(m.queueId, q);
          got.push(m.body.toString());
        });
        r.tagsCodes.forEach((code, i) => assert.equal(code, tagsHashCode(`t${(3 * (offset + i) + q) % 2}`)));
        offset = r.nextBeginOffset;
      }
      assert.deepEqual(
        got,
        bodies.filter((_, i) => i % 3 === q),
      );
    }
    // The physical offset in each result points at the record itself.
    const sample = results[450]!;
    const rec = await store.readMessageAt(sample.physicalOffset);
    assert.ok(rec);
    const { message: m } = decodeStoredMessage(rec);
    assert.equal(m.physicalOffset, sample.physicalOffset);
    assert.equal(m.queueOffset, sample.queueOffset);
    assert.equal(m.body.toString(), bodies[450]);
    assert.equal(m.storeTimestamp, sample.storeTimestamp);
    assert.equal(await store.readMessageAt(sample.physicalOffset + 1), undefined);
    assert.equal(await store.readMessageAt(10 * SEG), undefined);
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('getMessages statuses and nextBeginOffset follow Java GetMessageStatus', async () => {
  const tmp = await tempDir();
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    let r = await store.getMessages('Empty', 0, 0, 32);
    assert.deepEqual([r.status, r.nextBeginOffset, r.maxOffset], ['NO_MESSAGE_IN_QUEUE', 0, 0]);
    for (let i = 0; i < 5; i++) await store.putMessage(message('Q', 1, `b${i}`));
    r = await store.getMessages('Q', 1, 5, 32);
    assert.deepEqual(
      [r.status, r.nextBeginOffset, r.minOffset, r.maxOffset],
      ['OFFSET_OVERFLOW_ONE', 5, 0, 5],
    );
    r = await store.getMessages('Q', 1, 9, 32);
    assert.deepEqual([r.status, r.nextBeginOffset], ['OFFSET_OVERFLOW_BADLY', 0]);
    r = await store.getMessages('Q', 1, -1, 32);
    assert.deepEqual([r.status, r.nextBeginOffset], ['OFFSET_TOO_SMALL', 0]);
    r = await store.getMessages('Q', 1, 1, 2);
    assert.equal(r.status, 'FOUND');
    assert.deepEqual(
      r.messages.map((b) => decodeStoredMessage(b).message.body.toString()),
      ['b1', 'b2'],
    );
    assert.equal(r.nextBeginOffset, 3);
    // maxBytes: the first record is always returned, then the budget applies.
    r = await store.getMessages('Q', 1, 0, 32, 1);
    assert.deepEqual([r.messages.length, r.nextBeginOffset], [1, 1]);
    const one = r.messages[0]!.length;
    r = await store.getMessages('Q', 1, 0, 32, one * 3);
    assert.deepEqual([r.messages.length, r.nextBeginOffset], [3, 3]);
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('putMessages stores a batch with consecutive queue offsets, and rejects it whole', async () => {
  const tmp = await tempDir();
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG, maxMessageSize: 1024 });
    await store.putMessage(message('B', 0, 'first'));
    const rs = await store.putMessages([message('B', 0, 'a'), message('B', 0, 'b'), message('B', 0, 'c')]);
    assert.deepEqual(
      rs.map((r) => [r.status, r.queueOffset]),
      [
        ['PUT_OK', 1],
        ['PUT_OK', 2],
        ['PUT_OK', 3],
      ],
    );
    assert.equal(rs[1]!.physicalOffset, rs[0]!.physicalOffset + rs[0]!.wroteBytes);
    const bad = await store.putMessages([message('B', 0, 'ok'), message('B', 0, Buffer.alloc(2000))]);
    assert.deepEqual(
      bad.map((r) => r.status),
      ['MESSAGE_ILLEGAL', 'MESSAGE_ILLEGAL'],
    );
    const props = await store.putMessage(message('B', 0, 'x', { BIG: 'y'.repeat(40000) }));
    assert.equal(props.status, 'PROPERTIES_SIZE_EXCEEDED');
    assert.equal((await store.putMessage(message('../etc', 0, 'x'))).status, 'MESSAGE_ILLEGAL');
    assert.equal(store.getMaxOffset('B', 0), 4);
    await store.close();
    const closed = await store.putMessage(message('B', 0, 'late'));
    assert.equal(closed.status, 'SERVICE_NOT_AVAILABLE');
  } finally {
    await tmp.remove();
  }
});

test('consume queues are rebuilt from the commit log after being deleted', async () => {
  const tmp = await tempDir();
  try {
    let store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    for (let i = 0; i < 300; i++) await store.putMessages([message('R', i % 2, `m${i}`.padEnd(300, '.'))]);
    await store.close();
    await rm(join(tmp.dir, 'consumequeue'), { recursive: true, force: true });
    store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    assert.equal(store.getMaxOffset('R', 0), 150);
    assert.equal(store.getMaxOffset('R', 1), 150);
    const r = await store.getMessages('R', 1, 149, 32);
    assert.equal(decodeStoredMessage(r.messages[0]!).message.body.toString().replace(/\.+$/, ''), 'm299');
    // Appends continue at the right offsets.
    const next = await store.putMessage(message('R', 1, 'after'));
    assert.equal(next.queueOffset, 150);
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('consumer offsets survive a restart', async () => {
  const tmp = await tempDir();
  try {
    let store = await MessageStore.open({ dataDir: tmp.dir });
    store.consumerOffsets.set('G1', 'T', 0, 42);
    store.consumerOffsets.set('G1', 'T', 3, 7);
    store.consumerOffsets.set('G2', 'T', 0, 1);
    await store.close();
    assert.deepEqual(await readdir(join(tmp.dir, 'config')), ['consumerOffset.json']);
    store = await MessageStore.open({ dataDir: tmp.dir });
    assert.equal(store.consumerOffsets.get('G1', 'T', 0), 42);
    assert.equal(store.consumerOffsets.get('G1', 'T', 3), 7);
    assert.equal(store.consumerOffsets.get('G2', 'T', 0), 1);
    assert.equal(store.consumerOffsets.get('G3', 'T', 0), undefined);
    assert.deepEqual(store.consumerOffsets.groupsOf('T').sort(), ['G1', 'G2']);
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('checkInDiskByConsumeOffset follows accessMessageInMemoryMaxRatio like Java', async () => {
  const tmp = await tempDir();
  try {
    let store = await MessageStore.open({ dataDir: tmp.dir });
    await store.putMessage(message('Mem', 0, 'x'));
    await store.putMessage(message('Mem', 0, 'y'));
    assert.equal(await store.checkInDiskByConsumeOffset('Mem', 0, 0), false, 'young data is in memory');
    assert.equal(await store.checkInDiskByConsumeOffset('Empty', 0, 0), false, 'no entry: not on disk');
    await store.close();
    // A 0% in-memory zone puts everything but the very end "on disk"; reads still work.
    store = await MessageStore.open({ dataDir: tmp.dir, accessMessageInMemoryMaxRatio: 0 });
    assert.equal(await store.checkInDiskByConsumeOffset('Mem', 0, 0), true);
    const got = await store.getMessages('Mem', 0, 0, 32);
    assert.deepEqual(
      decodeStoredMessages(got.body!).map((m) => m.body.toString()),
      ['x', 'y'],
    );
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('queryMessagesByKey finds KEYS and UNIQ_KEY within the time range', async () => {
  const tmp = await tempDir();
  try {
    let store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    await store.putMessage(message('K', 0, 'one', { KEYS: 'order-1 user-9', UNIQ_KEY: 'AAAA0001' }));
    await store.putMessage(message('K', 1, 'two', { KEYS: 'order-2', UNIQ_KEY: 'AAAA0002' }));
    await store.putMessage(message('K2', 0, 'other topic', { KEYS: 'order-1' }));
    await store.putMessage(message('K', 2, 'three', { KEYS: 'user-9' }));
    const bodies = async (
      key: string,
      max = 10,
      begin = 0,
      end = Number.MAX_SAFE_INTEGER,
    ): Promise<string[]> =>
      (await store.queryMessagesByKey('K', key, max, begin, end))
        .map((b) => decodeStoredMessage(b).message.body.toString())
        .sort();
    assert.deepEqual(await bodies('order-1'), ['one']);
    assert.deepEqual(await bodies('user-9'), ['one', 'three']);
    assert.deepEqual(await bodies('user-9', 1), ['three']);
    assert.deepEqual(await bodies('AAAA0002'), ['two']);
    assert.deepEqual(await bodies('missing'), []);
    assert.deepEqual(await bodies('order-1', 10, 0, 1000), []);
    await store.close();
    store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    assert.deepEqual(await bodies('user-9'), ['one', 'three'], 'index rebuilt on recovery');
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('getOffsetByTimestamp returns the first offset stored at or after the time', async () => {
  const tmp = await tempDir();
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: SEG });
    assert.equal(await store.getOffsetByTimestamp('TS', 0, Date.now()), 0);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      times.push((await store.putMessage(message('TS', 0, `m${i}`))).storeTimestamp);
      if (i % 5 === 4) await new Promise((r) => setTimeout(r, 3));
    }
    assert.equal(await store.getOffsetByTimestamp('TS', 0, 0), 0);
    assert.equal(await store.getOffsetByTimestamp('TS', 0, times[19]! + 1), 20);
    for (const i of [5, 10, 15]) {
      const expected = times.findIndex((t) => t >= times[i]!);
      assert.equal(await store.getOffsetByTimestamp('TS', 0, times[i]!), expected);
    }
    await store.close();
  } finally {
    await tmp.remove();
  }
});

test('messageArrived fires with the new max offset after a put', async () => {
  const tmp = await tempDir();
  try {
    const store = await MessageStore.open({ dataDir: tmp.dir });
    const seen: Array<[string, number, number]> = [];
    store.on('messageArrived', (topic, queueId, maxOffset) => seen.push([topic, queueId, maxOffset]));
    await store.putMessage(message('A', 2, 'x'));
    await store.putMessage(message('A', 2, 'y'));
    assert.deepEqual(seen, [
      ['A', 2, 1],
      ['A', 2, 2],
    ]);
    await store.close();
  } finally {
    await tmp.remove();
  }
});
