import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerClient } from '../../src/consumer/client-port.js';
import type { ConsumerMessage } from '../../src/consumer/message-view.js';
import { RemoteBrokerOffsetStore } from '../../src/consumer/offset-store/remote-broker.js';
import { resolvePushConsumerOptions, type ConsumeFromWhereName } from '../../src/consumer/options.js';
import { Rebalancer } from '../../src/consumer/rebalance.js';
import { silentLogger } from '../../src/observability/logger.js';
import { MQVersion, RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, DEFAULT_COMMAND_DEFAULTS } from '../../src/protocol/command.js';
import { scenario, waitFor } from './helpers.js';

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
const MAX_OFFSET = 42;

/** A broker that stores no offset for the group but answers QUERY_CONSUMER_OFFSET with 0. */
function brokerAnsweringZero(version: number): ConsumerClient {
  return {
    clientId: '127.0.0.1@test',
    commandDefaults: DEFAULT_COMMAND_DEFAULTS,
    request: (_address, cmd) => {
      if (cmd.code === RequestCode.QUERY_CONSUMER_OFFSET)
        return Promise.resolve(
          createResponse(cmd, ResponseCode.SUCCESS, undefined, { offset: 0 }, undefined, version),
        );
      if (cmd.code === RequestCode.GET_MAX_OFFSET)
        return Promise.resolve(createResponse(cmd, ResponseCode.SUCCESS, undefined, { offset: MAX_OFFSET }));
      return Promise.reject(new Error(`unexpected request ${cmd.code}`));
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
  topic = mq.topic,
): Promise<number | undefined> {
  const client = brokerAnsweringZero(version);
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
  });
  return rebalancer.startOffset({ ...mq, topic });
}

test('CONSUME_FROM_LAST_OFFSET: a 4.9 broker’s 0 for a group it does not know starts the new group at the end', async () => {
  // A 4.9 broker ignores setZeroIfNotFound=false and answers 0 while message 0 is in memory.
  assert.equal(await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET'), MAX_OFFSET);
  // The retry topic and the other starting points keep Java's reading of that 0.
  assert.equal(await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_LAST_OFFSET', '%RETRY%G'), 0);
  assert.equal(await startOffset(MQVersion.V4_9_7, 'CONSUME_FROM_FIRST_OFFSET'), 0);
  // A 5.x broker answers "not found" when the group has no offset: its 0 is a stored 0.
  assert.equal(await startOffset(MQVersion.V5_0_0, 'CONSUME_FROM_LAST_OFFSET'), 0);
});

test('CONSUME_FROM_LAST_OFFSET: a new group on the embedded broker skips the backlog and gets what is sent after it started', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    const backlog = new Set(await h.send(topic, 10));
    const got: string[] = [];
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => void got.push(m.msgId));
    await waitFor(
      () => [...c.internals.table.keys()].filter((k) => k.startsWith(topic)).length === 2,
      'both queues held',
    );
    const fresh = await h.send(topic, 5);
    await waitFor(() => fresh.every((id) => got.includes(id)), 'the messages sent after start');
    assert.deepEqual(
      got.filter((id) => backlog.has(id)),
      [],
      'no message of the backlog',
    );
    assert.equal(got.length, 5);
  });
});
