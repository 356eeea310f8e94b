import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { receiptHandles } from '../../src/consumer/simple/pop-response.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import { InvalidArgumentError, ProtocolError } from '../../src/errors.js';

function msg(
  queueId: number,
  queueOffset: number,
  system: Record<string, string> = {},
  topic = 'T',
): ConsumerMessage {
  return {
    topic,
    queue: { topic, brokerName: 'b', queueId },
    queueOffset,
    systemProperties: system,
    reconsumeTimes: 0,
  } as unknown as ConsumerMessage;
}

const header = { popTime: 1000, invisibleTime: 5000, reviveQid: 3, restNum: 0 };

test('handles come from startOffsetInfo/msgOffsetInfo by retryFlag@queueId, in arrival order', () => {
  const ms = [msg(1, 7), msg(2, 4), msg(1, 9)];
  const h = { ...header, startOffsetInfo: '0 1 7;0 2 4', msgOffsetInfo: '0 1 7,9;0 2 4' };
  assert.deepEqual(receiptHandles(ms, h, 'b', false), [
    '7 1000 5000 3 0 b 1 7',
    '4 1000 5000 3 0 b 2 4',
    '7 1000 5000 3 0 b 1 9',
  ]);
});

test('a POP_CK set by the broker (retry messages) is kept as the handle', () => {
  const ck = '3 999 5000 0 1 b 0 3';
  assert.deepEqual(
    receiptHandles(
      [msg(0, 3, { POP_CK: ck })],
      { ...header, startOffsetInfo: '0 1 0', msgOffsetInfo: '0 1 0' },
      'b',
      false,
    ),
    [ck],
  );
});

test('without startOffsetInfo (older brokers) the first offset per queue is the checkpoint offset', () => {
  assert.deepEqual(receiptHandles([msg(0, 5), msg(0, 6)], header, 'b', false), [
    '5 1000 5000 3 0 b 0 5',
    '5 1000 5000 3 0 b 0 6',
  ]);
});

test('orderly: orderCountInfo sets reconsumeTimes per offset, else per queue', () => {
  const ms = [msg(0, 5), msg(0, 6)];
  const h = {
    ...header,
    reviveQid: 999,
    startOffsetInfo: '0 0 5',
    msgOffsetInfo: '0 0 5,6',
    orderCountInfo: '0 qo0%5 2;0 0 1',
  };
  receiptHandles(ms, h, 'b', true);
  assert.deepEqual(
    ms.map((m) => m.reconsumeTimes),
    [2, 1],
  );
});

test('a response whose lists miss a message is a ProtocolError', () => {
  assert.throws(
    () =>
      receiptHandles(
        [msg(0, 5), msg(0, 6)],
        { ...header, startOffsetInfo: '0 0 5', msgOffsetInfo: '0 0 5' },
        'b',
        false,
      ),
    ProtocolError,
  );
});

test('options: unknown keys are named with a suggestion; durations and tag expressions are checked', () => {
  const base = { consumerGroup: 'G', namesrvAddr: '127.0.0.1:9876', subscriptions: { T: '*' } };
  assert.throws(() => new SimpleConsumer({ ...base, invisibleDurationMs: 5 } as never), /invisibleDuration/);
  for (const [o, field] of [
    [{ invisibleDuration: 0 }, 'invisibleDuration'],
    [{ awaitDuration: 1.5 }, 'awaitDuration'],
    [{ subscriptions: { T: 'A || *' } }, 'expression'],
    [{ subscriptions: { '%RETRY%G_T': '*' } }, 'subscriptions'],
    [{ fifo: 'yes' }, 'fifo'],
  ] as const)
    assert.throws(
      () => new SimpleConsumer({ ...base, ...o } as never),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === field,
      field,
    );
  const c = new SimpleConsumer(base);
  assert.equal(c.options.awaitDuration, 30_000);
  assert.equal(c.options.invisibleDuration, 60_000);
  assert.equal(c.options.fifo, undefined, "unset: the group's consumeMessageOrderly decides");
});
