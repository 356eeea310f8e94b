/**
 * Issue 16 scenarios on a real 4.9.7 cluster: a DLedger group of three (RaftNode00) next to a
 * plain master (broker-e), two NameServers; our producer and push consumer keep traffic running
 * through every scenario. Each scenario asserts 0 failed sends, 0 acknowledged messages lost
 * (read back by the consumer), the group carrying traffic again, consumers still consuming.
 * Scenarios run in order on one cluster; the leader kill comes last (it needs no restore).
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Producer } from '../../src/producer/producer.js';
import type { RealCluster } from '../real-cluster.js';
import {
  DLEDGER_GROUP,
  NODES,
  PLAIN_GROUP,
  createTopicEverywhere,
  dledgerLeader,
  startDledgerTopology,
  waitForNamesrvToKnowAll,
  waitForNewMaster,
  waitUntil,
} from './topology.js';
import { ConsumeTracker, SendTraffic, TRAFFIC_BACK_BUDGET_MS, topologyProducer } from './traffic.js';

/**
 * How long the plain master is stopped (SIGSTOP) in the slow-master scenario. The issue says
 * 30 s; 10 s shows the same (every send in flight there hangs, the producer must route around
 * it) and keeps the suite short.
 */
const SLOW_MS = 10_000;
/** Read-back budget: a consumer may learn a new master only from its 30 s route refresh. */
const READ_BACK_MS = 90_000;

describe(
  'real topology: DLedger group of three, a plain group, two NameServers',
  { timeout: 900_000 },
  () => {
    let cluster: RealCluster;
    let producer: Producer;
    let traffic: SendTraffic;
    let tracker: ConsumeTracker;
    const run = Date.now().toString(36);
    const topic = `topo_dledger_${run}`;

    before(async () => {
      const t0 = Date.now();
      cluster = await startDledgerTopology();
      console.log(`# DLedger topology up in ${Date.now() - t0} ms`);
      await createTopicEverywhere(cluster, topic);
      producer = await topologyProducer(cluster.namesrvAddr, `topo_pg_${run}`);
      tracker = await ConsumeTracker.start(cluster.namesrvAddr, topic, `topo_cg_${run}`);
      traffic = new SendTraffic(producer, topic);
      traffic.start();
      await waitUntil(
        'both groups acknowledging and the consumer reading',
        () =>
          traffic.ackedBy(DLEDGER_GROUP).length > 0 &&
          traffic.ackedBy(PLAIN_GROUP).length > 0 &&
          tracker.received.size > 0,
        60_000,
      );
    });

    after(async () => {
      await traffic?.stop();
      await tracker?.shutdown().catch(() => undefined);
      await producer?.shutdown().catch(() => undefined);
      await cluster?.stop();
    });

    async function assertNothingLost(): Promise<void> {
      const acked = traffic.acked();
      const sends = traffic.summary();
      const missing = await tracker.missingAfter(acked, READ_BACK_MS);
      console.log(`# ${sends}; ${acked.length} acknowledged, ${missing.length} not read back`);
      assert.deepEqual(missing.slice(0, 20), [], `${missing.length} acknowledged messages never read back`);
    }

    it('one NameServer dies and comes back', async () => {
      const [first, second] = cluster.namesrvNodes as [string, string];
      const since = Date.now();
      // Fresh topics need a route lookup, so the NameServer failover is exercised on every send.
      const lookups = async (label: string): Promise<void> => {
        for (let i = 0; i < 5; i++) {
          const r = await producer.send({ topic: `topo_ns_${label}_${i}_${run}`, body: Buffer.from('x') });
          assert.ok(r.msgId !== '');
        }
      };
      await cluster.kill(first, 'SIGKILL');
      await lookups('first_down');
      await sleep(2000);
      await cluster.restart(first);
      await waitForNamesrvToKnowAll(cluster, 0);
      const back = Date.now();
      // Only the restarted one is left: it must serve routes again.
      await cluster.kill(second, 'SIGKILL');
      await lookups('second_down');
      await cluster.restart(second);
      await waitForNamesrvToKnowAll(cluster, 1);
      console.log(`# NameServer back and complete ${back - since} ms after the kill`);
      assert.equal(traffic.failed().length, 0, traffic.summary());
      assert.ok(tracker.receivedSince(since) > 0, 'the consumer kept consuming');
      await assertNothingLost();
    });

    it("a group's master is slow (SIGSTOP for 10 s)", async () => {
      const pausedAt = Date.now();
      cluster.pause(NODES.plain);
      await sleep(SLOW_MS);
      const during = traffic.shares(pausedAt + 2000, Date.now());
      const consumedDuring = tracker.receivedSince(pausedAt);
      cluster.resume(NODES.plain);
      const resumedAt = Date.now();
      const back = await traffic.waitForAckBy(PLAIN_GROUP, resumedAt, TRAFFIC_BACK_BUDGET_MS);
      console.log(
        `# slow master: shares while stopped ${JSON.stringify(during)}, traffic back ${back - resumedAt} ms after SIGCONT, ${consumedDuring} consumed while stopped`,
      );
      assert.equal(traffic.failed().length, 0, traffic.summary());
      assert.ok((during[DLEDGER_GROUP] ?? 0) > 0.5, 'the healthy group took the traffic');
      assert.ok(consumedDuring > 0, 'the consumer kept consuming from the healthy group');
      await assertNothingLost();
    });

    it('the DLedger leader is killed and another is elected', async () => {
      const leader = await dledgerLeader(cluster);
      assert.ok(leader !== undefined, 'a leader is registered');
      const killedAt = Date.now();
      await cluster.kill(leader.name, 'SIGKILL');
      const elected = await waitForNewMaster(cluster, DLEDGER_GROUP, { notAddr: leader.addr });
      assert.notEqual(elected.node.name, leader.name);
      const back = await traffic.waitForAckBy(DLEDGER_GROUP, elected.registeredAt, TRAFFIC_BACK_BUDGET_MS);
      console.log(
        `# leader ${leader.name} killed; ${elected.node.name} registered ${elected.registeredAt - killedAt} ms later; traffic back ${back - elected.registeredAt} ms after that`,
      );
      assert.equal(traffic.failed().length, 0, traffic.summary());
      assert.ok(tracker.receivedSince(killedAt) > 0, 'the consumer kept consuming');
      // The consumer reads the group again from its new leader.
      await waitUntil(
        'the consumer reading the group from its new leader',
        () => tracker.receivedSince(back, DLEDGER_GROUP) > 0,
        READ_BACK_MS,
        250,
      );
      await assertNothingLost();
    });
  },
);
