import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError, RequestTimeoutError } from '../../src/errors.js';
import type { SendPermits } from '../../src/producer/backpressure.js';
import type { ProduceAccumulator } from '../../src/producer/auto-batch.js';
import { Producer } from '../../src/producer/producer.js';
import { pendingRequestCount } from '../../src/producer/request-reply.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { readTopic } from './cluster-helpers.js';

/** The producer's own tables: send permits, sends in flight, messages held for a batch. */
function tables(p: Producer): { permits: number; bytes: number; inFlight: number; held: number } {
  const inner = p as unknown as {
    permits: SendPermits;
    /** Sends between start and settle (a count since the send path stopped keeping a Set). */
    sends: { size: number };
    accumulator: ProduceAccumulator | undefined;
  };
  return {
    permits: inner.permits.inFlight.count,
    bytes: inner.permits.inFlight.bytes,
    inFlight: inner.sends.size,
    held: inner.accumulator?.held ?? 0,
  };
}

test('bad input to a running producer: typed errors naming the field, and nothing left in any table or topic', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const producer = new Producer({
    producerGroup: 'PG_bad_input',
    namesrvAddr: cluster.namesrvAddr,
    autoBatch: true,
  });
  try {
    await producer.start();
    const topic = 'BadInputTables';
    await cluster.createTopic(topic, 2);
    await producer.send({ topic, body: 'route warm-up' });
    const field = (name: string) => (e: unknown) => e instanceof InvalidArgumentError && e.field === name;
    const m = { topic, body: 'x' };
    await assert.rejects(producer.send(m, { selector: () => undefined }), field('selector'));
    await assert.rejects(
      producer.send(m, { selector: (qs) => ({ ...qs[0]!, topic: 'OtherTopic' }) }),
      field('selector'),
    );
    await assert.rejects(producer.send(m, { shardingKey: 7 as never }), field('shardingKey'));
    await assert.rejects(producer.sendOneway(m, { selector: () => undefined }), field('selector'));
    await assert.rejects(producer.send({ ...m, deliverAfterMs: 4 * 86_400_000 }), field('deliverAfterMs'));
    await assert.rejects(
      producer.request(m, 200),
      (e: unknown) => e instanceof RequestTimeoutError,
      'a request whose reply never comes',
    );
    assert.equal(pendingRequestCount(), 0, 'the correlation entry is removed');
    assert.deepEqual(tables(producer), { permits: 0, bytes: 0, inFlight: 0, held: 0 });
    // Only the warm-up and the unanswered request (it was sent) reached the topic.
    const stored = await readTopic(cluster, topic, 2);
    assert.deepEqual(stored.map((s) => s.body.toString()).sort(), ['route warm-up', 'x']);
    assert.throws(
      () => new TransactionProducer({ namesrvAddr: cluster.namesrvAddr, producerGroup: 'PG_tx' } as never),
      field('checkListener'),
    );
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
});
