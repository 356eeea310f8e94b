/**
 * The 5.x Proxy killed (SIGKILL) and started again while our Producer sends and our PushConsumer
 * consumes, both with `namesrvAddr` at the Proxy: every send the producer reported SEND_OK is
 * consumed (nothing acknowledged is lost), and both clients carry on by themselves after the
 * restart (new sends acknowledged, new messages consumed) with no help from the test.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { Producer } from '../src/producer/producer.js';
import { createTypedTopic, until, type ProxyEnv } from './proxy-fixture.js';
import { PROXY_NODE, type RealCluster } from './real-cluster.js';

const run = Date.now().toString(36);
/** Concurrent senders. */
const SENDERS = 4;

/** Registers the test (a `describe`) on `env`'s cluster; run it last: it kills the Proxy. */
export function proxyRestartTests(env: ProxyEnv): void {
  describe('the Proxy restarted under load', () => {
    let cluster: RealCluster;
    let producer: Producer | undefined;
    let consumer: PushConsumer | undefined;

    before(() => {
      cluster = env.cluster;
    });
    after(async () => {
      await consumer?.shutdown().catch(() => undefined);
      await producer?.shutdown().catch(() => undefined);
    });

    it('no acknowledged send is lost and producer and consumer resume by themselves', async () => {
      const topic = `px_restart_${run}`;
      await createTypedTopic(cluster, topic, 'NORMAL', 4);
      producer = new Producer({
        producerGroup: `px_restart_pg_${run}`,
        namesrvAddr: cluster.proxyAddr,
        instanceName: `px_restart_p_${run}`,
        pollNameServerInterval: 1000,
        sendMsgTimeout: 3000,
      });
      await producer.start();
      const consumed = new Set<number>();
      consumer = new PushConsumer({
        namesrvAddr: cluster.proxyAddr,
        consumerGroup: `px_restart_cg_${run}`,
        instanceName: `px_restart_c_${run}`,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        rebalanceInterval: 1000,
        pollNameServerInterval: 1000,
        heartbeatBrokerInterval: 1000,
      });
      consumer.subscribe(topic);
      await consumer.start((m: ConsumerMessage) => {
        consumed.add(Number(m.properties.seq));
      });

      const acked: number[] = [];
      const failures: string[] = [];
      let next = 0;
      let stop = false;
      const p = producer;
      const sender = async (): Promise<void> => {
        while (!stop) {
          const seq = next++;
          try {
            const r = await p.send({ topic, body: `restart-${seq}`, properties: { seq: String(seq) } });
            if (r.status === 'SEND_OK') acked.push(seq);
          } catch (err) {
            // Sends while the Proxy is down fail; only acknowledged ones must arrive.
            failures.push(String(err));
            await sleep(100);
          }
        }
      };
      const senders = Array.from({ length: SENDERS }, () => sender());
      try {
        await until(() => acked.length >= 100 && consumed.size >= 50, 120_000, 'traffic before the kill');
        await cluster.kill(PROXY_NODE);
        const ackedAtKill = acked.length;
        const failuresAtKill = failures.length;
        await until(() => failures.length > failuresAtKill, 60_000, 'a send failing while the Proxy is down');
        await cluster.restart(PROXY_NODE);
        const ackedAtRestart = acked.length;
        const seenAtRestart = consumed.size;
        await until(
          () => acked.length >= ackedAtRestart + 100,
          120_000,
          'sends acknowledged after the restart',
        );
        stop = true;
        await Promise.all(senders);
        await until(
          () => acked.every((s) => consumed.has(s)),
          180_000,
          'every acknowledged message consumed after the restart',
        );
        assert.ok(consumed.size > seenAtRestart, 'the consumer took new messages after the restart');
        assert.ok(ackedAtKill >= 100);
        const lost = acked.filter((s) => !consumed.has(s));
        assert.deepEqual(lost, [], 'acknowledged messages lost');
      } finally {
        stop = true;
        await Promise.all(senders);
      }
    });
  });
}
