/**
 * One event contract (docs/events.md): the table there against every class's declared event
 * list, and each class emitting what the table says on an embedded cluster.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ADMIN_EVENTS } from '../../src/admin/admin.js';
import type { ConnectEvent, DisconnectEvent } from '../../src/client/instance-events.js';
import type { RouteUpdatedEvent } from '../../src/client/route-lookup.js';
import { LITE_PULL_CONSUMER_EVENTS } from '../../src/consumer/lite-pull/events.js';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import type { RebalanceEvent } from '../../src/consumer/core/rebalance.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import {
  PUSH_CONSUMER_EVENTS,
  type CommitFailedEvent,
  type OffsetsCommittedEvent,
} from '../../src/consumer/push/types.js';
import { SIMPLE_CONSUMER_EVENTS } from '../../src/consumer/simple/simple-consumer.js';
import { silentLogger } from '../../src/observability/logger.js';
import { PRODUCER_EVENTS, Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { unique, waitFor } from '../consumer/helpers.js';
import { KINDS } from './lifecycle-kinds.js';

const DECLARED: Record<string, readonly string[]> = {
  Producer: PRODUCER_EVENTS,
  TransactionProducer: PRODUCER_EVENTS,
  PushConsumer: PUSH_CONSUMER_EVENTS,
  LitePullConsumer: LITE_PULL_CONSUMER_EVENTS,
  SimpleConsumer: SIMPLE_CONSUMER_EVENTS,
  Admin: ADMIN_EVENTS,
};

/** Event → classes, from the table of docs/events.md (rows `| \`event\` | A, B | … |`). */
async function documented(): Promise<Map<string, Set<string>>> {
  const text = await readFile(new URL('../../../docs/events.md', import.meta.url), 'utf8');
  const table = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const m = /^\| `(\w+)` \| ([^|]+) \|/.exec(line);
    if (m === null) continue;
    assert.ok(!table.has(m[1]!), `${m[1]} is in the table once`);
    table.set(m[1]!, new Set(m[2]!.split(',').map((c) => c.trim())));
  }
  return table;
}

it('docs/events.md lists, for every class, exactly the events its Events interface declares', async () => {
  const table = await documented();
  assert.ok(table.size > 0, 'the table was found');
  for (const [cls, declared] of Object.entries(DECLARED)) {
    const inTable = [...table].filter(([, classes]) => classes.has(cls)).map(([event]) => event);
    assert.deepEqual(inTable.sort(), [...declared].sort(), cls);
  }
  for (const classes of table.values())
    for (const cls of classes) assert.ok(cls in DECLARED, `${cls} is one of the six classes`);
});

describe('each class emits what docs/events.md says', () => {
  let cluster: EmbeddedCluster;
  let sender: Producer;

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, logger: silentLogger });
    sender = new Producer({ producerGroup: unique('EvSender'), namesrvAddr: cluster.namesrvAddr });
    await sender.start();
  });

  after(async () => {
    await sender.shutdown();
    await cluster.stop();
  });

  for (const kind of KINDS) {
    const routes = DECLARED[kind.name]!.includes('routeUpdated');
    it(`${kind.name}: connect, then${routes ? ' routeUpdated (user topic) and' : ''} disconnect at shutdown`, async () => {
      const topic = unique('EvT');
      await cluster.createTopic(topic, 2);
      const c = kind.make({ cluster, topic, group: unique('EvG'), instanceName: unique('ev') });
      const connects: ConnectEvent[] = [];
      const disconnects: DisconnectEvent[] = [];
      const routed: RouteUpdatedEvent[] = [];
      c.target.on('connect', (e: ConnectEvent) => connects.push(e));
      c.target.on('disconnect', (e: DisconnectEvent) => disconnects.push(e));
      c.target.on('routeUpdated', (e: RouteUpdatedEvent) => routed.push(e));
      await c.start();
      await c.use(topic);
      if (kind.name === 'Admin')
        await (c.target as unknown as { clusterInfo(): Promise<unknown> }).clusterInfo();
      assert.ok(connects.length > 0, 'a connect');
      assert.ok(connects.every((e) => /^127\.0\.0\.1:\d+$/.test(e.address)));
      if (routes)
        assert.ok(
          routed.some((e) => e.topic === topic && e.brokers.length === 1),
          'the topic’s route',
        );
      else assert.equal(routed.length, 0);
      await c.shutdown();
      // Our own close of each connection: orderly, no error.
      assert.deepEqual(
        disconnects.map((e) => e.address).sort(),
        connects.map((e) => e.address).sort(),
        'every connection opened is reported closed',
      );
      assert.ok(disconnects.every((e) => e.error === undefined));
    });
  }

  it('LitePullConsumer: rebalance at start, offsetsCommitted after a poll, commitFailed when the broker is gone', async () => {
    const own = await EmbeddedCluster.start({ brokers: 1, logger: silentLogger });
    const topic = unique('EvLite');
    await own.createTopic(topic, 2);
    const producer = new Producer({ producerGroup: unique('EvLiteP'), namesrvAddr: own.namesrvAddr });
    await producer.start();
    const c = new LitePullConsumer({
      consumerGroup: unique('EvLiteG'),
      namesrvAddr: own.namesrvAddr,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      autoCommitIntervalMillis: 100,
      // No rebalance and no route refresh meanwhile: the queues stay held when the broker goes.
      rebalanceInterval: 600_000,
      pollNameServerInterval: 600_000,
      pollTimeoutMillis: 200,
      logger: silentLogger,
    });
    const rebalances: RebalanceEvent[] = [];
    const committed: OffsetsCommittedEvent[] = [];
    const failed: CommitFailedEvent[] = [];
    c.on('rebalance', (e) => rebalances.push(e));
    c.on('offsetsCommitted', (e) => committed.push(e));
    c.on('commitFailed', (e) => failed.push(e));
    c.subscribe(topic, '*');
    try {
      await c.start();
      assert.equal(rebalances[0]?.topic, topic);
      assert.equal(rebalances[0]?.added.length, 2);
      assert.ok(rebalances[0]?.added.every((q) => q.topic === topic));
      await producer.send({ topic, body: 'one' });
      const got: string[] = [];
      while (got.length === 0) for (const m of await c.poll(200)) got.push(m.body.toString());
      await c.commit();
      assert.ok(committed.some((e) => e.offsets.some((o) => o.queue.topic === topic && o.offset === 1)));
      await producer.shutdown();
      await own.stopBroker('broker-a');
      await waitFor(() => failed.length > 0, 'an auto-commit to fail');
      assert.ok(failed[0]!.queues.length > 0 && failed[0]!.queues.every((q) => q.topic === topic));
    } finally {
      await c.shutdown();
      await producer.shutdown();
      await own.stop();
    }
  });

  it('PushConsumer: commitFailed when the broker holding the offsets is gone', async () => {
    const own = await EmbeddedCluster.start({ brokers: 1, logger: silentLogger });
    const topic = unique('EvPush');
    await own.createTopic(topic, 2);
    const producer = new Producer({ producerGroup: unique('EvPushP'), namesrvAddr: own.namesrvAddr });
    await producer.start();
    const c = new PushConsumer({
      consumerGroup: unique('EvPushG'),
      namesrvAddr: own.namesrvAddr,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      persistConsumerOffsetInterval: 100,
      rebalanceInterval: 600_000,
      pollNameServerInterval: 600_000,
      logger: silentLogger,
    });
    const failed: CommitFailedEvent[] = [];
    let handled = 0;
    c.on('commitFailed', (e) => failed.push(e));
    c.subscribe(topic, '*');
    try {
      await c.start(() => void handled++);
      await producer.send({ topic, body: 'one' });
      await waitFor(() => handled === 1, 'the message');
      await producer.shutdown();
      await own.stopBroker('broker-a');
      await waitFor(() => failed.length > 0, 'a persist round to fail');
      assert.ok(failed[0]!.queues.length > 0 && failed[0]!.queues.every((q) => q.topic === topic));
    } finally {
      await c.shutdown();
      await producer.shutdown();
      await own.stop();
    }
  });
});
