/**
 * Issue 16 scenarios on a real 4.9.7 cluster of master/slave groups: broker-a (ASYNC_MASTER +
 * slave) and broker-b (SYNC_MASTER + slave), two NameServers, slave reads enabled. Our producer
 * and push consumer keep traffic running; each scenario asserts 0 failed sends, 0 acknowledged
 * messages lost (read back), the group carrying traffic again within TRAFFIC_BACK_GOAL_MS,
 * consumers still consuming.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ASYNC_GROUP,
  NODES,
  SYNC_GROUP,
  haHandshakes,
  waitForSlaveReplicating,
  startMasterSlaveTopology,
  waitForNewMaster,
  waitUntil,
} from './topology.js';
import { LiteReader } from './lite-reader.js';
import {
  READ_BACK_MS,
  assertNothingLost,
  assertTrafficBack,
  startScenario,
  stopScenario,
  type TopologyScenario,
} from './scenario.js';

describe('real topology: ASYNC and SYNC master/slave groups, two NameServers', { timeout: 900_000 }, () => {
  let s: TopologyScenario;

  before(async () => {
    s = await startScenario('master/slave', () => startMasterSlaveTopology(), 'topo_ms', [
      ASYNC_GROUP,
      SYNC_GROUP,
    ]);
  });

  after(() => stopScenario(s));

  it('lite pull reads from the slave and goes on from the master when the slave dies', async () => {
    const { cluster, traffic } = s;
    const slave = cluster.broker(NODES.syncSlave);
    const master = cluster.broker(NODES.syncMaster);
    // A new group reading from the first offset is far behind: broker-b suggests its slave.
    const reader = await LiteReader.start(cluster.namesrvAddr, s.topic, `topo_lite_${s.run}`);
    try {
      await reader.waitForReadsAt(slave.addr, 60_000);
      const killedAt = Date.now();
      const handshakes = haHandshakes(cluster, NODES.syncMaster);
      await cluster.kill(NODES.syncSlave, 'SIGKILL');
      // Traffic goes on for a while: what broker-b stores now can only be read from its master.
      await sleep(5000);
      const readUpTo = Date.now();
      const expected = traffic.records
        .filter((r) => r.brokerName === SYNC_GROUP && r.endedAt < readUpTo)
        .map((r) => r.seq);
      const missing = await reader.missingAfter(expected, READ_BACK_MS);
      const afterKill = traffic.ackedBy(SYNC_GROUP, killedAt).length;
      // Offsets go to the master only (autoCommit every 5 s).
      let committed: number[] = [];
      await waitUntil(
        'lite pull offsets committed at the master',
        async () => (committed = await reader.committedAt(master.addr)).some((o) => o > 0),
        30_000,
        1000,
      );
      console.log(
        `# lite pull: ${reader.received.size} read; ${expected.length} of ${SYNC_GROUP} expected (${afterKill} sent after the slave died), ${missing.length} missing; ${reader.pullFailures.get(slave.addr) ?? 0} pulls failed at the dead slave; offsets at the master ${JSON.stringify(committed)}`,
      );
      assert.deepEqual(missing.slice(0, 20), [], `${missing.length} of ${SYNC_GROUP}'s messages never read`);
      assert.ok(afterKill > 0, `${SYNC_GROUP} stored messages after its slave died`);
      await cluster.restart(NODES.syncSlave);
      await waitForSlaveReplicating(cluster, NODES.syncMaster, handshakes);
    } finally {
      await reader.shutdown();
    }
    assert.equal(traffic.failed().length, 0, traffic.summary());
  });

  it('a slave dies', async () => {
    const { cluster, traffic, tracker } = s;
    const killedAt = Date.now();
    // The SYNC_MASTER's slave: its master can no longer replicate (SLAVE_NOT_AVAILABLE), yet stores.
    await cluster.kill(NODES.syncSlave, 'SIGKILL');
    await sleep(5000);
    const during = traffic.ackedBy(SYNC_GROUP, killedAt).length;
    const consumed = tracker.receivedSince(killedAt, SYNC_GROUP);
    const slaveFailures = tracker.pullFailures.get(cluster.broker(NODES.syncSlave).addr) ?? 0;
    const handshakes = haHandshakes(cluster, NODES.syncMaster);
    await cluster.restart(NODES.syncSlave);
    await waitForSlaveReplicating(cluster, NODES.syncMaster, handshakes);
    // The group never lost its master, so there is no traffic to come back: it kept it.
    console.log(
      `# slave down: ${during} sends acknowledged by ${SYNC_GROUP}, ${consumed} of its messages consumed, ${slaveFailures} pulls failed at the slave`,
    );
    assert.equal(traffic.failed().length, 0, traffic.summary(killedAt));
    assert.ok(during > 0, `${SYNC_GROUP} kept taking sends without its slave`);
    assert.ok(consumed > 0, `the consumer kept consuming ${SYNC_GROUP} (from its master)`);
    await assertNothingLost(s);
  });

  it('a master dies with a slave alive', async () => {
    const { cluster, traffic, tracker } = s;
    const master = cluster.broker(NODES.asyncMaster);
    const killedAt = Date.now();
    await cluster.kill(NODES.asyncMaster, 'SIGKILL');
    await sleep(8000);
    const consumed = tracker.receivedSince(killedAt);
    const shares = traffic.shares(killedAt + 3000, Date.now());
    const restartAt = Date.now();
    await cluster.restart(NODES.asyncMaster);
    const again = await waitForNewMaster(cluster, ASYNC_GROUP);
    assert.equal(again.node.addr, master.addr);
    // A 4.9 slave never becomes master: traffic comes back when the master registers again.
    const back = await assertTrafficBack(s, ASYNC_GROUP, again.registeredAt);
    console.log(
      `# master down: shares ${JSON.stringify(shares)}, ${consumed} consumed; restart at +${restartAt - killedAt} ms, traffic back ${back} ms after it registered again`,
    );
    assert.equal(traffic.failed().length, 0, traffic.summary(killedAt));
    assert.ok((shares[SYNC_GROUP] ?? 0) > 0.5, 'the other group took the traffic');
    assert.ok(consumed > 0, 'the consumer kept consuming');
    await assertNothingLost(s);
  });
});
