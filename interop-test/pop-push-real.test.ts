/**
 * The POP-mode PushConsumer (`clientRebalance: false`) against real RocketMQ 5.5.0: the group is
 * switched to POP with our Admin.setMessageRequestMode, the broker's QUERY_ASSIGNMENT is checked,
 * then our consumer and Java 5.5.0's `DefaultMQPushConsumer` with `setClientRebalance(false)`
 * (the driver's `pushPop`) share the load in one group with no message lost; Java's mqadmin
 * `setConsumeMode -m PULL` then switches our member to pulling.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import { Producer } from '../src/producer/producer.js';
import {
  encodeQueryAssignmentRequest,
  parseQueryAssignmentResponse,
} from '../src/protocol/body/assignment.js';
import { ResponseCode, RequestCode } from '../src/protocol/codes.js';
import { runDriver, runMqadmin } from './java.js';
import { rawRequest } from './raw-remoting.js';
import { RealCluster } from './real-cluster.js';

const run = Date.now().toString(36);

interface JavaPushPop {
  clientId: string;
  received: number;
  messages: Array<{ msgId: string; body: string }>;
}

async function waitFor(cond: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('POP-mode PushConsumer against real RocketMQ 5.5.0', { timeout: 600_000, concurrency: 1 }, () => {
  let cluster: RealCluster;
  let producer: Producer;
  let admin: Admin;

  before(async () => {
    cluster = await RealCluster.start({
      version: '5.5.0',
      brokers: ['broker-a'],
      brokerConfig: { timerWheelEnable: true },
    });
    producer = new Producer({
      producerGroup: `poppush_pg_${run}`,
      namesrvAddr: cluster.namesrvAddr,
      instanceName: `poppush_${run}`,
    });
    await producer.start();
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    await admin.start();
  });

  after(async () => {
    await admin?.shutdown();
    await producer?.shutdown();
    await cluster?.stop();
  });

  it('our consumer and Java’s, both clientRebalance false, share a POP-mode group and lose nothing', async () => {
    const topic = `poppush_t_${run}`;
    const group = `poppush_g_${run}`;
    await admin.createTopic({ topic, readQueues: 4, writeQueues: 4, perm: 6, brokers: ['broker-a'] });
    const written = await admin.setMessageRequestMode(topic, group, 'POP', 0);
    assert.equal(written.length, 1);

    const ourBodies = new Set<string>();
    const ours = new PushConsumer({
      namesrvAddr: cluster.namesrvAddr,
      consumerGroup: group,
      clientRebalance: false,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      instanceName: `poppush_ours_${run}`,
      rebalanceInterval: 2000,
      heartbeatBrokerInterval: 2000,
      // A slow member that holds few messages (2 handlers of 250 ms, 8 messages popped at most,
      // about 8 msgs/s): it cannot drain the 400 alone before the Java member's POPs start, however
      // fast our POP path is and however slowly the JVM gets going.
      consumeThreadMin: 2,
      consumeThreadMax: 2,
      popBatchNums: 4,
      popThresholdForQueue: 8,
    });
    ours.subscribe(topic);
    await ours.start(async (m: ConsumerMessage) => {
      ourBodies.add(m.body.toString());
      await new Promise((r) => setTimeout(r, 250));
    });
    try {
      await waitFor(() => (ours.internals.popTable?.size ?? 0) === 1, 'our POP assignment', 60_000);
      const [key] = [...ours.internals.popTable!.keys()];
      assert.equal(key, `${topic}@broker-a@-1`, 'the 5.5.0 broker assigns every queue as queueId −1');

      // Java's member: one minute in the group.
      const java = runDriver<JavaPushPop>(
        '5.5.0',
        [
          'pushPop',
          '--namesrv',
          cluster.namesrvAddr,
          '--topic',
          topic,
          '--group',
          group,
          '--duration-ms',
          '60000',
        ],
        { timeoutMs: 180_000 },
      );
      const members = async (): Promise<number> =>
        (await admin.consumerConnections(group).catch(() => ({ connections: [] }))).connections.length;
      const deadline = Date.now() + 90_000;
      while ((await members()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      assert.equal(await members(), 2, 'the Java member joined');
      // The broker answers the Java member's query with the same POP assignment.
      const broker = cluster.broker('broker-a').addr;
      const r = await rawRequest(
        broker,
        RequestCode.QUERY_ASSIGNMENT,
        undefined,
        3000,
        encodeQueryAssignmentRequest({
          topic,
          consumerGroup: group,
          clientId: ours.clientId,
          strategyName: 'AVG',
          messageModel: 'CLUSTERING',
        }),
      );
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.deepEqual(parseQueryAssignmentResponse(r.body), [
        { messageQueue: { topic, brokerName: 'broker-a', queueId: -1 }, mode: 'POP' },
      ]);

      const bodies: string[] = [];
      for (let i = 0; i < 400; i++) {
        const body = `pp-${i}`;
        bodies.push(body);
        await producer.send({ topic, body });
      }
      const result = await java;
      const javaBodies = new Set(result.messages.map((m) => m.body));
      // Java's member left after its minute; ours drains whatever it had not acked.
      await waitFor(
        () => bodies.every((b) => ourBodies.has(b) || javaBodies.has(b)),
        'all 400 between the two',
        120_000,
      );
      assert.ok(javaBodies.size > 0, 'the Java member consumed a share');
      assert.ok(ourBodies.size > 0, 'our member consumed a share');

      // Java's mqadmin switches the group back to PULL; our member follows the broker's answer.
      const mq = await runMqadmin('5.5.0', [
        'setConsumeMode',
        '-n',
        cluster.namesrvAddr,
        '-c',
        'DefaultCluster',
        '-t',
        topic,
        '-g',
        group,
        '-m',
        'PULL',
      ]);
      assert.match(mq.stdout, /consume mode\[PULL\]/, mq.stdout);
      const pulled = (): string[] =>
        [...ours.internals.table.keys()].filter((k) => k.startsWith(`${topic}@`));
      await waitFor(
        () => (ours.internals.popTable?.size ?? 0) === 0 && pulled().length === 4,
        'the four queues pulled after mqadmin setConsumeMode -m PULL',
        60_000,
      );
      const later: string[] = [];
      for (let i = 0; i < 20; i++) {
        later.push(`pull-${i}`);
        await producer.send({ topic, body: `pull-${i}` });
      }
      await waitFor(() => later.every((b) => ourBodies.has(b)), 'the PULL-mode messages', 60_000);
    } finally {
      await ours.shutdown();
    }
  });
});
