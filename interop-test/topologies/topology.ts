/**
 * Real cluster topologies of issue 16 on loopback, built on RealCluster (../real-cluster.ts), and
 * the helpers failover tests need: who is a group's master right now (the NameServer's brokerId 0
 * address, what every client's route says), waiting for a new master, and topics created on
 * every node (a DLedger follower only learns topic configs from its leader every 10 s, so a topic
 * auto-created just before a failover could be missing on the new leader).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GetAllTopicConfig, UpdateAndCreateTopic } from '../../src/protocol/headers/admin.js';
import { rawRequest } from '../raw-remoting.js';
import { RealCluster, type RealBroker } from '../real-cluster.js';

/** The RocketMQ version of every topology (DLedger is a 4.x broker feature; 5.x moved to controllers). */
export const TOPOLOGY_VERSION = '4.9.7';
/** Broker name (and DLedger group) of the Raft group of three. */
export const DLEDGER_GROUP = 'RaftNode00';
/** The plain (single master) group next to the DLedger group. */
export const PLAIN_GROUP = 'broker-e';
/** ASYNC_MASTER group with one slave. */
export const ASYNC_GROUP = 'broker-a';
/** SYNC_MASTER group with one slave. */
export const SYNC_GROUP = 'broker-b';
/** Node (process) names of the topologies. */
export const NODES = Object.freeze({
  raft: ['raft-n0', 'raft-n1', 'raft-n2'] as const,
  plain: 'broker-e',
  asyncMaster: 'a-master',
  asyncSlave: 'a-slave',
  syncMaster: 'b-master',
  syncSlave: 'b-slave',
});

export interface TopologyOptions {
  /** @default TOPOLOGY_VERSION */
  version?: string;
  /** @default 2 */
  namesrvs?: number;
  /** Heap of each broker JVM (MiB). @default 256 */
  heapMb?: number;
  /** Extra broker.conf lines of every node. */
  brokerConfig?: Record<string, string | number | boolean>;
  /** @default 240000 (several JVMs start at once on a small machine) */
  startTimeoutMs?: number;
}

/** What every topology node runs with: quick re-registration, slave reads allowed. */
const TOPOLOGY_BROKER_CONFIG = Object.freeze({
  // Brokers re-register every 10 s (the minimum; Java's default is 30 s), so a restarted
  // NameServer knows them again quickly.
  registerNameServerPeriod: 10_000,
  // Slaves (and DLedger followers) serve pulls when the broker suggests them.
  slaveReadEnable: true,
});

function startTopology(
  options: TopologyOptions,
  nodes: NonNullable<Parameters<typeof RealCluster.start>[0]['nodes']>,
): Promise<RealCluster> {
  return RealCluster.start({
    version: options.version ?? TOPOLOGY_VERSION,
    namesrvs: options.namesrvs ?? 2,
    heapMb: options.heapMb ?? 256,
    startTimeoutMs: options.startTimeoutMs ?? 240_000,
    brokerConfig: { ...TOPOLOGY_BROKER_CONFIG, ...options.brokerConfig },
    nodes,
  });
}

/**
 * A DLedger group of three (`RaftNode00`: nodes raft-n0..n2, `enableDLegerCommitLog=true`,
 * peers on loopback) plus a plain master (`broker-e`), and two NameServers. Resolves once every
 * node is registered, i.e. the group has elected a leader and both followers joined it.
 */
export function startDledgerTopology(options: TopologyOptions = {}): Promise<RealCluster> {
  return startTopology(options, [
    ...NODES.raft.map((node, i) => ({ node, brokerName: DLEDGER_GROUP, dledgerSelfId: `n${i}` })),
    { node: NODES.plain, brokerName: PLAIN_GROUP },
  ]);
}

/**
 * Two master/slave groups and two NameServers: `broker-a` (ASYNC_MASTER a-master, slave a-slave)
 * and `broker-b` (SYNC_MASTER b-master, slave b-slave); brokerId 0/1, HA on listenPort+1.
 * broker-b counts every consumer as slow (`accessMessageInMemoryMaxRatio=0`: any backlog is
 * "beyond memory"), so it suggests its slave (`suggestWhichBrokerId=1`) whenever a consumer is
 * behind, and consumers really read from the slave.
 */
export async function startMasterSlaveTopology(options: TopologyOptions = {}): Promise<RealCluster> {
  const slowReader = { accessMessageInMemoryMaxRatio: 0 };
  const cluster = await startTopology(options, [
    { node: NODES.asyncMaster, brokerName: ASYNC_GROUP, brokerId: 0, brokerRole: 'ASYNC_MASTER' },
    { node: NODES.asyncSlave, brokerName: ASYNC_GROUP, brokerId: 1, brokerRole: 'SLAVE' },
    {
      node: NODES.syncMaster,
      brokerName: SYNC_GROUP,
      brokerId: 0,
      brokerRole: 'SYNC_MASTER',
      config: slowReader,
    },
    { node: NODES.syncSlave, brokerName: SYNC_GROUP, brokerId: 1, brokerRole: 'SLAVE', config: slowReader },
  ]);
  try {
    // Registered is not yet replicating: a slave connects to its master's HA port seconds later.
    await waitForSlaveReplicating(cluster, NODES.asyncMaster);
    await waitForSlaveReplicating(cluster, NODES.syncMaster);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** The node the NameServers list as `brokerName`'s master (brokerId 0), if any. */
export async function masterNode(cluster: RealCluster, brokerName: string): Promise<RealBroker | undefined> {
  const addr = (await cluster.brokerAddrTable())[brokerName]?.['0'];
  return addr === undefined ? undefined : cluster.nodeAt(addr);
}

/** The current DLedger leader of `group`: its master in the route. */
export function dledgerLeader(cluster: RealCluster, group = DLEDGER_GROUP): Promise<RealBroker | undefined> {
  return masterNode(cluster, group);
}

export interface NewMaster {
  node: RealBroker;
  /** When the harness first saw it registered (epoch ms; polled every 100 ms). */
  registeredAt: number;
}

/**
 * Waits until the NameServers list a master for `brokerName` other than `notAddr` (a new
 * DLedger leader, or a restarted master when `notAddr` is omitted).
 */
export async function waitForNewMaster(
  cluster: RealCluster,
  brokerName: string,
  options: { notAddr?: string; timeoutMs?: number } = {},
): Promise<NewMaster> {
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  while (Date.now() < deadline) {
    const node = await masterNode(cluster, brokerName);
    if (node !== undefined && node.addr !== options.notAddr && node.alive)
      return { node, registeredAt: Date.now() };
    await sleep(100);
  }
  throw new Error(`no new master of ${brokerName} within ${options.timeoutMs ?? 90_000} ms`);
}

/** Polls `check` every `intervalMs` until it is true; throws naming `what` after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * UPDATE_AND_CREATE_TOPIC on every master (`queues` read and write queues per group), then waits
 * until every running slave and DLedger follower copied the topic config from its master (they
 * refuse the request themselves and sync every 10 s), so the topic survives any failover.
 */
export async function createTopicEverywhere(
  cluster: RealCluster,
  topic: string,
  queues = 4,
  timeoutMs = 40_000,
): Promise<void> {
  const header = UpdateAndCreateTopic.encode({
    topic,
    defaultTopic: 'TBW102',
    readQueueNums: queues,
    writeQueueNums: queues,
    perm: 6,
    topicFilterType: 'SINGLE_TAG',
  });
  const table = await cluster.brokerAddrTable();
  const masters = Object.values(table)
    .map((ids) => ids['0'])
    .filter((a): a is string => a !== undefined);
  for (const addr of masters) {
    const res = await rawRequest(addr, UpdateAndCreateTopic.code, header);
    if (res.code !== 0)
      throw new Error(`creating ${topic} on ${addr} failed: ${res.code} ${res.remark ?? ''}`);
  }
  const needle = `"${topic}"`;
  await waitUntil(
    `every node to know topic ${topic}`,
    async () => {
      for (const b of cluster.brokers) {
        if (!b.alive) continue;
        const res = await rawRequest(b.addr, GetAllTopicConfig.code).catch(() => undefined);
        if (res?.body === undefined || !Buffer.from(res.body).toString('utf8').includes(needle)) return false;
      }
      return true;
    },
    timeoutMs,
    500,
  );
}

/** Waits until NameServer `index` (into `namesrvAddrs`) lists every running broker node. */
export async function waitForNamesrvToKnowAll(
  cluster: RealCluster,
  index: number,
  timeoutMs = 60_000,
): Promise<void> {
  await waitUntil(
    `${cluster.namesrvNodes[index] ?? index} to list every broker`,
    async () => {
      const table = await cluster.brokerAddrTable(index);
      return cluster.brokers.filter((b) => b.alive).every((b) => cluster.isRegistered(table, b.name));
    },
    timeoutMs,
    250,
  );
}

/**
 * HA handshakes a master logged so far (a slave connecting asks for its offset). A SYNC_MASTER
 * holds every write until its slave acknowledged it, so writes stall for seconds while a slave
 * that just (re)started connects; scenarios wait for the handshake before going on.
 */
export function haHandshakes(cluster: RealCluster, masterNode: string): number {
  return cluster.serverLog(masterNode).split('request offset').length - 1;
}

/** Waits until `masterNode` logged more than `before` HA handshakes (its slave is replicating). */
export async function waitForSlaveReplicating(
  cluster: RealCluster,
  masterNode: string,
  before = 0,
  timeoutMs = 60_000,
): Promise<void> {
  await waitUntil(
    `a slave of ${masterNode} replicating`,
    () => haHandshakes(cluster, masterNode) > before,
    timeoutMs,
    250,
  );
}
