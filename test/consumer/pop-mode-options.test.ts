/** The POP-mode options of the PushConsumer: Java's names, defaults and ranges. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import {
  rebalancesOnBroker,
  resolvePushConsumerOptions,
  type PushConsumerOptions,
} from '../../src/consumer/push/options.js';
import { popRetryDelayMs } from '../../src/consumer/push/pop/pop-consume.js';

const base = { consumerGroup: 'G1', namesrvAddr: '127.0.0.1:9876' };

function rejects(options: unknown, field: string, pattern?: RegExp): void {
  assert.throws(
    () => resolvePushConsumerOptions(options as PushConsumerOptions),
    (err: unknown) =>
      err instanceof InvalidArgumentError && err.field === field && (pattern?.test(err.message) ?? true),
  );
}

test("clientRebalance, popInvisibleTime, popBatchNums, popThresholdForQueue default to Java's values", () => {
  const o = resolvePushConsumerOptions(base);
  assert.equal(o.clientRebalance, true);
  assert.equal(o.popInvisibleTime, 60_000);
  assert.equal(o.popBatchNums, 32);
  assert.equal(o.popThresholdForQueue, 96);
  assert.equal(rebalancesOnBroker(o), false);
});

test("values outside Java's ranges are rejected naming the option", () => {
  for (const [name, min, max] of [
    ['popInvisibleTime', 5000, 300_000],
    ['popBatchNums', 1, 32],
    ['popThresholdForQueue', 1, 65535],
  ] as const) {
    assert.equal(resolvePushConsumerOptions({ ...base, [name]: min })[name], min);
    assert.equal(resolvePushConsumerOptions({ ...base, [name]: max })[name], max);
    rejects({ ...base, [name]: min - 1 }, name);
    rejects({ ...base, [name]: max + 1 }, name);
    rejects({ ...base, [name]: min + 0.5 }, name);
  }
  rejects({ ...base, clientRebalance: 'false' }, 'clientRebalance');
});

test('only a CLUSTERING, concurrent consumer takes its queues from the broker (Java RebalancePushImpl)', () => {
  const off = { ...base, clientRebalance: false };
  assert.equal(rebalancesOnBroker(resolvePushConsumerOptions(off)), true);
  assert.equal(rebalancesOnBroker(resolvePushConsumerOptions({ ...off, consumeOrderly: true })), false);
  assert.equal(
    rebalancesOnBroker(resolvePushConsumerOptions({ ...off, messageModel: 'BROADCASTING' })),
    false,
  );
  assert.equal(
    rebalancesOnBroker(resolvePushConsumerOptions({ ...off, allocateStrategy: 'AVG_BY_CIRCLE' })),
    true,
  );
});

test('a strategy the broker does not know is refused when the broker allocates', () => {
  rejects(
    { ...base, clientRebalance: false, allocateStrategy: 'CONSISTENT_HASH' },
    'allocateStrategy',
    /AVG and AVG_BY_CIRCLE/,
  );
  rejects({ ...base, clientRebalance: false, allocateStrategy: () => [] }, 'allocateStrategy');
  // The orderly consumer rebalances itself, so any strategy will do.
  assert.doesNotThrow(() =>
    resolvePushConsumerOptions({
      ...base,
      clientRebalance: false,
      consumeOrderly: true,
      allocateStrategy: 'CONSISTENT_HASH',
    }),
  );
});

test("a failed POP-mode message's invisible time grows along Java's POP delay table", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 12, 15, 16, 99].map(popRetryDelayMs),
    [10_000, 30_000, 60_000, 120_000, 1_200_000, 7_200_000, 7_200_000, 7_200_000],
  );
});
