/**
 * A SEND_BATCH_MESSAGE body encoded straight into stored records (batch-records.ts) and stored
 * with one write (MessageStore.putEncodedBatch): byte-equal to encoding each message on its
 * own, with the key index, tags codes and consume queue a per-message put would give.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ProtocolError } from '../../../src/errors.js';
import { encodeBatch, type BatchEntry } from '../../../src/protocol/message/batch.js';
import {
  decodeProperties,
  encodeProperties,
  PROPERTY_SEPARATOR,
} from '../../../src/protocol/message/properties.js';
import {
  decodeStoredMessages,
  encodeStoredMessage,
  type SocketAddress,
} from '../../../src/protocol/message/stored-message.js';
import {
  encodeBatchRecords,
  patchBatchRecords,
  type BatchToStore,
  type EncodedBatch,
} from '../../../src/server/store/batch-records.js';
import { tagsHashCode } from '../../../src/server/store/consume-queue.js';
import { keyHash } from '../../../src/server/store/key-index.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import type { PutResult } from '../../../src/server/store/types.js';
import { tempDir } from './helpers.js';

const BORN: SocketAddress = { address: '127.0.0.7', port: 50001 };
const STORE: SocketAddress = { address: '127.0.0.1', port: 10911 };

const ENTRIES: BatchEntry[] = [
  {
    body: Buffer.from('one'),
    flag: 3,
    properties: encodeProperties({ TAGS: 'T1', KEYS: 'k1 k2', UNIQ_KEY: 'U1' }),
  },
  // The batch-level UNIQ_KEY must not replace this one; a trailing separator (5.x) is kept.
  {
    body: Buffer.from('two'),
    flag: 0,
    properties: encodeProperties({ UNIQ_KEY: 'U2', WAIT: 'true' }) + '\u0002',
  },
  { body: Buffer.from('three'), flag: -1, properties: '' },
  {
    body: Buffer.from('中文 body'),
    flag: 0,
    properties: encodeProperties({ KEYS: 'ключ U4', UNIQ_KEY: 'U4', TAGS: 'é' }),
  },
  { body: Buffer.alloc(0), flag: 0, properties: encodeProperties({ DELAY: '0', UNIQ_KEY: 'U5' }) },
];

/** The index keys of ENTRIES in order (KEYS words, then UNIQ_KEY unless KEYS has it) and their record. */
const ENTRY_KEYS: ReadonlyArray<readonly [string, number]> = [
  ['k1', 0],
  ['k2', 0],
  ['U1', 0],
  ['U2', 1],
  ['ключ', 3],
  ['U4', 3],
  ['U5', 4],
];

function batchInput(entries: BatchEntry[], over: Partial<BatchToStore> = {}): BatchToStore {
  return {
    topic: 'BatchTopic',
    queueId: 2,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_123,
    bornHost: BORN,
    storeHost: STORE,
    reconsumeTimes: 0,
    body: encodeBatch(entries),
    batchProperties: { WAIT: 'true', UNIQ_KEY: 'BATCHLEVEL', CLUSTER: 'DefaultCluster' },
    ...over,
  };
}

/** The stored properties by the rule: inner, then the batch-level ones the inner lacks. */
function joined(inner: string, batchLevel: Record<string, string>): string {
  const own = decodeProperties(inner);
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(batchLevel)) if (own[k] === undefined) extra[k] = v;
  const tail = encodeProperties(extra);
  if (inner === '' || tail === '') return inner + tail;
  return inner.endsWith(PROPERTY_SEPARATOR) ? inner + tail : inner + PROPERTY_SEPARATOR + tail;
}

/**
 * Hex of `entries` encoded one by one as stored records (the independent path), patched as
 * `patchBatchRecords(e, physicalBase, queueOffsetBase, 1_700_000_000_999)` patches the batch.
 */
function expectedRecords(
  entries: BatchEntry[],
  input: BatchToStore,
  e: EncodedBatch,
  physicalBase: number,
  queueOffsetBase: number,
  born: SocketAddress,
): string {
  const records = entries.map((m, i) =>
    encodeStoredMessage({
      queueId: 2,
      flag: m.flag,
      queueOffset: queueOffsetBase + i,
      physicalOffset: physicalBase + e.starts[i]!,
      sysFlag: 0,
      bornTimestamp: input.bornTimestamp,
      bornHost: born,
      storeTimestamp: 1_700_000_000_999,
      storeHost: STORE,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
      body: Buffer.from(m.body),
      topic: 'BatchTopic',
      properties: joined(m.properties, input.batchProperties as Record<string, string>),
    }),
  );
  return Buffer.concat(records).toString('hex');
}

function encoded(r: EncodedBatch | PutResult): EncodedBatch {
  assert.ok(!('status' in r), `refused: ${'status' in r ? r.status : ''}`);
  return r;
}

test('batch records are byte-equal to encoding each message alone, with offsets and store time patched in', () => {
  for (const born of [BORN, { address: '::1', port: 50002 }]) {
    const input = batchInput(ENTRIES, { bornHost: born, sysFlag: 0 });
    const e = encoded(encodeBatchRecords(input));
    assert.equal(e.count, ENTRIES.length);
    patchBatchRecords(e, 4096, 10, 1_700_000_000_999);
    assert.equal(e.records.toString('hex'), expectedRecords(ENTRIES, input, e, 4096, 10, born));
    assert.equal(e.starts[e.count], e.records.length);
    assert.deepEqual([...e.tagsCodes], [tagsHashCode('T1'), 0, 0, tagsHashCode('é'), 0]);
    assert.deepEqual(
      Array.from(e.keyHashes, (h, i) => [h, e.keyRecords[i]]),
      ENTRY_KEYS.map(([k, r]) => [keyHash('BatchTopic', k), r]),
    );
    assert.equal(e.delayed, false, 'DELAY 0 is no delay');
    assert.equal(e.maxBodyLength, Buffer.byteLength('中文 body'));
  }
});

test('a batch of 40 records (its int arrays share one allocation) gives the same records, tags codes and keys', () => {
  const many = Array.from({ length: 8 }, () => ENTRIES).flat();
  const input = batchInput(many);
  const e = encoded(encodeBatchRecords(input));
  assert.equal(e.count, 40);
  patchBatchRecords(e, 1 << 20, 7, 1_700_000_000_999);
  assert.equal(e.records.toString('hex'), expectedRecords(many, input, e, 1 << 20, 7, BORN));
  assert.equal(e.starts.length, 41);
  assert.equal(e.starts[40], e.records.length);
  const tags = [tagsHashCode('T1'), 0, 0, tagsHashCode('é'), 0];
  assert.deepEqual([...e.tagsCodes], Array.from({ length: 8 }, () => tags).flat());
  assert.deepEqual(
    Array.from(e.keyHashes, (h, i) => [h, e.keyRecords[i]]),
    Array.from({ length: 8 }, (_, n) =>
      ENTRY_KEYS.map(([k, r]) => [keyHash('BatchTopic', k), r + ENTRIES.length * n]),
    ).flat(),
  );
});

test('a record with a delay level marks the batch; oversized properties and malformed bodies are refused', () => {
  const delayed = encoded(
    encodeBatchRecords(
      batchInput([...ENTRIES, { body: Buffer.from('d'), flag: 0, properties: 'DELAY\u00013' }]),
    ),
  );
  assert.equal(delayed.delayed, true);

  const big = encodeBatchRecords(
    batchInput([{ body: Buffer.from('x'), flag: 0, properties: 'K\u0001' + 'v'.repeat(32700) }], {
      batchProperties: { CLUSTER: 'c'.repeat(100) },
    }),
  );
  assert.ok('status' in big && big.status === 'PROPERTIES_SIZE_EXCEEDED');

  const good = encodeBatch(ENTRIES);
  for (const cut of [1, 21, 30, good.length - 1]) {
    assert.throws(
      () => encodeBatchRecords(batchInput(ENTRIES, { body: good.subarray(0, cut) })),
      ProtocolError,
    );
  }
  const empty = encoded(encodeBatchRecords(batchInput([], { body: Buffer.alloc(0) })));
  assert.equal(empty.count, 0);
});

test('key-index keys and tags codes read from property bytes follow the decoded text: repeated and broken keys, a KEYS word equal to UNIQ_KEY', () => {
  const topic = 'BatchTopic';
  // The # and @ placeholders become two different broken bytes: both decode to U+FFFD, so the
  // UNIQ_KEY is the KEYS word and is indexed once, as for a per-message put.
  const body = encodeBatch([
    {
      body: Buffer.from('a'),
      flag: 0,
      properties: 'KEYS\u0001 k1  k1 # \u0002UNIQ_KEY\u0001@\u0002TAGS\u0001#',
    },
    { body: Buffer.from('b'), flag: 0, properties: 'KEYS\u0001ключ\u0002UNIQ_KEY\u0001ключ\u0002TAGS\u0001' },
    { body: Buffer.from('c'), flag: 0, properties: 'UNIQ_KEY\u0001U3\u0002KEYS\u0001   ' },
  ]);
  body[body.indexOf('#')] = 0xff;
  body[body.indexOf('@')] = 0xfe;
  body[body.indexOf('#')] = 0xc3;
  const e = encoded(encodeBatchRecords(batchInput([], { body })));
  assert.deepEqual(
    Array.from(e.keyHashes, (h, i) => [h, e.keyRecords[i]]),
    (
      [
        ['k1', 0],
        ['k1', 0],
        ['\ufffd', 0],
        ['ключ', 1],
        ['U3', 2],
      ] as const
    ).map(([k, r]) => [keyHash(topic, k), r]),
  );
  assert.deepEqual([...e.tagsCodes], [tagsHashCode('\ufffd'), 0, 0]);
});

test('putEncodedBatch stores a batch with one write: consecutive offsets, readable records, key index, consume queue', async () => {
  const tmp = await tempDir();
  const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: 64 * 1024 });
  try {
    const first = await store.putEncodedBatch(encoded(encodeBatchRecords(batchInput(ENTRIES))));
    const batch = encoded(encodeBatchRecords(batchInput(ENTRIES)));
    const second = await store.putEncodedBatch(batch);
    assert.equal(first.status, 'PUT_OK');
    assert.equal(second.status, 'PUT_OK');
    assert.equal(second.queueOffset, ENTRIES.length);
    assert.equal(second.physicalOffset, first.physicalOffset + first.wroteBytes);
    assert.equal(store.getMaxOffset('BatchTopic', 2), 2 * ENTRIES.length);

    const got = await store.getMessages('BatchTopic', 2, ENTRIES.length, 32);
    assert.equal(got.status, 'FOUND');
    const msgs = decodeStoredMessages(Buffer.concat(got.messages));
    assert.deepEqual(
      msgs.map((m) => [m.queueOffset, m.physicalOffset, m.body.toString(), m.flag]),
      ENTRIES.map((m, i) => [
        ENTRIES.length + i,
        second.physicalOffset + batch.starts[i]!,
        Buffer.from(m.body).toString(),
        m.flag,
      ]),
    );
    assert.deepEqual(got.tagsCodes, [...batch.tagsCodes]);
    assert.ok(msgs.every((m) => m.storeTimestamp === second.storeTimestamp));

    const hits = await store.queryMessagesByKey('BatchTopic', 'ключ', 10, 0, Date.now() + 1000);
    assert.equal(hits.length, 2, 'both copies of the 4th message are in the key index');
    assert.ok(hits.every((h) => decodeStoredMessages(h)[0]!.body.toString() === '中文 body'));
    const byUniq = await store.queryMessagesByKey('BatchTopic', 'U2', 10, 0, Date.now() + 1000);
    assert.equal(byUniq.length, 2);
  } finally {
    await store.close();
    await tmp.remove();
  }
});

test('putEncodedBatch refuses what the store refuses, storing nothing', async () => {
  const tmp = await tempDir();
  const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: 64 * 1024, maxMessageSize: 8 });
  try {
    const tooBig = await store.putEncodedBatch(encoded(encodeBatchRecords(batchInput(ENTRIES))));
    assert.equal(tooBig.status, 'MESSAGE_ILLEGAL', 'an inner body over maxMessageSize');
    const small = [{ body: Buffer.from('ok'), flag: 0, properties: '' }];
    const badTopic = await store.putEncodedBatch(
      encoded(encodeBatchRecords(batchInput(small, { topic: '..' }))),
    );
    assert.equal(badTopic.status, 'MESSAGE_ILLEGAL');
    const badQueue = await store.putEncodedBatch(
      encoded(encodeBatchRecords(batchInput(small, { queueId: -1 }))),
    );
    assert.equal(badQueue.status, 'MESSAGE_ILLEGAL');
    const huge = Array.from({ length: 700 }, () => ({
      body: Buffer.from('12345678'),
      flag: 0,
      properties: 'P\u0001' + 'v'.repeat(60),
    }));
    const overSegment = await store.putEncodedBatch(encoded(encodeBatchRecords(batchInput(huge))));
    assert.equal(overSegment.status, 'MESSAGE_ILLEGAL', 'a batch larger than a segment');
    assert.equal(store.getMaxOffset('BatchTopic', 2), 0);
    await store.close();
    const closed = await store.putEncodedBatch(encoded(encodeBatchRecords(batchInput(small))));
    assert.equal(closed.status, 'SERVICE_NOT_AVAILABLE');
  } finally {
    await store.close();
    await tmp.remove();
  }
});
