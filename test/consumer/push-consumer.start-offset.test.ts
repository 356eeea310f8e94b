import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerClient } from '../../src/consumer/core/client-port.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { RemoteBrokerOffsetStore } from '../../src/consumer/offset-store/remote-broker.js';
import { resolvePushConsumerOptions, type ConsumeFromWhereName } from '../../src/consumer/push/options.js';
import { Rebalancer } from '../../src/consumer/core/rebalance.js';
import type { StartPosition } from '../../src/consumer/core/start-position.js';
import { silentLogger } from '../../src/observability/logger.js';
import { MQVersion, RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, DEFAULT_COMMAND_DEFAULTS } from '../../src/protocol/command.js';
import { encodeConsumeStats } from '../../src/protocol/body/consumer-admin.js';
import { scenario, waitFor } from './helpers.js';

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
const MAX_OFFSET = 42;
/** What the fake broker's SEARCH_OFFSET_BY_TIMESTAMP answers: the first message after the subscription. */
const SEARCHED = 40;
const SUBSCRIBED_AT = 1_700_000_000_000;

/**
 * A broker that answers QUERY_CONSUMER_OFFSET with 0 (stored, or a 4.9 broker's "not found" while
 * message 0 is in memory) and lists, for GET_CONSUME_STATS, the topics the group has offsets for
 * (undefined: it refuses).
 */
function brokerAnsweringZero(version: number, offsetTopics: string[] | undefined): ConsumerClient {
  return {
    clientId: '127.0.0.1@test',
    commandDefaults: DEFAULT_COMMAND_DEFAULTS,
    request: (_address, cmd) => {
      const ok = (header?: object, body?: Uint8Array) =>
        Promise.resolve(createResponse(cmd, ResponseCode.SUCCESS, undefined, header, body, version));
      switch (cmd.code) {
        case RequestCode.QUERY_CONSUMER_OFFSET:
          return ok({ offset: 0 });
        case RequestCode.GET_MAX_OFFSET:
          return ok({ offset: MAX_OFFSET });
        case RequestCode.SEARCH_OFFSET_BY_TIMESTAMP:
          // Only the subscription time may be asked for: anything else is a wrong start rule.
          return cmd.extFields?.timestamp === String(SUBSCRIBED_AT)
            ? ok({ offset: SEARCHED })
            : Promise.reject(new Error(`searched ${cmd.extFields?.timestamp}`));
        case RequestCode.GET_CONSUME_STATS:
          if (offsetTopics === undefined)
            return Promise.resolve(createResponse(cmd, ResponseCode.SYSTEM_ERROR, 'refused'));
          return ok(
            undefined,
            encodeConsumeStats({
              consumeTps: 0,
              offsetTable: offsetTopics.map(
                (topic) =>
                  [
                    { ...mq, topic },
                    { brokerOffset: MAX_OFFSET, consumerOffset: 0, lastTimestamp: 0 },
                  ] as const,
              ),
            }),
          );
        default:
          return Promise.reject(new Error(`unexpected request ${cmd.code}`));
      }
    },
    oneway: () => Promise.resolve(),
    subscribeQueues: () => Promise.resolve([mq]),
    masterAddress: () => '127.0.0.1:10911',
    brokerNames: () => ['broker-a'],
    sendHeartbeatToAllBrokers: () => Promise.resolve(),
  };
}

function startOffset(
  version: number,
  consumeFromWhere: ConsumeFromWhereName,
  { topic = mq.topic, offsetTopics = [] as string[] | undefined } = {},
): Promise<StartPosition | undefined> {
  const client = brokerAnsweringZero(version, offsetTopics);
  const options = resolvePushConsumerOptions({
    consumerGroup: 'G',
    namesrvAddr: '127.0.0.1:9876',
    consumeFromWhere,
  });
  const rebalancer = new Rebalancer({
    client,
    options,
    group: 'G',
    logger: silentLogger,
    clustering: true,
    orderly: false,
    offsetStore: new RemoteBrokerOffsetStore(client, 'G', 3000, silentLogger),
    topics: () => [topic],
    startQueue: () => undefined,
    changed: () => Promise.resolve(),
    isConsuming: () => false,
    later: () => undefined,
    subscribedAt: () => SUBSCRIBED_AT,
  });
  return rebalancer.startPosition({ ...mq, topic });
}

/** A LAST_OFFSET start of a queue the group has no offset for. */
const SINCE_SUBSCRIBED = { offset: SEARCHED, notBefore: SUBSCRIBED_AT };

test('CONSUME_FROM_LAST_OFFSET: a 4.9 broker’s 0 for a group with no offset of the topic starts the new group at its subscription time', async () => {
  // A 4.9 broker ignores setZeroIfNotFound=false and answers 0 while message 0 is in memory.
  assert.deepEqual(await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET'), SINCE_SUBSCRIBED);
  assert.deepEqual(
    await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET', { offsetTopics: ['OtherTopic'] }),
    SINCE_SUBSCRIBED,
  );
  // When the broker will not say, the 0 still counts as "not found".
  assert.deepEqual(
    await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET', { offsetTopics: undefined }),
    SINCE_SUBSCRIBED,
  );
  // The retry topic and the other starting points keep Java's reading of that 0.
  assert.deepEqual(await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET', { topic: '%RETRY%G' }), {
    offset: 0,
  });
  assert.deepEqual(await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_FIRST_OFFSET'), { offset: 0 });
  // A 5.x broker answers "not found" when the group has no offset: its 0 is a stored 0.
  assert.deepEqual(await startOffset(MQVersion.V5_0_0, 'CONSUME_FROM_LAST_OFFSET'), { offset: 0 });
});

test('CONSUME_FROM_LAST_OFFSET: a 4.9 broker’s 0 for a group that stores offsets of the topic is a stored 0', async () => {
  assert.deepEqual(
    await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET', { offsetTopics: [mq.topic] }),
    { offset: 0 },
  );
});

test('CONSUME_FROM_LAST_OFFSET: a group that committed 0 on an empty queue gets, after a restart, what was sent while it was down', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    const got: string[] = [];
    const options = { consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' as const };
    const first = h.consumer(options);
    first.subscribe(topic);
    await first.start((m: ConsumerMessage) => void got.push(m.msgId));
    const stored = (): number | undefined =>
      h.cluster.brokers[0]!.broker.store.consumerOffsets.get(group, topic, 0);
    // The first long poll answers "nothing new" and the empty queue's offset 0 is committed.
    await waitFor(() => stored() === 0, 'offset 0 committed');
    await first.shutdown();
    const whileDown = await h.send(topic, 5);
    const second = h.consumer(options);
    second.subscribe(topic);
    await second.start((m: ConsumerMessage) => void got.push(m.msgId));
    await waitFor(() => whileDown.every((id) => got.includes(id)), 'the messages sent while it was down');
    assert.equal(got.length, 5);
  });
});
