/**
 * What every topology test file shares: a real topology with a topic on every node, our producer
 * sending through `SendTraffic`, our push consumer reading it back (`ConsumeTracker`), and the
 * assertions every scenario makes (0 failed sends, 0 acknowledged messages lost, traffic back
 * within the goal).
 */
import * as assert from 'node:assert/strict';
import type { Producer } from '../../src/producer/producer.js';
import type { RealCluster } from '../real-cluster.js';
import { createTopicEverywhere, waitUntil } from './topology.js';
import { ConsumeTracker, SendTraffic, TRAFFIC_BACK_GOAL_MS, topologyProducer } from './traffic.js';

/** Read-back budget: a consumer may learn a new master only from its 30 s route refresh. */
export const READ_BACK_MS = 90_000;

export interface TopologyScenario {
  readonly cluster: RealCluster;
  readonly producer: Producer;
  readonly traffic: SendTraffic;
  readonly tracker: ConsumeTracker;
  readonly topic: string;
  /** A short id unique to this run, for topic and group names. */
  readonly run: string;
}

/**
 * Starts the topology (`start`), creates `topicPrefix_<run>` on every node, then the traffic and
 * the consumer, and waits until every group of `groups` acknowledged a send and the consumer read
 * something. `label` names the topology in the startup log line.
 */
export async function startScenario(
  label: string,
  start: () => Promise<RealCluster>,
  topicPrefix: string,
  groups: readonly string[],
): Promise<TopologyScenario> {
  const run = Date.now().toString(36);
  const t0 = Date.now();
  const cluster = await start();
  console.log(`# ${label} topology up in ${Date.now() - t0} ms`);
  const topic = `${topicPrefix}_${run}`;
  let producer: Producer | undefined;
  let tracker: ConsumeTracker | undefined;
  try {
    await createTopicEverywhere(cluster, topic);
    producer = await topologyProducer(cluster.namesrvAddr, `topo_pg_${run}`);
    tracker = await ConsumeTracker.start(cluster.namesrvAddr, topic, `topo_cg_${run}`);
  } catch (err) {
    await tracker?.shutdown().catch(() => undefined);
    await producer?.shutdown().catch(() => undefined);
    await cluster.stop();
    throw err;
  }
  const traffic = new SendTraffic(producer, topic);
  traffic.start();
  const s: TopologyScenario = { cluster, producer, traffic, tracker, topic, run };
  await waitUntil(
    `${groups.join(' and ')} acknowledging and the consumer reading`,
    () => groups.every((g) => traffic.ackedBy(g).length > 0) && tracker.received.size > 0,
    60_000,
  ).catch(async (err: unknown) => {
    await stopScenario(s);
    throw err;
  });
  return s;
}

/** Stops traffic, consumer, producer and cluster (each at most once; a missing one is skipped). */
export async function stopScenario(s: TopologyScenario | undefined): Promise<void> {
  if (s === undefined) return;
  await s.traffic.stop();
  await s.tracker.shutdown().catch(() => undefined);
  await s.producer.shutdown().catch(() => undefined);
  await s.cluster.stop();
}

/** Every acknowledged message is read back by the consumer (within READ_BACK_MS). */
export async function assertNothingLost(s: TopologyScenario): Promise<void> {
  const acked = s.traffic.acked();
  const sends = s.traffic.summary();
  const missing = await s.tracker.missingAfter(acked, READ_BACK_MS);
  console.log(`# ${sends}; ${acked.length} acknowledged, ${missing.length} not read back`);
  assert.deepEqual(missing.slice(0, 20), [], `${missing.length} acknowledged messages never read back`);
}

/**
 * Waits until `group` acknowledged a send started at or after `since` (the moment the group could
 * take traffic again: its new master registered at the NameServer, or the frozen master resumed)
 * and asserts it came within TRAFFIC_BACK_GOAL_MS. Returns the delay (ms).
 */
export async function assertTrafficBack(s: TopologyScenario, group: string, since: number): Promise<number> {
  // Waits past the goal, so a miss reports its figure instead of a bare timeout.
  const back = await s.traffic.waitForAckBy(group, since, 4 * TRAFFIC_BACK_GOAL_MS).catch(() => undefined);
  assert.ok(back !== undefined, `${group} carried no traffic within ${4 * TRAFFIC_BACK_GOAL_MS} ms`);
  const ms = back - since;
  assert.ok(
    ms <= TRAFFIC_BACK_GOAL_MS,
    `${group} carried traffic again ${ms} ms after it could (goal ${TRAFFIC_BACK_GOAL_MS} ms)`,
  );
  return ms;
}
