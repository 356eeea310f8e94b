/**
 * pause() / resume() with one argument shape on both pulling consumers (consumer/core/pause.ts):
 * topics and/or MessageQueues, or nothing for everything.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { PausedQueues } from '../../src/consumer/core/pause.js';
import { InvalidArgumentError } from '../../src/errors.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { scenario, unique, waitFor } from './helpers.js';
import { liteScenario } from './lite-pull-helpers.js';

const q = (topic: string, queueId: number) => ({ topic, brokerName: 'broker-a', queueId });

describe('PausedQueues', () => {
  it('pauses topics, queues or everything, with the namespace applied to what the application names', () => {
    const p = new PausedQueues('NS');
    p.pause(['A', q('B', 1)]);
    assert.equal(p.isPaused(q('NS%A', 0)), true, 'a topic pauses each of its queues');
    assert.equal(p.isPaused(q('NS%B', 1)), true);
    assert.equal(p.isPaused(q('NS%B', 0)), false, 'a queue pauses only itself');
    assert.equal(p.isPaused(q('A', 0)), false, 'another namespace’s topic');
    assert.equal(p.everything, false);
    p.pause();
    assert.equal(p.isPaused(q('NS%C', 3)), true);
    p.resume();
    assert.equal(p.isPaused(q('NS%A', 0)), false, 'resume() lifts every pause');
    assert.equal(p.isPaused(q('NS%B', 1)), false);
  });

  it('resume(targets) lifts exactly those pauses: a queue stays paused while its topic is', () => {
    const p = new PausedQueues(undefined);
    p.pause(['A', q('A', 1), q('B', 0)]);
    p.resume([q('A', 1)]);
    assert.equal(p.isPaused(q('A', 1)), true, 'still paused by its topic');
    p.resume(['A']);
    assert.equal(p.isPaused(q('A', 1)), false);
    assert.equal(p.isPaused(q('B', 0)), true);
  });

  it('bad targets are InvalidArgumentError naming the entry, and change nothing', () => {
    const p = new PausedQueues(undefined);
    assert.throws(() => p.pause('A' as never), InvalidArgumentError);
    assert.throws(
      () => p.pause(['A', 'bad topic!']),
      (e: unknown) => {
        assert.ok(e instanceof InvalidArgumentError);
        assert.equal(e.field, 'targets[1]');
        return true;
      },
    );
    assert.throws(() => p.pause([{ topic: 'A', brokerName: '', queueId: 0 }]), /targets\[0\]\.brokerName/);
    assert.equal(p.isPaused(q('A', 0)), false, 'the good entry before the bad one was not applied');
  });
});

describe('pause() on the consumers', () => {
  it('a push consumer paused on one queue consumes the other, and the paused one after resume(queue)', async () => {
    await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
      const seen: ConsumerMessage[] = [];
      const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
      c.subscribe(topic, '*');
      c.pause([q(topic, 0)]);
      for (const queueId of [0, 1])
        for (let i = 0; i < 3; i++)
          await h.producer.send({ topic, body: `q${queueId}-${i}` }, { queue: q(topic, queueId) });
      await c.start((m) => void seen.push(m));
      await waitFor(() => seen.filter((m) => m.queue.queueId === 1).length === 3, 'queue 1’s messages');
      assert.equal(seen.filter((m) => m.queue.queueId === 0).length, 0, 'nothing of the paused queue');
      c.resume([q(topic, 0)]);
      await waitFor(
        () => seen.filter((m) => m.queue.queueId === 0).length === 3,
        'queue 0’s messages after resume',
      );
    });
  });

  it('a lite pull consumer paused on one topic polls the other, and the paused one after resume(topic)', async () => {
    await liteScenario({ brokers: 1 }, 2, async ({ h, topic, consumer }) => {
      const other = unique('T');
      await h.cluster.createTopic(other, 2);
      const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
      c.subscribe(topic, '*');
      c.subscribe(other, '*');
      c.pause([topic]);
      for (let i = 0; i < 3; i++) {
        await h.producer.send({ topic, body: `paused-${i}` });
        await h.producer.send({ topic: other, body: `other-${i}` });
      }
      await c.start();
      const got: ConsumerMessage[] = [];
      while (got.filter((m) => m.topic === other).length < 3) got.push(...(await c.poll(200)));
      assert.equal(got.filter((m) => m.topic === topic).length, 0, 'nothing of the paused topic');
      c.resume([topic]);
      while (got.filter((m) => m.topic === topic).length < 3) got.push(...(await c.poll(200)));
    });
  });
});
