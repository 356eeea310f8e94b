/**
 * Issue 16 scenarios on a real 4.9.7 cluster: a DLedger group of three (RaftNode00) next to a
 * plain master (broker-e), two NameServers; our producer and push consumer keep traffic running
 * through every scenario. Each scenario asserts 0 failed sends, 0 acknowledged messages lost
 * (read back by the consumer), the group carrying traffic again within TRAFFIC_BACK_GOAL_MS,
 * consumers still consuming. Scenarios run in order on one cluster; the leader kill comes last
 * (it needs no restore).
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DLEDGER_GROUP,
  NODES,
  PLAIN_GROUP,
  dledgerLeader,
  startDledgerTopology,
  waitForNamesrvToKnowAll,
  waitForNewMaster,
  waitUntil,
} from './topology.js';
import {
  READ_BACK_MS,
  assertNothingLost,
  assertTrafficBack,
  startScenario,
  stopScenario,
  type TopologyScenario,
} from './scenario.js';

/** How long the plain master is frozen (SIGSTOP) in the slow-master scenario: the 30 s. */
const SLOW_MS = 30_000;

describe(
  'real topology: DLedger group of three, a plain group, two NameServers',
  { timeout: 900_000 },
  () => {
    let s: TopologyScenario;

    before(async () => {
      s = await startScenario('DLedger', () => startDledgerTopology(), 'topo_dledger', [
        DLEDGER_GROUP,
        PLAIN_GROUP,
      ]);
    });

    after(() => stopScenario(s));

    it('one NameServer dies and comes back', async () => {
      const { cluster, producer, traffic, tracker, run } = s;
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
      // No group lost its master here, so there is no traffic to come back: both kept it.
      console.log(`# NameServer back and complete ${back - since} ms after the kill`);
      assert.equal(traffic.failed().length, 0, traffic.summary(since));
      assert.ok(traffic.ackedBy(DLEDGER_GROUP, since).length > 0, `${DLEDGER_GROUP} kept taking sends`);
      assert.ok(traffic.ackedBy(PLAIN_GROUP, since).length > 0, `${PLAIN_GROUP} kept taking sends`);
      assert.ok(tracker.receivedSince(since) > 0, 'the consumer kept consuming');
      await assertNothingLost(s);
    });

    it("a group's master is slow for 30 s (SIGSTOP, then SIGCONT)", async () => {
      const { cluster, traffic, tracker } = s;
      const pausedAt = Date.now();
      cluster.pause(NODES.plain);
      await sleep(SLOW_MS);
      const during = traffic.shares(pausedAt + 2000, Date.now());
      const consumedDuring = tracker.receivedSince(pausedAt);
      cluster.resume(NODES.plain);
      const resumedAt = Date.now();
      // Traffic back is measured from SIGCONT: the master never left the route, so there is no
      // registration to wait for.
      const back = await assertTrafficBack(s, PLAIN_GROUP, resumedAt);
      console.log(
        `# slow master: shares while stopped ${JSON.stringify(during)}, traffic back ${back} ms after SIGCONT, ${consumedDuring} consumed while stopped; ${traffic.summary(pausedAt)}`,
      );
      assert.equal(traffic.failed().length, 0, traffic.summary(pausedAt));
      assert.ok((during[DLEDGER_GROUP] ?? 0) > 0.5, 'the healthy group took the traffic');
      assert.ok(consumedDuring > 0, 'the consumer kept consuming from the healthy group');
      await waitUntil(
        `the consumer reading ${PLAIN_GROUP} again`,
        () => tracker.receivedSince(resumedAt, PLAIN_GROUP) > 0,
        READ_BACK_MS,
        250,
      );
      await assertNothingLost(s);
    });

    it('the DLedger leader is killed and another is elected', async () => {
      const { cluster, traffic, tracker } = s;
      const leader = await dledgerLeader(cluster);
      assert.ok(leader !== undefined, 'a leader is registered');
      const killedAt = Date.now();
      await cluster.kill(leader.name, 'SIGKILL');
      const elected = await waitForNewMaster(cluster, DLEDGER_GROUP, { notAddr: leader.addr });
      assert.notEqual(elected.node.name, leader.name);
      const back = await assertTrafficBack(s, DLEDGER_GROUP, elected.registeredAt);
      console.log(
        `# leader ${leader.name} killed; ${elected.node.name} registered ${elected.registeredAt - killedAt} ms later; traffic back ${back} ms after that; ${traffic.summary(killedAt)}`,
      );
      assert.equal(traffic.failed().length, 0, traffic.summary(killedAt));
      assert.ok(tracker.receivedSince(killedAt) > 0, 'the consumer kept consuming');
      // The consumer reads the group again from its new leader.
      await waitUntil(
        'the consumer reading the group from its new leader',
        () => tracker.receivedSince(elected.registeredAt + back, DLEDGER_GROUP) > 0,
        READ_BACK_MS,
        250,
      );
      await assertNothingLost(s);
    });
  },
);
