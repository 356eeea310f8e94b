import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError, TimeoutError, QueueSendFailedError } from '../../src/errors.js';
import type { RemotingCommand } from '../../src/protocol/command.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { NoFaultStrategy } from '../../src/producer/fault/latency-fault-tolerance.js';
import { prepareMessage } from '../../src/producer/message.js';
import { queueSelection, selectByHash } from '../../src/producer/queue-select.js';
import { runSend, type SendTransport } from '../../src/producer/send-loop.js';
import { TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { routeOf, sendLoopSettings } from './helpers.js';

// Computed with a JDK 17: `k.hashCode()` and SelectMessageQueueByHash's
// `v = k.hashCode() % n; if (v < 0) v = Math.abs(v)` for n = 8, 5, 3.
const JAVA_VECTORS: Array<[string, number, number, number]> = [
  ['order-1', 6, 0, 2],
  ['user:42', 3, 3, 0],
  ['polygenelubricants', 0, 3, 2], // hashCode is Integer.MIN_VALUE
  ['\u00e9t\u00e9-\ud83d\ude00', 6, 1, 1], // non-ASCII and a surrogate pair
  ['', 0, 0, 0],
  ['Aa', 0, 2, 0],
  ['zzzzzzzzzzzz', 0, 2, 0],
];

describe('sharding key → queue, as Java SelectMessageQueueByHash', () => {
  it('picks the queue index Java picks for the same key and queue count', () => {
    for (const [key, n8, n5, n3] of JAVA_VECTORS) {
      for (const [n, want] of [
        [8, n8],
        [5, n5],
        [3, n3],
      ] as const) {
        const queues = Array.from({ length: n }, (_, i) => i);
        assert.equal(selectByHash(queues, key), want, `key ${JSON.stringify(key)} over ${n} queues`);
      }
    }
  });

  it('hashes over the publish queues in Java order: brokers sorted by name, queues 0..n-1', () => {
    // Route lists broker-b first; Java sorts QueueData by brokerName before building the list.
    const tp = new TopicPublishInfo('T', routeOf({ 'broker-b': 4, 'broker-a': 4 }));
    const sel = queueSelection({ shardingKey: 'order-1' }, { topic: 'T', body: 'x' }, undefined);
    // 'order-1' → index 6 of 8 → broker-b queue 2.
    assert.deepEqual(sel?.pick(tp), { topic: 'T', brokerName: 'broker-b', queueId: 2 });
  });
});

describe('selected-queue send options: bad input', () => {
  const m = { topic: 'T', body: 'x' };
  const tp = new TopicPublishInfo('T', routeOf({ 'broker-a': 2 }));
  const bad = (fn: () => unknown, field: string): void =>
    assert.throws(fn, (e: unknown) => e instanceof InvalidArgumentError && e.field === field);

  it('rejects a non-string sharding key, combined options and unknown keys', () => {
    bad(() => queueSelection({ shardingKey: 42 as unknown as string }, m, undefined), 'shardingKey');
    bad(
      () =>
        queueSelection(
          { shardingKey: 'k', queue: { topic: 'T', brokerName: 'b', queueId: 0 } },
          m,
          undefined,
        ),
      'shardingKey',
    );
    bad(() => queueSelection({ shardingKy: 'k' } as never, m, undefined), 'shardingKy');
    bad(() => queueSelection({ selector: 'x' as never }, m, undefined), 'selector');
  });

  it('rejects an explicit queue of another topic or with a bad queueId', () => {
    bad(
      () => queueSelection({ queue: { topic: 'U', brokerName: 'broker-a', queueId: 0 } }, m, undefined),
      'queue.topic',
    );
    bad(
      () => queueSelection({ queue: { topic: 'T', brokerName: 'broker-a', queueId: -1 } }, m, undefined),
      'queue.queueId',
    );
  });

  it('rejects a selector that returns nothing, a queue of another topic, or throws', () => {
    const pick = (selector: (q: readonly { topic: string }[]) => unknown): unknown =>
      queueSelection({ selector: selector as never }, m, undefined)?.pick(tp);
    bad(() => pick(() => undefined), 'selector');
    bad(() => pick(() => ({ topic: 'Other', brokerName: 'broker-a', queueId: 0 })), 'selector');
    bad(
      () =>
        pick(() => {
          throw new Error('boom');
        }),
      'selector',
    );
  });

  it('gives the selector the queues with the application topic (namespace removed)', () => {
    const nsTp = new TopicPublishInfo('ns%T', routeOf({ 'broker-a': 2 }));
    let seen: readonly { topic: string }[] = [];
    const sel = queueSelection({ selector: (qs) => ((seen = qs), qs[1]) }, m, 'ns');
    assert.deepEqual(sel?.pick(nsTp), { topic: 'ns%T', brokerName: 'broker-a', queueId: 1 });
    assert.deepEqual(
      seen.map((q) => q.topic),
      ['T', 'T'],
    );
  });
});

describe('a selected-queue send never moves to another queue', () => {
  it('makes one attempt on the chosen queue and fails with QueueSendFailedError naming it', async () => {
    const tp = new TopicPublishInfo('T', routeOf({ 'broker-a': 2, 'broker-b': 2 }));
    const calls: string[] = [];
    const transport: SendTransport = {
      publishInfo: () => tp,
      brokerAddress: (name) => name,
      request: (address, cmd: RemotingCommand) => {
        calls.push(`${address}/${cmd.extFields?.['e']}`);
        return Promise.reject(new TimeoutError(address, cmd.code, 5));
      },
      oneway: () => Promise.resolve(),
    };
    const p = prepareMessage(
      { topic: 'T', body: 'x' },
      { maxMessageSize: 1e6, compressMsgBodyOverHowmuch: 4096, compressLevel: 5, namespace: undefined },
      new UniqIdGenerator(),
    );
    const sel = queueSelection(
      { queue: { topic: 'T', brokerName: 'broker-b', queueId: 1 } },
      { topic: 'T', body: 'x' },
      undefined,
    );
    assert.ok(sel);
    const err = await runSend(
      p,
      false,
      transport,
      new NoFaultStrategy(),
      sendLoopSettings({ retryResponseCodes: new Set([1]) }),
      (t) => sel.pick(t),
    ).then(
      () => assert.fail('must fail'),
      (e: unknown) => sel.wrap(e),
    );
    assert.deepEqual(calls, ['broker-b/1'], 'one attempt, on the chosen queue only');
    assert.ok(err instanceof QueueSendFailedError);
    assert.deepEqual(err.queue, { topic: 'T', brokerName: 'broker-b', queueId: 1 });
    assert.match(err.message, /T\/broker-b\/1/);
  });
});
