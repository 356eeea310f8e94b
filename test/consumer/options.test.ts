import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import {
  formatConsumeTimestamp,
  parseConsumeTimestamp,
  PUSH_CONSUMER_DEFAULTS,
  rebalancesOnBroker,
  resolvePushConsumerOptions,
} from '../../src/consumer/push/options.js';
import { popRetryDelayMs } from '../../src/consumer/push/pop/pop-consume.js';
import type { PushConsumerOptions } from '../../src/consumer/push/options.js';

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

test('every option has Java’s default (docs/consumers.md §1.1), the shutdown wait excepted', () => {
  const o = resolvePushConsumerOptions(base);
  const java: Partial<Record<keyof typeof o, unknown>> = {
    messageModel: 'CLUSTERING',
    consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
    allocateStrategy: 'AVG',
    consumeOrderly: false,
    consumeThreadMin: 20,
    consumeThreadMax: 20,
    consumeConcurrentlyMaxSpan: 2000,
    pullThresholdForQueue: 1000,
    pullThresholdSizeForQueue: 100,
    pullThresholdForTopic: -1,
    pullThresholdSizeForTopic: -1,
    pullInterval: 0,
    pullBatchSize: 32,
    consumeMessageBatchMaxSize: 1,
    postSubscriptionWhenPull: false,
    maxReconsumeTimes: -1,
    suspendCurrentQueueTimeMillis: 1000,
    consumeTimeout: 15,
    awaitTerminationMillisWhenShutdown: 30_000, // Java 0: docs/consumers.md §1 says why
    persistConsumerOffsetInterval: 5000,
    rebalanceInterval: 20_000,
    pullTimeDelayMillsWhenException: 3000,
    brokerSuspendMaxTimeMillis: 15_000,
    consumerTimeoutMillisWhenSuspend: 30_000,
    pullMaxIdleTime: 120_000,
    lockInterval: 20_000,
    lockMaxLiveTime: 30_000,
    unitMode: false,
    namespace: undefined,
    instanceName: 'DEFAULT',
    unitName: undefined,
    clientIP: undefined,
    pollNameServerInterval: 30_000,
    heartbeatBrokerInterval: 30_000,
    mqClientApiTimeout: 3000,
    language: 'JAVA',
    enableMsgTrace: false,
  };
  for (const [name, want] of Object.entries(java))
    assert.equal(o[name as keyof typeof o], want, `default of ${name}`);
  // A smaller consumeThreadMax pulls the unset min down with it.
  assert.equal(resolvePushConsumerOptions({ ...base, consumeThreadMax: 4 }).consumeThreadMin, 4);
});

test('every numeric option outside Java’s range, fractional or not a number is rejected naming it', () => {
  // [option, lowest accepted, highest accepted (undefined: no upper bound below 2^31)]
  const ranges: Array<[keyof PushConsumerOptions, number, number | undefined]> = [
    ['consumeThreadMax', 1, 1000],
    ['consumeConcurrentlyMaxSpan', 1, 65535],
    ['pullThresholdForQueue', 1, 65535],
    ['pullThresholdSizeForQueue', 1, 1024],
    ['pullThresholdForTopic', 1, 6_553_500],
    ['pullThresholdSizeForTopic', 1, 102_400],
    ['pullInterval', 0, 65535],
    ['pullBatchSize', 1, 1024],
    ['consumeMessageBatchMaxSize', 1, 1024],
    ['maxReconsumeTimes', -1, undefined],
    ['suspendCurrentQueueTimeMillis', 10, 30_000],
    ['awaitTerminationMillisWhenShutdown', 0, undefined],
    ['persistConsumerOffsetInterval', 10, undefined],
    ['rebalanceInterval', 10, undefined],
    ['pullTimeDelayMillsWhenException', 0, undefined],
    ['brokerSuspendMaxTimeMillis', 0, undefined],
    ['consumerTimeoutMillisWhenSuspend', 1, undefined],
    ['pullMaxIdleTime', 10, undefined],
    ['lockInterval', 10, undefined],
    ['lockMaxLiveTime', 10, undefined],
    ['pollNameServerInterval', 10, undefined],
    ['heartbeatBrokerInterval', 10, undefined],
    ['mqClientApiTimeout', 1, undefined],
  ];
  for (const [name, min, max] of ranges) {
    const accepted = resolvePushConsumerOptions({ ...base, [name]: min });
    assert.equal(accepted[name as keyof typeof accepted], min, `${name} = ${min} accepted`);
    // −1 is the "off" value of the topic thresholds; below it is out of range.
    rejects({ ...base, [name]: name.endsWith('ForTopic') ? -2 : min - 1 }, name);
    if (max !== undefined) rejects({ ...base, [name]: max + 1 }, name);
    rejects({ ...base, [name]: min + 0.5 }, name);
    rejects({ ...base, [name]: String(min) }, name);
  }
  rejects({ ...base, consumeThreadMin: 21 }, 'consumeThreadMin', /consumeThreadMax/);
  rejects({ ...base, consumeTimeout: Number.POSITIVE_INFINITY }, 'consumeTimeout');
  rejects({ ...base, consumeTimeout: '15' }, 'consumeTimeout');
});

test('string, boolean and object options of the wrong kind are rejected naming them', () => {
  rejects({ ...base, namesrvAddr: 'localhost' }, 'namesrvAddr');
  rejects({ ...base, namespace: 'bad ns' }, 'namespace');
  rejects({ ...base, instanceName: 'a@b' }, 'instanceName');
  rejects({ ...base, unitName: 'a b' }, 'unitName');
  rejects({ ...base, clientIP: 42 }, 'clientIP');
  rejects({ ...base, offsetStoreDir: 42 }, 'offsetStoreDir');
  rejects({ ...base, unitMode: 1 }, 'unitMode');
  rejects({ ...base, consumeOrderly: 'true' }, 'consumeOrderly');
  rejects({ ...base, language: 'java' }, 'language');
  rejects({ ...base, logger: { info() {} } }, 'logger');
  rejects({ ...base, enableMsgTrace: 'yes' }, 'enableMsgTrace');
  rejects({ ...base, allocateStrategy: 'MACHINE_ROOM' }, 'consumeridcs');
});

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
