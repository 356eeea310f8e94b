import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MessageQueue } from '../../../src/client/route.js';
import { LocalFileOffsetStore } from '../../../src/consumer/offset-store/local-file.js';
import { MemoryOffsetTable } from '../../../src/consumer/offset-store/offset-store.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import type { Logger } from '../../../src/observability/logger.js';

const mq = (brokerName: string, queueId: number, topic = 'T'): MessageQueue => ({
  topic,
  brokerName,
  queueId,
});
const CLIENT = '127.0.0.1@DEFAULT';

function capture(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const noop = (): void => {};
  return { warnings, logger: { debug: noop, info: noop, error: noop, warn: (m) => warnings.push(m) } };
}

describe('LocalFileOffsetStore', () => {
  let root: string;
  let n = 0;
  /** A fresh group per test, so tests never share a file. */
  const group = (): string => `G${++n}`;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'rmq-offsets-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const store = (consumerGroup: string, logger?: Logger) =>
    new LocalFileOffsetStore({
      clientId: CLIENT,
      consumerGroup,
      localOffsetStoreDir: root,
      ...(logger ? { logger } : {}),
    });

  it("defaults to Java's ~/.rocketmq_offsets/<clientId>/<group>/offsets.json", () => {
    const s = new LocalFileOffsetStore({ clientId: CLIENT, consumerGroup: 'CG' });
    assert.equal(s.storePath, join(homedir(), '.rocketmq_offsets', CLIENT, 'CG', 'offsets.json'));
  });

  it('persists offsets as a sorted JSON array that a new store loads again', async () => {
    const g = group();
    const s = store(g);
    s.updateOffset(mq('broker-b', 0), 7, false);
    s.updateOffset(mq('broker-a', 10), 3, false);
    s.updateOffset(mq('broker-a', 2), 5, false);
    await s.persistAll([mq('broker-b', 0), mq('broker-a', 10), mq('broker-a', 2)]);
    const text = await readFile(s.storePath, 'utf8');
    assert.deepEqual(JSON.parse(text), [
      { topic: 'T', brokerName: 'broker-a', queueId: 2, offset: 5 },
      { topic: 'T', brokerName: 'broker-a', queueId: 10, offset: 3 },
      { topic: 'T', brokerName: 'broker-b', queueId: 0, offset: 7 },
    ]);
    assert.match(text, /\n {2}\{/, 'pretty-printed for people who open it');
    const again = store(g);
    await again.load();
    assert.equal(await again.readOffset(mq('broker-a', 10), 'MEMORY'), 3);
    assert.equal(await again.readOffset(mq('broker-b', 0), 'MEMORY'), 7);
    assert.equal(await again.readOffset(mq('broker-b', 9), 'MEMORY_THEN_STORE'), -1);
  });

  it('increaseOnly never moves an offset back; a plain update does', async () => {
    const s = store(group());
    s.updateOffset(mq('a', 0), 10, true);
    s.updateOffset(mq('a', 0), 4, true);
    assert.equal(await s.readOffset(mq('a', 0), 'MEMORY'), 10);
    s.updateOffset(mq('a', 0), 4, false);
    assert.equal(await s.readOffset(mq('a', 0), 'MEMORY'), 4);
    assert.throws(() => s.updateOffset(mq('a', 0), 1.5, false), InvalidArgumentError);
  });

  it('read types: MEMORY never reads the file; STORE re-reads it and caches the value', async () => {
    const g = group();
    const writer = store(g);
    writer.updateOffset(mq('a', 1), 42, false);
    await writer.persist(mq('a', 1));
    const reader = store(g);
    assert.equal(await reader.readOffset(mq('a', 1), 'MEMORY'), -1);
    reader.updateOffset(mq('a', 1), 50, false);
    assert.equal(await reader.readOffset(mq('a', 1), 'MEMORY_THEN_STORE'), 50);
    assert.equal(await reader.readOffset(mq('a', 1), 'STORE'), 42);
    assert.equal(await reader.readOffset(mq('a', 1), 'MEMORY'), 42);
  });

  it("persist keeps the file's other entries; removeOffset forgets only the memory offset", async () => {
    const g = group();
    const s = store(g);
    s.updateOffset(mq('a', 0), 1, false);
    s.updateOffset(mq('a', 1), 2, false);
    await s.persistAll([mq('a', 0), mq('a', 1)]);
    s.removeOffset(mq('a', 1));
    s.updateOffset(mq('a', 0), 9, false);
    await s.persistAll([mq('a', 0), mq('a', 1)]);
    assert.deepEqual(
      JSON.parse(await readFile(s.storePath, 'utf8')).map((e: { offset: number }) => e.offset),
      [9, 2],
    );
    assert.equal(await s.readOffset(mq('a', 1), 'MEMORY'), -1);
    assert.equal(await s.readOffset(mq('a', 1), 'MEMORY_THEN_STORE'), 2);
  });

  it('keeps the previous version as .bak and falls back to it when the file is corrupt', async () => {
    const g = group();
    const { logger, warnings } = capture();
    const s = store(g, logger);
    s.updateOffset(mq('a', 0), 1, false);
    await s.persist(mq('a', 0));
    s.updateOffset(mq('a', 0), 2, false);
    await s.persist(mq('a', 0));
    assert.equal(JSON.parse(await readFile(`${s.storePath}.bak`, 'utf8'))[0].offset, 1);
    await writeFile(s.storePath, '[{"topic": "T", "brok'); // a torn write from elsewhere
    const again = store(g, logger);
    await again.load();
    assert.equal(await again.readOffset(mq('a', 0), 'MEMORY'), 1);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /\.bak/);
    // Writing over a corrupt file must not turn the good .bak into the corrupt one.
    again.updateOffset(mq('a', 0), 3, false);
    await again.persist(mq('a', 0));
    assert.equal(JSON.parse(await readFile(`${s.storePath}.bak`, 'utf8'))[0].offset, 1);
    assert.equal(JSON.parse(await readFile(s.storePath, 'utf8'))[0].offset, 3);
  });

  it('starts empty with a warning when both the file and the .bak are unusable', async () => {
    const g = group();
    const { logger, warnings } = capture();
    const s = store(g, logger);
    await mkdir(dirname(s.storePath), { recursive: true });
    await writeFile(s.storePath, '{"offsetTable":{}}'); // valid JSON, wrong shape
    await writeFile(`${s.storePath}.bak`, 'not json');
    await s.load();
    assert.equal(await s.readOffset(mq('a', 0), 'STORE'), -1);
    assert.ok(warnings.length >= 1);
    assert.match(warnings[0]!, /starting without stored offsets/);
  });

  it('a missing file is not a warning', async () => {
    const { logger, warnings } = capture();
    const s = store(group(), logger);
    await s.load();
    assert.equal(await s.readOffset(mq('a', 0), 'MEMORY_THEN_STORE'), -1);
    assert.deepEqual(warnings, []);
  });

  it('concurrent persists are serialized and the last value wins', async () => {
    const s = store(group());
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      s.updateOffset(mq('a', i % 4), i, false);
      writes.push(s.persistAll([mq('a', 0), mq('a', 1), mq('a', 2), mq('a', 3)]));
    }
    await Promise.all(writes);
    const entries = JSON.parse(await readFile(s.storePath, 'utf8')) as { queueId: number; offset: number }[];
    assert.deepEqual(
      entries.map((e) => [e.queueId, e.offset]),
      [
        [0, 16],
        [1, 17],
        [2, 18],
        [3, 19],
      ],
    );
  });

  it('answers the OffsetStore questions the broker store answers: stored offset, memory offset, confirmed commits', async () => {
    const g = group();
    const s = store(g);
    assert.deepEqual(await s.readStoredOffset(mq('a', 0)), { offset: -1, ambiguousZero: false }, 'none yet');
    assert.equal(s.memoryOffset(mq('a', 0)), -1);
    s.updateOffset(mq('a', 0), 0, false);
    assert.equal(s.memoryOffset(mq('a', 0)), 0);
    assert.deepEqual(
      await s.commitAll([mq('a', 0), mq('a', 1)]),
      [true, false],
      'a queue without offset is not confirmed',
    );
    const again = store(g);
    assert.deepEqual(
      await again.readStoredOffset(mq('a', 0)),
      { offset: 0, ambiguousZero: false },
      'a 0 in our own file is a stored 0',
    );
    // A directory where the file should be: the write fails and no queue is confirmed.
    const { logger, warnings } = capture();
    const broken = store(group(), logger);
    await mkdir(broken.storePath, { recursive: true });
    broken.updateOffset(mq('a', 0), 3, false);
    assert.deepEqual(await broken.commitAll([mq('a', 0)]), [false]);
    assert.ok(warnings.includes('writing the local offset file failed'), warnings.join('; '));
  });

  it('rejects unknown options and ids that are not one directory name', () => {
    const bad: [string, () => unknown][] = [
      ['clientId', () => new LocalFileOffsetStore({ clientId: '../x', consumerGroup: 'G' })],
      ['clientId', () => new LocalFileOffsetStore({ clientId: '', consumerGroup: 'G' })],
      ['consumerGroup', () => new LocalFileOffsetStore({ clientId: CLIENT, consumerGroup: 'a/b' })],
      [
        'localOffsetStoreDir',
        () => new LocalFileOffsetStore({ clientId: CLIENT, consumerGroup: 'G', localOffsetStoreDir: '' }),
      ],
      [
        'persistent',
        () => new LocalFileOffsetStore({ clientId: CLIENT, consumerGroup: 'G', persistent: true } as never),
      ],
    ];
    for (const [field, fn] of bad) {
      assert.throws(fn, (err: unknown) => err instanceof InvalidArgumentError && err.field === field, field);
    }
  });
});

describe('MemoryOffsetTable', () => {
  it('keys queues by value and lists them by topic', () => {
    const t = new MemoryOffsetTable();
    t.update(mq('a', 0), 1, false);
    t.update({ ...mq('a', 0) }, 2, true);
    t.update(mq('a', 0, 'U'), 5, false);
    assert.equal(t.size, 2);
    assert.equal(t.get(mq('a', 0)), 2);
    assert.deepEqual(t.entries('U'), [{ mq: mq('a', 0, 'U'), offset: 5 }]);
    assert.equal(t.remove(mq('a', 0)), true);
    assert.equal(t.get(mq('a', 0)), undefined);
  });
});
