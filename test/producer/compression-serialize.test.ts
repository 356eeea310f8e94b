/**
 * compressType (ZLIB / LZ4 / ZSTD) and serializeType 'ROCKETMQ' end to end on the embedded
 * cluster: the stored sysFlag carries Java's type bits and our reader inflates every type.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { TopicReader, type ReadMessage } from '../topic-reader.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { Producer } from '../../src/producer/producer.js';
import { SerializeType } from '../../src/protocol/command.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { producerPool, readTopic, uniqueTopic, watchRequests } from './cluster-helpers.js';

let cluster: EmbeddedCluster;
const pool = producerPool(() => cluster, 'PGC');
const startProducer = pool.start;

describe('compression types and the ROCKETMQ header serialization', () => {
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
  });
  after(async () => {
    await pool.shutdownAll();
    await cluster.stop();
  });

  for (const [type, bits] of [
    ['ZLIB', 0x301],
    ['LZ4', 0x101],
    ['ZSTD', 0x201],
  ] as const) {
    it(`compressType ${type}: stored with sysFlag bits ${bits.toString(16)}, read back byte-equal`, async () => {
      const topic = uniqueTopic(`Zip${type}`);
      await cluster.createTopic(topic, 1);
      const p = await startProducer({ compressType: type, compressLevel: 3 });
      const body = Buffer.from(Array.from({ length: 9000 }, (_, i) => `${type}-${i % 97} `).join(''));
      const small = Buffer.from('small bodies stay raw');
      await p.send({ topic, body });
      await p.send({ topic, body: small });
      const stored = await readTopic(cluster, topic, 1);
      assert.equal(stored[0]?.sysFlag, bits);
      assert.ok((stored[0]?.body.length ?? Infinity) < body.length / 2);
      assert.equal(stored[1]?.sysFlag, 0);
      const reader = new TopicReader(cluster.namesrvAddr);
      try {
        const read: ReadMessage[] = [];
        for await (const m of reader.readTopic(topic)) read.push(m);
        assert.deepEqual(
          read.map((m) => m.body),
          [body, small],
        );
      } finally {
        await reader.close();
      }
    });
  }

  it('compressType and serializeType reject unknown values; compressLevel follows the type', () => {
    const base = { namesrvAddr: '127.0.0.1:9876' };
    assert.throws(() => new Producer({ ...base, compressType: 'GZIP' as never }), InvalidArgumentError);
    assert.throws(() => new Producer({ ...base, serializeType: 'BINARY' as never }), InvalidArgumentError);
    assert.throws(() => new Producer({ ...base, compressLevel: 12 }), /compressLevel/);
    assert.equal(
      new Producer({ ...base, compressType: 'ZSTD', compressLevel: 12 }).options.compressLevel,
      12,
    );
  });

  it("serializeType 'ROCKETMQ': sends go out in the binary header and the embedded broker answers in kind", async () => {
    const topic = uniqueTopic('Bin');
    await cluster.createTopic(topic, 2);
    const p = await startProducer({ serializeType: 'ROCKETMQ' });
    const watched = watchRequests(p);
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(await p.send({ topic, body: `bin ${i}`, tags: 'T', keys: ['k'] }));
    const sends = watched.filter((e) => e.request.code === 310);
    assert.equal(sends.length, 5);
    const types = sends.flatMap((e) => [e.request.serializeType, e.response?.serializeType]);
    assert.deepEqual(new Set(types), new Set([SerializeType.ROCKETMQ]));
    const stored = await readTopic(cluster, topic, 2);
    assert.deepEqual(stored.map((m) => m.properties['UNIQ_KEY']).sort(), results.map((r) => r.msgId).sort());
    assert.ok(stored.every((m) => m.properties['TAGS'] === 'T'));
  });
});
