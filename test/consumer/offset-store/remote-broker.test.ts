import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageQueue } from '../../../src/client/route.js';
import type { ConsumerClient } from '../../../src/consumer/core/client-port.js';
import { RemoteBrokerOffsetStore } from '../../../src/consumer/offset-store/remote-broker.js';
import type { Logger } from '../../../src/observability/logger.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../src/protocol/command.js';
import { UpdateConsumerOffset } from '../../../src/protocol/headers/offset.js';

const noop = (): void => {};
const logger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
const ADDRS: Record<string, string> = { 'broker-a': '127.0.0.1:10911', 'broker-b': '127.0.0.1:10921' };

/**
 * A broker whose UPDATE_CONSUMER_OFFSET behaves like Apache RocketMQ's
 * `ConsumerOffsetManager#commitOffset` (4.9.7 and 5.x): `offsetTable.get(topic@group)`, and when
 * absent a new map `put` over whatever is there. Each update runs "on its own thread": the get
 * and the put are a macrotask apart, so updates in flight together interleave as they can on the
 * broker's consumerManageExecutor. Every update answers SUCCESS, as the real broker does.
 */
function racyBroker(): {
  client: ConsumerClient;
  stored: (addr: string, topic: string, queueId: number) => number | undefined;
  inFlightPeak: Map<string, number>;
} {
  const tables = new Map<string, Map<string, Map<number, number>>>();
  const inFlight = new Map<string, number>();
  const inFlightPeak = new Map<string, number>();
  const request = async (address: string, cmd: RemotingCommand): Promise<RemotingCommand> => {
    assert.equal(cmd.code, RequestCode.UPDATE_CONSUMER_OFFSET);
    const h = UpdateConsumerOffset.decode(cmd.extFields);
    const key = `${h.topic}@${h.consumerGroup}`;
    const flightKey = `${address} ${h.topic}`;
    inFlight.set(flightKey, (inFlight.get(flightKey) ?? 0) + 1);
    inFlightPeak.set(flightKey, Math.max(inFlightPeak.get(flightKey) ?? 0, inFlight.get(flightKey)!));
    let table = tables.get(address);
    if (table === undefined) tables.set(address, (table = new Map()));
    const map = table.get(key);
    await new Promise((r) => setImmediate(r));
    if (map === undefined) table.set(key, new Map([[h.queueId, h.commitOffset]]));
    else map.set(h.queueId, h.commitOffset);
    inFlight.set(flightKey, inFlight.get(flightKey)! - 1);
    return createResponse(cmd, ResponseCode.SUCCESS);
  };
  const client: ConsumerClient = {
    clientId: '127.0.0.1@test',
    commandDefaults: { language: 'JAVA', version: 0, serializeTypeCurrentRPC: 'JSON' } as never,
    request,
    oneway: () => Promise.resolve(),
    subscribeQueues: () => Promise.resolve([]),
    masterAddress: (name) => ADDRS[name],
    brokerNames: () => Object.keys(ADDRS),
    sendHeartbeatToAllBrokers: () => Promise.resolve(),
  };
  return {
    client,
    inFlightPeak,
    stored: (addr, topic, queueId) => tables.get(addr)?.get(`${topic}@G`)?.get(queueId),
  };
}

const queues = (topic: string, brokerName: string, n: number): MessageQueue[] =>
  Array.from({ length: n }, (_, queueId) => ({ topic, brokerName, queueId }));

describe('RemoteBrokerOffsetStore commits', () => {
  it('a fresh group’s first commit of many queues keeps every offset on a broker with the get-then-put race', async () => {
    const broker = racyBroker();
    const store = new RemoteBrokerOffsetStore(broker.client, 'G', 3000, logger);
    const mqs = [
      ...queues('T1', 'broker-a', 8),
      ...queues('T2', 'broker-a', 4),
      ...queues('T1', 'broker-b', 8),
    ];
    for (const mq of mqs) store.updateOffset(mq, 100 + mq.queueId, false);
    assert.deepEqual(
      await store.commitAll(mqs),
      mqs.map(() => true),
    );
    for (const mq of mqs)
      assert.equal(
        broker.stored(ADDRS[mq.brokerName]!, mq.topic, mq.queueId),
        100 + mq.queueId,
        `${mq.brokerName} ${mq.topic}:${mq.queueId}`,
      );
    // The rest of a topic still goes out together after its first update.
    assert.equal(broker.inFlightPeak.get(`${ADDRS['broker-a']} T1`), 7);
  });

  it('persistAll (the push consumer’s periodic persist) keeps every offset too', async () => {
    const broker = racyBroker();
    const store = new RemoteBrokerOffsetStore(broker.client, 'G', 3000, logger);
    const mqs = queues('T', 'broker-a', 16);
    for (const mq of mqs) store.updateOffset(mq, 7, false);
    await store.persistAll(mqs);
    for (const mq of mqs) assert.equal(broker.stored(ADDRS['broker-a']!, 'T', mq.queueId), 7);
  });

  it('queues without an in-memory offset or without a known broker are reported as not stored', async () => {
    const broker = racyBroker();
    const store = new RemoteBrokerOffsetStore(broker.client, 'G', 3000, logger);
    const known = { topic: 'T', brokerName: 'broker-a', queueId: 0 };
    store.updateOffset(known, 5, false);
    const unknownBroker = { topic: 'T', brokerName: 'broker-x', queueId: 0 };
    store.updateOffset(unknownBroker, 5, false);
    const noOffset = { topic: 'T', brokerName: 'broker-a', queueId: 1 };
    assert.deepEqual(await store.commitAll([known, unknownBroker, noOffset]), [true, false, false]);
  });
});
