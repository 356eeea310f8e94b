/**
 * RocketMQ 5 features on a real 5.5.0 cluster, through its 5.x Proxy and directly at the
 * NameServer (the same cluster: the Proxy is only one more way in): typed topics made by our
 * Admin and read back by Java's admin and ours; FIFO sends by `messageGroup` consumed in order
 * per group by an orderly PushConsumer and an orderly SimpleConsumer group; priority messages
 * placed by priority and popped highest first; recall by handle (ours and Java's, each the
 * other's), with a recalled message never delivered and bad handles refused before any I/O;
 * Admin and the CLI pointed at the Proxy fail at once with ProxyEndpointError. Run by
 * proxy-cluster.test.ts on its cluster.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { SimpleConsumer } from '../src/consumer/simple/simple-consumer.js';
import type { PoppedMessage } from '../src/consumer/simple/pop-response.js';
import {
  InvalidArgumentError,
  PopNotSupportedError,
  ProxyEndpointError,
  RecallDisabledError,
  RecallRejectedError,
} from '../src/errors.js';
import { Producer } from '../src/producer/producer.js';
import { RequestCode } from '../src/protocol/codes.js';
import type { TopicMessageType } from '../src/protocol/message/message-type.js';
import { REPO_ROOT, runDriver, runMqadmin } from './java.js';
import { countRequests, until, waitForProxyRoute, type ProxyEnv } from './proxy-fixture.js';
import type { RealCluster } from './real-cluster.js';

const run = Date.now().toString(36);
const execFileAsync = promisify(execFile);
const QUEUES = 4;

interface JavaSent {
  sent: { seq: number; status: string; msgId: string; queueId: number; recallHandle: string | null }[];
  errors: string[];
}

/** Registers the tests (a `describe`) on `env`'s cluster. */
export function proxyTypedTests(env: ProxyEnv): void {
  describe(
    'typed topics, message groups, priority and recall, through the Proxy and direct',
    { concurrency: 1 },
    () => {
      let cluster: RealCluster;
      let admin: Admin;
      /** Through the Proxy / directly at the NameServer. */
      const producers: Record<'proxy' | 'direct', Producer> = {} as Record<'proxy' | 'direct', Producer>;
      const closers: Array<{ shutdown(): Promise<void> }> = [];
      const topics = {
        fifo: `pt_fifo_${run}`,
        priority: `pt_prio_${run}`,
        delay: `pt_delay_${run}`,
      };

      async function typedTopic(topic: string, messageType: TopicMessageType): Promise<void> {
        await admin.createTopic({
          topic,
          cluster: 'DefaultCluster',
          readQueues: QUEUES,
          writeQueues: QUEUES,
          messageType,
        });
        await waitForProxyRoute(cluster, topic);
      }

      before(async () => {
        cluster = env.cluster;
        admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
        await typedTopic(topics.fifo, 'FIFO');
        await typedTopic(topics.priority, 'PRIORITY');
        await typedTopic(topics.delay, 'DELAY');
        for (const [way, addr] of [
          ['proxy', cluster.proxyAddr],
          ['direct', cluster.namesrvAddr],
        ] as const) {
          producers[way] = new Producer({
            producerGroup: `pt_pg_${way}_${run}`,
            namesrvAddr: addr,
            instanceName: `pt_${way}_${run}`,
            pollNameServerInterval: 1000,
          });
          await producers[way].start();
        }
      });

      after(async () => {
        for (const c of closers) await c.shutdown().catch(() => undefined);
        for (const p of Object.values(producers)) await p.shutdown().catch(() => undefined);
        await admin?.shutdown();
      });

      function simpleConsumer(addr: string, group: string, topic: string, fifo = false): SimpleConsumer {
        const c = new SimpleConsumer({
          namesrvAddr: addr,
          consumerGroup: group,
          subscriptions: { [topic]: '*' },
          awaitDuration: 2000,
          fifo,
          instanceName: `pt_${group}`,
        });
        closers.push(c);
        return c;
      }

      it('a typed topic made by our Admin reads back its type from Java’s admin and ours; one made by mqadmin from ours', async () => {
        const broker = cluster.broker('broker-a').addr;
        const java = await runDriver<{ attributes: Record<string, string>; order: boolean }>('5.5.0', [
          'topicConfig',
          '--namesrv',
          cluster.namesrvAddr,
          '--broker',
          broker,
          '--topic',
          topics.fifo,
        ]);
        assert.equal(java.attributes['message.type'], 'FIFO', JSON.stringify(java));
        const [ours] = await admin.topicConfig(topics.priority);
        assert.equal(ours?.messageType, 'PRIORITY');
        const made = `pt_mq_${run}`;
        const r = await runMqadmin('5.5.0', [
          'updateTopic',
          '-n',
          cluster.namesrvAddr,
          '-c',
          'DefaultCluster',
          '-t',
          made,
          '-a',
          '+message.type=DELAY',
        ]);
        assert.equal(r.code, 0, r.stderr.slice(-2000));
        const [back] = await admin.topicConfig(made);
        assert.equal(back?.messageType, 'DELAY');
        assert.equal(back?.attributes['message.type'], 'DELAY');
        const listed = (await admin.topicList()).find((t) => t.topic === made);
        assert.equal(listed?.messageType, 'DELAY');
      });

      it('FIFO: messageGroup sends through the Proxy reach an orderly PushConsumer (through the Proxy) and an orderly SimpleConsumer group in order per group', async () => {
        const groups = ['order-a', 'order-b', 'order-c'];
        const sent: Array<{ group: string; seq: number }> = [];
        for (let seq = 0; seq < 12; seq++) {
          const group = groups[seq % groups.length]!;
          const r = await producers.proxy.send({
            topic: topics.fifo,
            body: `${group}:${seq}`,
            messageGroup: group,
          });
          assert.equal(r.status, 'SEND_OK');
          sent.push({ group, seq });
        }
        const expected = (group: string): number[] => sent.filter((s) => s.group === group).map((s) => s.seq);
        const inOrder = (got: Array<{ messageGroup?: string | undefined; body: Buffer }>): void => {
          for (const group of groups) {
            const seqs = got
              .filter((m) => m.messageGroup === group)
              .map((m) => Number(m.body.toString().split(':')[1]));
            const firsts = seqs.filter((s, i) => seqs.indexOf(s) === i);
            assert.deepEqual(firsts, expected(group), `group ${group}`);
          }
        };

        const pushed: ConsumerMessage[] = [];
        const push = new PushConsumer({
          namesrvAddr: cluster.proxyAddr,
          consumerGroup: `pt_fifo_push_${run}`,
          instanceName: `pt_fifo_push_${run}`,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          consumeOrderly: true,
          rebalanceInterval: 1000,
          pollNameServerInterval: 1000,
        });
        closers.push(push);
        push.subscribe(topics.fifo);
        await push.start((m: ConsumerMessage) => {
          pushed.push(m);
        });
        await until(
          () => new Set(pushed.map((m) => m.msgId)).size >= sent.length,
          120_000,
          'the orderly push consumer',
        );
        inOrder(pushed);

        const group = `pt_fifo_simple_${run}`;
        await admin.createOrUpdateSubscriptionGroup(
          { groupName: group, consumeMessageOrderly: true },
          { cluster: 'DefaultCluster' },
        );
        // POP goes to the brokers directly: the 5.5.0 Proxy cannot serve it (SimpleConsumer test below).
        const c = simpleConsumer(cluster.namesrvAddr, group, topics.fifo, true);
        await c.start();
        const popped: PoppedMessage[] = [];
        const deadline = Date.now() + 120_000;
        while (new Set(popped.map((m) => m.msgId)).size < sent.length && Date.now() < deadline) {
          const batch = await c.receive(4, 20_000);
          popped.push(...batch);
          for (const m of batch) await c.ack(m);
        }
        inOrder(popped);
      });

      // The 5.5.0 Proxy's remoting server cannot serve POP: PullMessageActivity reads every request
      // it takes (POP_MESSAGE too) as a PullMessageRequestHeader and fails on its absent sysFlag
      // (SYSTEM_ERROR), and ConsumerManagerActivity, which ACK_MESSAGE and
      // CHANGE_MESSAGE_INVISIBLETIME are registered to, has no case for them and never answers. So
      // our SimpleConsumer refuses to start there, typed, before it takes a message.
      it('SimpleConsumer (proxy): start() fails at once with PopNotSupportedError naming the Proxy', async () => {
        const topic = `pt_simple_refused_${run}`;
        await typedTopic(topic, 'NORMAL');
        const c = simpleConsumer(cluster.proxyAddr, `pt_simple_refused_g_${run}`, topic);
        await assert.rejects(c.start(), (err: unknown) => {
          assert.ok(err instanceof PopNotSupportedError, String(err));
          assert.equal(err.proxy, true);
          assert.equal(err.address, cluster.proxyAddr);
          return true;
        });
      });

      for (const way of ['direct'] as const) {
        it(`SimpleConsumer (${way}): receive, changeInvisibleDuration, ack`, async () => {
          const topic = `pt_simple_${way}_${run}`;
          await typedTopic(topic, 'NORMAL');
          const ids = new Set<string>();
          for (let i = 0; i < 4; i++) ids.add((await producers[way].send({ topic, body: `s${i}` })).msgId);
          const c = simpleConsumer(cluster.namesrvAddr, `pt_simple_g_${way}_${run}`, topic);
          await c.start();
          const got: PoppedMessage[] = [];
          const deadline = Date.now() + 90_000;
          while (got.length < ids.size && Date.now() < deadline) got.push(...(await c.receive(16, 30_000)));
          assert.deepEqual(new Set(got.map((m) => m.msgId)), ids);
          const kept = got[0]!;
          for (const m of got.slice(1)) await c.ack(m);
          // Shorten the kept message's invisible time: it comes back, once, with reconsumeTimes + 1.
          const changed = await c.changeInvisibleDuration(kept, 1000);
          const back: PoppedMessage[] = [];
          const end = Date.now() + 90_000;
          while (back.length === 0 && Date.now() < end) back.push(...(await c.receive(16, 30_000)));
          assert.deepEqual(
            back.map((m) => m.msgId),
            [kept.msgId],
          );
          assert.equal(back[0]!.reconsumeTimes, kept.reconsumeTimes + 1);
          await c.ack(back[0]!);
          assert.ok(changed.msgId === kept.msgId);
        });
      }

      for (const way of ['proxy', 'direct'] as const) {
        it(`priority (sent ${way}): the broker places each message by priority and POP takes the highest first`, async () => {
          const topic = `pt_prio_${way}_${run}`;
          await typedTopic(topic, 'PRIORITY');
          const priorities = [0, 2, 1, 3, 5, 0, 1];
          for (const priority of priorities) {
            const r = await producers[way].send({ topic, body: `p${priority}`, priority });
            assert.equal(r.status, 'SEND_OK');
          }
          // POP at the brokers: the 5.5.0 Proxy cannot serve it (SimpleConsumer test above).
          const c = simpleConsumer(cluster.namesrvAddr, `pt_prio_g_${way}_${run}`, topic);
          await c.start();
          const got: PoppedMessage[] = [];
          const deadline = Date.now() + 90_000;
          while (got.length < priorities.length && Date.now() < deadline)
            got.push(...(await c.receive(32, 60_000)));
          assert.deepEqual(got.map((m) => m.priority).sort(), [...priorities].sort());
          // The broker put each on queue min(priority, writeQueues − 1); POP reads the highest first.
          for (const m of got)
            assert.equal(m.queue.queueId, Math.min(m.priority ?? -1, QUEUES - 1), m.body.toString());
          const queues = got.map((m) => m.queue.queueId);
          assert.deepEqual(
            queues,
            [...queues].sort((a, b) => b - a),
            'highest priority first',
          );
          for (const m of got) await c.ack(m);
        });
      }

      for (const way of ['proxy', 'direct'] as const) {
        it(`recall (${way}): a recalled timer message is never delivered; a later one is`, async () => {
          const topic = `pt_recall_${way}_${run}`;
          await typedTopic(topic, 'DELAY');
          const p = producers[way];
          const recalled = await p.send({ topic, body: 'recalled', deliverAfterMs: 4000 });
          assert.ok(recalled.recallHandle, 'a timer send answers a recall handle');
          assert.equal(await p.recallMessage(topic, recalled.recallHandle), recalled.msgId);
          const later = await p.send({ topic, body: 'later', deliverAfterMs: 6000 });
          const got: string[] = [];
          const c = new PushConsumer({
            namesrvAddr: way === 'proxy' ? cluster.proxyAddr : cluster.namesrvAddr,
            consumerGroup: `pt_recall_g_${way}_${run}`,
            consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
            rebalanceInterval: 1000,
          });
          closers.push(c);
          c.subscribe(topic);
          await c.start((m: ConsumerMessage) => {
            got.push(m.msgId);
          });
          // The timer wheel delivers in due order: once the later message is here, the recalled
          // one (due 2 s earlier) would have been too.
          await until(() => got.includes(later.msgId), 120_000, 'the later timer message');
          assert.ok(!got.includes(recalled.msgId), 'the recalled message was delivered');
          // Its handle is spent now: the time it names has passed.
          await assert.rejects(p.recallMessage(topic, later.recallHandle!), RecallRejectedError);
        });
      }

      it('recall handles that cannot be right are InvalidArgumentError before any I/O', async () => {
        const r = await producers.proxy.send({ topic: topics.delay, body: 'x', deliverAfterMs: 60_000 });
        const recalls = countRequests([RequestCode.RECALL_MESSAGE]);
        try {
          await assert.rejects(
            producers.proxy.recallMessage(topics.delay, 'not a handle'),
            InvalidArgumentError,
          );
          await assert.rejects(
            producers.proxy.recallMessage(topics.fifo, r.recallHandle!),
            InvalidArgumentError,
          );
          assert.equal(recalls.count(), 0);
        } finally {
          recalls.stop();
        }
        await producers.proxy.recallMessage(topics.delay, r.recallHandle!);
      });

      it('a broker with recall off refuses with an error naming recallMessageEnable', async () => {
        const r = await producers.direct.send({ topic: topics.delay, body: 'x', deliverAfterMs: 60_000 });
        await admin.updateBrokerConfig('broker-a', { recallMessageEnable: false });
        try {
          await assert.rejects(
            producers.direct.recallMessage(topics.delay, r.recallHandle!),
            (err: unknown) => {
              assert.ok(err instanceof RecallDisabledError, String(err));
              assert.match(err.message, /recallMessageEnable/);
              return true;
            },
          );
        } finally {
          await admin.updateBrokerConfig('broker-a', { recallMessageEnable: true });
        }
        await producers.direct.recallMessage(topics.delay, r.recallHandle!);
      });

      it('Java and ours through the Proxy: each recalls the other’s timer message; Java consumes our FIFO and priority messages', async () => {
        const ours = await producers.proxy.send({
          topic: topics.delay,
          body: 'ours',
          deliverAfterMs: 60_000,
        });
        const javaRecall = await runDriver<{ msgId?: string; error?: string }>('5.5.0', [
          'recall',
          '--namesrv',
          cluster.proxyAddr,
          '--topic',
          topics.delay,
          '--handle',
          ours.recallHandle!,
        ]);
        assert.equal(javaRecall.msgId, ours.msgId, JSON.stringify(javaRecall));
        const java = await runDriver<JavaSent>('5.5.0', [
          'send5',
          '--namesrv',
          cluster.proxyAddr,
          '--topic',
          topics.delay,
          '--kind',
          'timer',
          '--count',
          '1',
          '--delay-ms',
          '60000',
        ]);
        const handle = java.sent[0]?.recallHandle;
        assert.ok(handle, JSON.stringify(java));
        assert.equal(await producers.proxy.recallMessage(topics.delay, handle), java.sent[0]!.msgId);

        const topic = `pt_tojava_${run}`;
        await typedTopic(topic, 'FIFO');
        for (let seq = 0; seq < 9; seq++)
          await producers.proxy.send({
            topic,
            body: `g${seq % 3}:${seq}`,
            messageGroup: `g${seq % 3}`,
            properties: { seq: String(seq) },
          });
        const pushed = await runDriver<{
          messages: Array<{ body: string; properties: Record<string, string> }>;
        }>('5.5.0', [
          'push',
          '--namesrv',
          cluster.proxyAddr,
          '--topics',
          topic,
          '--group',
          `pt_java_fifo_${run}`,
          '--duration-ms',
          '20000',
          '--orderly',
          'true',
        ]);
        const byGroup = new Map<string, number[]>();
        for (const m of pushed.messages) {
          const g = m.properties.__SHARDINGKEY ?? '?';
          byGroup.set(g, [...(byGroup.get(g) ?? []), Number(m.properties.seq)]);
        }
        assert.deepEqual(
          [...byGroup.keys()].sort(),
          ['g0', 'g1', 'g2'],
          JSON.stringify(pushed.messages.slice(0, 3)),
        );
        for (const [g, seqs] of byGroup)
          assert.deepEqual(
            seqs,
            [...seqs].sort((a, b) => a - b),
            `group ${g}`,
          );

        const ptopic = `pt_tojava_prio_${run}`;
        await typedTopic(ptopic, 'PRIORITY');
        for (const priority of [0, 1, 2, 3])
          await producers.proxy.send({ topic: ptopic, body: `p${priority}`, priority });
        const prio = await runDriver<{
          messages: Array<{ body: string; queueId: number; properties: Record<string, string> }>;
        }>('5.5.0', [
          'push',
          '--namesrv',
          cluster.proxyAddr,
          '--topics',
          ptopic,
          '--group',
          `pt_java_prio_${run}`,
          '--duration-ms',
          '15000',
        ]);
        assert.equal(prio.messages.length, 4);
        for (const m of prio.messages) {
          const priority = Number(m.properties._SYS_MSG_PRIORITY_);
          assert.equal(`p${priority}`, m.body);
          assert.equal(m.queueId, Math.min(priority, QUEUES - 1));
        }
      });

      it('Admin pointed at the Proxy fails at once with ProxyEndpointError', async () => {
        const a = new Admin({ namesrvAddr: cluster.proxyAddr });
        try {
          await assert.rejects(a.topics(), (err: unknown) => {
            assert.ok(err instanceof ProxyEndpointError, String(err));
            assert.match(err.message, /NameServer/i);
            return true;
          });
        } finally {
          await a.shutdown();
        }
        const cli = await execFileAsync(
          process.execPath,
          [join(REPO_ROOT, 'build', 'src', 'cli', 'main.js'), 'admin', 'topicList', '-n', cluster.proxyAddr],
          { timeout: 60_000 },
        ).then(
          () => assert.fail('the CLI succeeded against the Proxy'),
          (err: { code?: number; stderr?: string }) => err,
        );
        assert.notEqual(cli.code, 0);
        assert.match(cli.stderr ?? '', /NameServer/);
      });
    },
  );
}
