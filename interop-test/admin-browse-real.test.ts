/**
 * The dashboard's readers against real Apache RocketMQ 4.9.7 and 5.5.0 brokers: browse a topic
 * by store time (the Java store's SEARCH_OFFSET_BY_TIMESTAMP rounding), a group's dead letters
 * with the topic they came from (the RETRY_TOPIC the Java broker's consumerSendMsgBack sets), and
 * on 5.x the request mode a group was switched to.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import type { BrowsePage, DeadLetterPage } from '../src/admin/browse.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import { RequestNotSupportedError } from '../src/errors.js';
import { Producer } from '../src/producer/producer.js';
import { INTEROP_VERSIONS } from './java.js';
import { RealCluster } from './real-cluster.js';

async function eventually<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && done(v)) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function passed(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((r) => setTimeout(r, 2));
}

describe('Admin paged readers against real RocketMQ', { concurrency: 1 }, () => {
  for (const { version, major } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 300_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let admin: Admin;
      let producer: Producer;
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;

      before(async () => {
        cluster = await RealCluster.start({ version, brokers: ['broker-a'] });
        admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
        producer = new Producer({ producerGroup: `browse_p_${run}`, namesrvAddr: cluster.namesrvAddr });
        await producer.start();
      });
      after(async () => {
        await producer?.shutdown();
        await admin?.close();
        await cluster?.stop();
      });

      it('browseMessages: every message stored in the range once, in pages through the cursor, none outside it', async () => {
        const topic = `browse_t_${run}`;
        await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
        const send = async (label: string, n: number): Promise<string[]> => {
          const ids: string[] = [];
          for (let i = 0; i < n; i++) ids.push((await producer.send({ topic, body: `${label}${i}` })).msgId);
          return ids;
        };
        await eventually(
          'the topic routable',
          () => send('warm', 1),
          (v) => v.length === 1,
        );
        await send('early', 4);
        await passed(Date.now());
        const begin = Date.now();
        const inside = await send('in', 10);
        await passed(Date.now());
        const end = Date.now() - 1;
        await send('late', 4);
        // the store indexes the consume queue asynchronously: wait until the last one is readable
        await eventually(
          'the range readable',
          () => admin.browseMessages({ topic, begin, end, pageSize: 256 }),
          (p) => p.messages.length === inside.length,
        );
        const seen: string[] = [];
        let page: BrowsePage = await admin.browseMessages({ topic, begin, end, pageSize: 3 });
        for (let pages = 1; ; pages++) {
          assert.ok(pages < 30);
          assert.ok(page.messages.length <= 3);
          for (const m of page.messages) seen.push(m.msgId);
          if (!page.next) break;
          page = await admin.browseMessages({ topic, begin, end, pageSize: 3, cursor: page.next });
        }
        assert.deepEqual([...seen].sort(), [...inside].sort());
      });

      it('deadLetters: a message the group gave up on, with its original topic from RETRY_TOPIC', async () => {
        const topic = `dlq_t_${run}`;
        const group = `dlq_g_${run}`;
        await admin.createTopic({ topic, readQueues: 1, writeQueues: 1, cluster: 'DefaultCluster' });
        assert.equal((await admin.deadLetters(group)).exists, false);
        const consumer = new PushConsumer({
          namesrvAddr: cluster.namesrvAddr,
          consumerGroup: group,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          maxReconsumeTimes: 0,
          rebalanceInterval: 1000,
        });
        consumer.subscribe(topic, '*');
        await consumer.start(() => {
          throw new Error('always fails');
        });
        let sent: string[] = [];
        try {
          sent = [
            (
              await eventually(
                'a send',
                () => producer.send({ topic, body: 'dead-0', keys: 'dk0' }),
                () => true,
              )
            ).msgId,
          ];
          sent.push((await producer.send({ topic, body: 'dead-1', keys: 'dk1' })).msgId);
          const dlq: DeadLetterPage = await eventually(
            'two dead letters',
            () => admin.deadLetters(group),
            (p) => p.messages.length === 2,
          );
          assert.equal(dlq.exists, true);
          assert.deepEqual(dlq.messages.map((m) => m.msgId).sort(), [...sent].sort());
          for (const m of dlq.messages) {
            assert.equal(m.originalTopic, topic, 'RETRY_TOPIC names the original topic');
            assert.equal(m.topic, `%DLQ%${group}`);
          }
          assert.ok(dlq.messages[0]!.storeTimestamp >= dlq.messages[1]!.storeTimestamp, 'newest first');
        } finally {
          await consumer.shutdown();
        }
      });

      it(
        major >= 5
          ? 'messageRequestMode: POP after SET_MESSAGE_REQUEST_MODE'
          : 'messageRequestMode: 4.9 has no QUERY_ASSIGNMENT',
        async () => {
          const topic = `mode_t_${run}`;
          const group = `mode_g_${run}`;
          await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
          const consumer = new PushConsumer({
            namesrvAddr: cluster.namesrvAddr,
            consumerGroup: group,
            rebalanceInterval: 1000,
          });
          consumer.subscribe(topic, '*');
          await consumer.start(() => undefined);
          try {
            await eventually(
              'the member online',
              () => admin.consumerConnections(group),
              (c) => c.connections.length > 0,
            );
            if (major < 5) {
              await assert.rejects(admin.messageRequestMode(topic, group), RequestNotSupportedError);
              return;
            }
            assert.equal(await admin.messageRequestMode(topic, group), 'PULL');
            await admin.setMessageRequestMode(topic, group, 'POP');
            assert.equal(await admin.messageRequestMode(topic, group), 'POP');
          } finally {
            await consumer.shutdown();
          }
        },
      );
    });
  }
});
