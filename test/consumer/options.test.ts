import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import {
  formatConsumeTimestamp,
  parseConsumeTimestamp,
  PUSH_CONSUMER_DEFAULTS,
  resolvePushConsumerOptions,
} from '../../src/consumer/options.js';
import type { PushConsumerOptions } from '../../src/consumer/options.js';

const base = { consumerGroup: 'G1', namesrvAddr: '127.0.0.1:9876' };

function rejects(options: unknown, field: string, pattern?: RegExp): void {
  assert.throws(
    () => resolvePushConsumerOptions(options as PushConsumerOptions),
    (err: unknown) =>
      err instanceof InvalidArgumentError &&
      err.field === field &&
      (pattern === undefined || pattern.test(err.message)),
  );
}

test('defaults are Java’s, except the bounded shutdown wait', () => {
  const o = resolvePushConsumerOptions(base);
  assert.equal(o.messageModel, 'CLUSTERING');
  assert.equal(o.consumeFromWhere, 'CONSUME_FROM_LAST_OFFSET');
  assert.equal(o.consumeThreadMax, 20);
  assert.equal(o.consumeConcurrentlyMaxSpan, 2000);
  assert.equal(o.pullThresholdForQueue, 1000);
  assert.equal(o.pullThresholdSizeForQueue, 100);
  assert.equal(o.pullThresholdForTopic, -1);
  assert.equal(o.pullBatchSize, 32);
  assert.equal(o.consumeMessageBatchMaxSize, 1);
  assert.equal(o.maxReconsumeTimes, -1);
  assert.equal(o.consumeTimeout, 15);
  assert.equal(o.suspendCurrentQueueTimeMillis, 1000);
  assert.equal(o.persistConsumerOffsetInterval, 5000);
  assert.equal(o.awaitTerminationMillisWhenShutdown, 30_000);
  assert.equal(PUSH_CONSUMER_DEFAULTS.rebalanceInterval, 20_000);
  assert.match(o.consumeTimestamp, /^\d{14}$/);
  assert.equal(typeof o.allocate, 'function');
});

test('unknown options are rejected with the closest name', () => {
  rejects({ ...base, pullBatchSise: 10 }, 'pullBatchSise', /did you mean pullBatchSize/);
  rejects({ ...base, fooBarBaz: 1 }, 'fooBarBaz', /is not a known option$/);
});

test('bad values name the option', () => {
  rejects({ ...base, consumerGroup: 'bad group' }, 'consumerGroup');
  rejects({ ...base, consumerGroup: 'DEFAULT_CONSUMER' }, 'consumerGroup');
  rejects({ namesrvAddr: '127.0.0.1:9876' }, 'consumerGroup');
  rejects({ ...base, messageModel: 'CLUSTER' }, 'messageModel');
  rejects({ ...base, consumeFromWhere: 'FIRST' }, 'consumeFromWhere');
  rejects({ ...base, consumeThreadMax: 0 }, 'consumeThreadMax');
  rejects({ ...base, pullBatchSize: 2000 }, 'pullBatchSize');
  rejects({ ...base, pullThresholdForTopic: 0 }, 'pullThresholdForTopic');
  rejects({ ...base, suspendCurrentQueueTimeMillis: 5 }, 'suspendCurrentQueueTimeMillis');
  rejects({ ...base, consumeTimeout: 0 }, 'consumeTimeout');
  rejects({ ...base, consumeTimestamp: '2024-01-01' }, 'consumeTimestamp');
  rejects({ ...base, allocateStrategy: 'ROUND' }, 'allocateMessageQueueStrategy');
  rejects({ ...base, allocateStrategy: 'CONFIG' }, 'messageQueues');
  rejects({ ...base, postSubscriptionWhenPull: 'yes' }, 'postSubscriptionWhenPull');
});

test('consumeTimestamp round-trips in local time', () => {
  const ms = new Date(2024, 1, 29, 13, 5, 9).getTime();
  assert.equal(formatConsumeTimestamp(ms), '20240229130509');
  assert.equal(parseConsumeTimestamp('20240229130509'), ms);
  assert.throws(() => parseConsumeTimestamp('20230229130509'), InvalidArgumentError);
});
