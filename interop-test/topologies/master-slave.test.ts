/**
 * Issue 16 scenarios on a real 4.9.7 cluster of master/slave groups: broker-a (ASYNC_MASTER +
 * slave) and broker-b (SYNC_MASTER + slave), two NameServers, slave reads enabled. Our producer
 * and push consumer keep traffic running; each scenario asserts 0 failed sends, 0 acknowledged
 * messages lost (read back), the group carrying traffic again, consumers still consuming.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Producer } from '../../src/producer/producer.js';
import type { RealCluster } from '../real-cluster.js';
import {
  ASYNC_GROUP,
  NODES,
  SYNC_GROUP,
  createTopicEverywhere,
  haHandshakes,
  waitForSlaveReplicating,
  startMasterSlaveTopology,
  waitForNewMaster,
  waitUntil,
} from './topology.js';
import { ConsumeTracker, SendTraffic, TRAFFIC_BACK_BUDGET_MS, topologyProducer } from './traffic.js';

const READ_BACK_MS = 90_000;

describe('real topology: ASYNC and SYNC master/slave groups, two NameServers', { timeout: 600_000 }, () => {
  let cluster: RealCluster;
  let producer: Producer;
  let traffic: SendTraffic;
  let tracker: ConsumeTracker;
  const run = Date.now().toString(36);
  const topic = `topo_ms_${run}`;

  before(async () => {
    const t0 = Date.now();
    cluster = await startMasterSlaveTopology();
    console.log(`# master/slave topology up in ${Date.now() - t0} ms`);
    await createTopicEverywhere(cluster, topic);
    producer = await topologyProducer(cluster.namesrvAddr, `topo_pg_${run}`);
    tracker = await ConsumeTracker.start(cluster.namesrvAddr, topic, `topo_cg_${run}`);
    traffic = new SendTraffic(producer, topic);
    traffic.start();
    await waitUntil(
      'both groups acknowledging and the consumer reading',
      () =>
        traffic.ackedBy(ASYNC_GROUP).length > 0 &&
        traffic.ackedBy(SYNC_GROUP).length > 0 &&
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

  it('a slave dies', async () => {
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
    console.log(
      `# slave down: ${during} sends acknowledged by ${SYNC_GROUP}, ${consumed} of its messages consumed, ${slaveFailures} pulls failed at the slave`,
    );
    assert.equal(traffic.failed().length, 0, traffic.summary(killedAt));
    assert.ok(during > 0, `${SYNC_GROUP} kept taking sends without its slave`);
    assert.ok(consumed > 0, `the consumer kept consuming ${SYNC_GROUP} (from its master)`);
    await assertNothingLost();
  });

  it('a master dies with a slave alive', async () => {
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
    const back = await traffic.waitForAckBy(ASYNC_GROUP, again.registeredAt, TRAFFIC_BACK_BUDGET_MS);
    console.log(
      `# master down: shares ${JSON.stringify(shares)}, ${consumed} consumed; restart at +${restartAt - killedAt} ms, traffic back ${back - again.registeredAt} ms after it registered again`,
    );
    assert.equal(traffic.failed().length, 0, traffic.summary(killedAt));
    assert.ok((shares[SYNC_GROUP] ?? 0) > 0.5, 'the other group took the traffic');
    assert.ok(consumed > 0, 'the consumer kept consuming');
    await assertNothingLost();
  });
});
