/**
 * Against real Apache RocketMQ (4.9.7 and 5.5.0): LZ4 / ZSTD bodies cross-read both ways (our
 * producer → Java consumer byte for byte; Java producer with `rocketmq.message.compressType` →
 * our push consumer, checking the type bits), sends with the ROCKETMQ binary header (a 4.9 broker
 * answers in kind, a 5.x broker in JSON), and a timer message refused before it is written (4.9
 * has no timer wheel; the harness's 5.x runs with timerWheelEnable=false).
 */
import { TimerNotSupportedError } from '../src/errors.js';
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { Producer } from '../src/producer/producer.js';
import type { ProducerOptions } from '../src/producer/options.js';
import { SEQ_PROPERTY, detMessage } from './deterministic.js';
import { INTEROP_VERSIONS, consumeWithJava, describeConsume, runDriver } from './java.js';
import { RealCluster } from './real-cluster.js';

const SIZE = 10_000;

describe(
  'compression types, ROCKETMQ serialization and timers against real RocketMQ',
  { concurrency: 1 },
  () => {
    for (const { version, major } of INTEROP_VERSIONS) {
      describe(`RocketMQ ${version}`, { timeout: 300_000, concurrency: 1 }, () => {
        let cluster: RealCluster;
        const producers: Producer[] = [];
        const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;

        async function producer(options: Partial<ProducerOptions>): Promise<Producer> {
          const p = new Producer({
            producerGroup: `interop_cs_pg_${run}_${producers.length}`,
            namesrvAddr: cluster.namesrvAddr,
            instanceName: `interop_cs_${run}_${producers.length}`,
            pollNameServerInterval: 1000,
            ...options,
          });
          producers.push(p);
          await p.start();
          return p;
        }

        before(async () => {
          cluster = await RealCluster.start({ version });
        });
        after(async () => {
          for (const p of producers) await p.shutdown();
          await cluster?.stop();
        });

        it('our LZ4 and ZSTD bodies, sent with the ROCKETMQ binary header, reach the Java consumer byte for byte', async () => {
          for (const type of ['LZ4', 'ZSTD'] as const) {
            const p = await producer({ compressType: type, serializeType: 'ROCKETMQ' });
            const topic = `interop_cs_${type.toLowerCase()}_${run}`;
            const ids = new Map<number, string>();
            for (let seq = 0; seq < 4; seq++) {
              const m = detMessage(seq, SIZE);
              const r = await p.send({
                topic,
                body: m.body,
                tags: m.tags,
                keys: m.keys,
                properties: m.properties,
              });
              assert.equal(r.status, 'SEND_OK');
              ids.set(seq, r.msgId);
            }
            const got = await consumeWithJava(version, cluster.namesrvAddr, topic, 4, 90_000, [
              '--size',
              String(SIZE),
            ]);
            assert.equal(got.received, 4, describeConsume(got));
            assert.deepEqual(got.corrupt, [], describeConsume(got));
            for (const [seq, id] of ids) assert.equal(got.ids[String(seq)], id);
          }
        });

        it('Java’s LZ4 and ZSTD bodies are read by our push consumer, with Java’s type bits', async () => {
          for (const [type, bits] of [
            ['LZ4', 0x100],
            ['ZSTD', 0x200],
          ] as const) {
            const topic = `interop_cs_java_${type.toLowerCase()}_${run}`;
            const sent = await runDriver<{ sent: number }>(
              version,
              [
                'produce',
                '--namesrv',
                cluster.namesrvAddr,
                '--topic',
                topic,
                '--count',
                '3',
                '--size',
                String(SIZE),
              ],
              { jvmArgs: [`-Drocketmq.message.compressType=${type}`] },
            );
            assert.equal(sent.sent, 3);
            const seen: ConsumerMessage[] = [];
            const c = new PushConsumer({
              namesrvAddr: cluster.namesrvAddr,
              consumerGroup: `interop_cs_cg_${type}_${run}`,
              consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
              rebalanceInterval: 500,
              pollNameServerInterval: 500,
            });
            try {
              c.subscribe(topic);
              await c.start((m) => {
                seen.push(m);
              });
              const end = Date.now() + 60_000;
              while (seen.length < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
            } finally {
              await c.shutdown();
            }
            assert.equal(seen.length, 3);
            for (const m of seen) {
              const seq = Number(m.properties[SEQ_PROPERTY]);
              assert.equal(m.sysFlag & 0x701, bits | 0x1, `${type} sysFlag ${m.sysFlag}`);
              assert.ok(m.body.equals(detMessage(seq, SIZE).body), `seq ${seq} body`);
            }
          }
        });

        it('a timer message is refused before it is written: the broker has no usable timer wheel', async () => {
          const p = await producer({});
          const topic = `interop_cs_timer_${run}`;
          assert.equal((await p.send({ topic, body: 'plain first' })).status, 'SEND_OK');
          await assert.rejects(p.send({ topic, body: 'later', deliverAfterMs: 5000 }), (e: unknown) => {
            assert.ok(e instanceof TimerNotSupportedError);
            assert.match(e.message, major === 4 ? /before 5\.0\.0/ : /timerWheelEnable=false/);
            return true;
          });
        });
      });
    }
  },
);
