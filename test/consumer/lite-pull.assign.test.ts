import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { IllegalStateError, InvalidArgumentError, OffsetReadError } from '../../src/errors.js';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { liteScenario, pollUntil } from './lite-pull-helpers.js';

const Q0 = (topic: string) => ({ topic, brokerName: 'broker-a', queueId: 0 });

test('assign, seek and poll return the exact offsets asked for', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 30);
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', pullBatchSize: 7 });
    c.assign([Q0(topic)]);
    await c.start();
    const first = await pollUntil(c, 30);
    assert.deepEqual(
      first.map((m) => m.queueOffset),
      Array.from({ length: 30 }, (_, i) => i),
      'every offset once, in order',
    );
    assert.ok(first.every((m) => m.topic === topic && m.body.toString() === `m${m.queueOffset}`));
    assert.deepEqual(await c.poll(300), [], 'nothing more without a seek');

    await c.seek(Q0(topic), 12);
    const again = await pollUntil(c, 18);
    assert.deepEqual(
      again.map((m) => m.queueOffset),
      Array.from({ length: 18 }, (_, i) => 12 + i),
    );
    await c.seekToBegin(Q0(topic));
    assert.equal((await c.poll(2000))[0]?.queueOffset, 0);
    await c.seekToEnd(Q0(topic));
    assert.deepEqual(await c.poll(300), []);
    await h.send(topic, 1);
    assert.deepEqual(
      (await pollUntil(c, 1)).map((m) => m.queueOffset),
      [30],
      'after seekToEnd only new messages',
    );
    const stamp = first[5]!.storeTimestamp;
    assert.ok((await c.offsetForTimestamp(Q0(topic), stamp)) <= 5);
    assert.deepEqual(await c.fetchMessageQueues(topic), [Q0(topic)]);
  });
});

test('a poll returns at most pullBatchSize messages', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 25);
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', pullBatchSize: 4 });
    c.assign([Q0(topic)]);
    await c.start();
    let total = 0;
    while (total < 25) {
      const got = await c.poll(2000);
      assert.ok(got.length > 0 && got.length <= 4, `batch of ${got.length}`);
      total += got.length;
    }
    assert.equal(total, 25);
  });
});

test('committed offsets survive a restart of the consumer', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 20);
    const a = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', autoCommit: false });
    a.assign([Q0(topic)]);
    await a.start();
    await pollUntil(a, 20);
    assert.equal(await a.committed(Q0(topic)), -1, 'nothing committed before commit()');
    await a.commit([{ queue: Q0(topic), offset: 8 }]);
    assert.equal(await a.committed(Q0(topic)), 8);
    await a.commit();
    assert.equal(await a.committed(Q0(topic)), 8, 'commit([...]) set the consumed offset');
    await a.shutdown();

    const b = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    b.assign([Q0(topic)]);
    await b.start();
    const got = await pollUntil(b, 12);
    assert.deepEqual(
      got.map((m) => m.queueOffset),
      Array.from({ length: 12 }, (_, i) => 8 + i),
      'the restarted consumer resumes at the committed offset',
    );
    await b.shutdown();

    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.assign([Q0(topic)]);
    await c.start();
    assert.equal(await c.committed(Q0(topic)), 20, 'shutdown committed what was polled');
    assert.deepEqual(await c.poll(300), []);
  });
});

test('pause holds a queue back and resume lets it through', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    const q1 = { topic, brokerName: 'broker-a', queueId: 1 };
    c.assign([Q0(topic), q1]);
    await c.start();
    c.pause([q1]);
    const sent = await h.send(topic, 40);
    const got = new Map<number, number>();
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline)
      for (const m of await c.poll(200)) got.set(m.queue.queueId, (got.get(m.queue.queueId) ?? 0) + 1);
    assert.equal(got.get(1), undefined, 'nothing of the paused queue');
    const fromQ0 = got.get(0) ?? 0;
    assert.ok(fromQ0 > 0 && fromQ0 < 40, `queue 0 delivered ${fromQ0}`);
    c.resume([q1]);
    const rest = await pollUntil(c, sent.length - fromQ0);
    assert.ok(rest.every((m) => m.queue.queueId === 1));
    assert.deepEqual(await c.poll(300), []);
  });
});

test('for await over the consumer ends cleanly at shutdown', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 5);
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.assign([Q0(topic)]);
    await c.start();
    const offsets: number[] = [];
    const loop = (async () => {
      for await (const m of c) {
        offsets.push(m.queueOffset);
        if (offsets.length === 5) void c.shutdown();
      }
    })();
    await loop;
    assert.deepEqual(offsets, [0, 1, 2, 3, 4]);
    assert.equal(c.running, false);
    await assert.rejects(c.poll(10), IllegalStateError);
  });
});

test('a waiting poll returns empty when the consumer shuts down', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ topic, consumer }) => {
    const c = consumer();
    c.assign([Q0(topic)]);
    await c.start();
    const pending = c.poll(60_000);
    await new Promise((r) => setTimeout(r, 100));
    await c.shutdown();
    assert.deepEqual(await pending, []);
  });
});

test('bad input to the lite pull consumer is refused with typed errors', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ topic, consumer }) => {
    const c = consumer();
    await assert.rejects(c.poll(), IllegalStateError, 'poll before start');
    assert.throws(() => c.assign([]), InvalidArgumentError);
    assert.throws(() => c.assign([{ topic, brokerName: 'broker-a', queueId: -1 }]), InvalidArgumentError);
    c.assign([Q0(topic)]);
    assert.throws(() => c.subscribe(topic), IllegalStateError, 'assign then subscribe');
    await assert.rejects(c.seek(Q0(topic), 0), IllegalStateError, 'seek before start');
    await c.start();
    await assert.rejects(
      c.seek({ topic, brokerName: 'broker-a', queueId: 1 }, 0),
      (err: unknown) => err instanceof InvalidArgumentError && /not assigned/.test(err.message),
    );
    await assert.rejects(c.seek(Q0(topic), -1), InvalidArgumentError, 'negative offset');
    await assert.rejects(c.seek(Q0(topic), 1000), InvalidArgumentError, 'past the max offset');
    await assert.rejects(c.poll(-5), InvalidArgumentError);
    await assert.rejects(
      c.commit([{ queue: Q0(topic), offset: -3 }]),
      InvalidArgumentError,
      'negative commit offset',
    );
    // client/lifecycle.ts: start() on a running consumer resolves at once and changes nothing.
    await c.start();
    assert.equal(c.state, 'RUNNING');
    assert.throws(() => c.pause('q' as never), InvalidArgumentError);
    await assert.rejects(
      c.committed({ topic, brokerName: 'broker-nowhere', queueId: 0 }),
      OffsetReadError,
      'a queue whose broker is unknown',
    );
  });
});

test('commit() stores only the queues polled: a queue never polled keeps the group offset it had', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
    await h.send(topic, 20);
    const Q1 = { topic, brokerName: 'broker-a', queueId: 1 };
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    await c.start();
    c.assign([Q0(topic), Q1]);
    c.pause([Q1]);
    const got = await pollUntil(c, 10);
    assert.ok(
      got.every((m) => m.queue.queueId === 0),
      'only the queue not paused is polled',
    );
    await c.commit();
    assert.equal(await c.committed(Q0(topic)), 10);
    assert.equal(await c.committed(Q1), -1, 'nothing stored for a queue never polled');
  });
});

test('lite pull options: Java defaults, unknown and push-only keys refused', () => {
  const c = new LitePullConsumer({ consumerGroup: 'G1', namesrvAddr: '127.0.0.1:9876' });
  const o = c.options;
  assert.equal(o.pullBatchSize, 10);
  assert.equal(o.pullThresholdForAll, 10_000);
  assert.equal(o.pullThresholdForQueue, 1000);
  assert.equal(o.pullThresholdSizeForQueue, 100);
  assert.equal(o.consumeMaxSpan, 2000);
  assert.equal(o.pollTimeoutMillis, 5000);
  assert.equal(o.autoCommit, true);
  assert.equal(o.autoCommitIntervalMillis, 5000);
  assert.equal(o.consumerPullTimeoutMillis, 10_000);
  assert.equal(o.brokerSuspendMaxTimeMillis, 20_000);
  assert.equal(o.consumerTimeoutMillisWhenSuspend, 30_000);
  assert.equal(o.topicMetadataCheckIntervalMillis, 30_000);
  assert.equal(o.messageModel, 'CLUSTERING');
  assert.equal(o.consumeFromWhere, 'CONSUME_FROM_LAST_OFFSET');
  const base = { consumerGroup: 'G1', namesrvAddr: '127.0.0.1:9876' };
  assert.throws(
    () => new LitePullConsumer({ ...base, pullBatchSise: 5 } as never),
    (e: unknown) => e instanceof InvalidArgumentError && /pullBatchSize/.test(e.message),
  );
  assert.throws(() => new LitePullConsumer({ ...base, consumeThreadMax: 5 } as never), InvalidArgumentError);
  assert.throws(() => new LitePullConsumer({ ...base, consumeMaxSpan: 0 }), InvalidArgumentError);
  assert.throws(() => new LitePullConsumer({ ...base, autoCommit: 'yes' as never }), InvalidArgumentError);
  assert.throws(() => new LitePullConsumer({ ...base, pullBatchSize: 0 }), InvalidArgumentError);
  assert.throws(
    () => new LitePullConsumer({ ...base, consumerGroup: 'DEFAULT_CONSUMER' }),
    InvalidArgumentError,
  );
});

test('assign then seek at once on a running consumer: poll returns from the sought offset', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
    await h.send(topic, 40);
    const Q1 = { topic, brokerName: 'broker-a', queueId: 1 };
    // FIRST_OFFSET: a start offset computed after the seek would show as offset 0.
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    await c.start();
    c.assign([Q0(topic), Q1]);
    c.pause([Q1]);
    await c.seek(Q0(topic), 12);
    const got = await pollUntil(c, 8);
    assert.deepEqual(
      got.map((m) => m.queueOffset),
      [12, 13, 14, 15, 16, 17, 18, 19],
      'queue 0 from the sought offset, paused queue 1 held back',
    );
    assert.ok(got.every((m) => m.queue.queueId === 0));
    assert.equal(await c.committed(Q1), -1, 'committed right after assign: nothing stored');
  });
});

test('assign then seekToBegin / seekToEnd / commit(offsets) at once on a running consumer', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
    await h.send(topic, 20);
    const Q1 = { topic, brokerName: 'broker-a', queueId: 1 };
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' });
    await c.start();
    c.assign([Q0(topic)]);
    await c.seekToBegin(Q0(topic));
    assert.deepEqual(
      (await pollUntil(c, 10)).map((m) => m.queueOffset),
      Array.from({ length: 10 }, (_, i) => i),
      'from the first message although the group starts at the last offset',
    );
    c.assign([Q1]);
    await c.commit([{ queue: Q1, offset: 4 }]);
    assert.equal(await c.committed(Q1), 4, 'commit(offsets) of a queue assigned a moment ago');
    await c.seekToEnd(Q1);
    assert.deepEqual(await c.poll(300), [], 'nothing after seekToEnd');
    await h.send(topic, 2);
    const fresh = await pollUntil(c, 1);
    assert.ok(fresh.every((m) => m.queue.queueId === 1 && m.queueOffset >= 10));
  });
});

test('assign before start: seek needs a running consumer, as in Java, and works at once after start', async () => {
  await liteScenario({ brokers: 1 }, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 10);
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.assign([Q0(topic)]);
    c.pause([Q0(topic)]);
    await assert.rejects(c.seek(Q0(topic), 3), IllegalStateError, "Java's checkServiceState");
    assert.deepEqual(c.assignment(), [Q0(topic)], 'assign takes effect before start');
    await c.start();
    await c.seek(Q0(topic), 6);
    assert.deepEqual(await c.poll(300), [], 'paused before start stays paused');
    c.resume([Q0(topic)]);
    assert.deepEqual(
      (await pollUntil(c, 4)).map((m) => m.queueOffset),
      [6, 7, 8, 9],
    );
  });
});
