/**
 * Real-topology scenarios on embedded servers: a group's master is replaced (as a DLedger group
 * elects a new leader), a group with only a slave, and two NameServers that restart in turn.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker } from '../../src/server/broker/broker.js';
import { NameServer } from '../../src/server/namesrv/namesrv.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import type { SendResult } from '../../src/producer/send-result.js';
import { fakeNameServer } from '../client/helpers.js';
import { sleep, uniqueTopic, waitFor } from './cluster-helpers.js';
import { routeOf } from './helpers.js';

/** Every address a started producer sends a request to. */
function watchAddresses(p: Producer): { address: string }[] {
  const seen: { address: string }[] = [];
  const pool = (p as unknown as { instance: { pool: { request: (a: string, ...r: unknown[]) => unknown } } })
    .instance.pool;
  const original = pool.request.bind(pool);
  pool.request = (address: string, ...rest: unknown[]) => {
    seen.push({ address });
    return original(address, ...rest);
  };
  return seen;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rocketmq-ts-topology-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
function broker(brokerName: string, brokerId: number, namesrvAddr: string): Broker {
  return new Broker({
    brokerName,
    brokerId,
    brokerClusterName: 'DefaultCluster',
    listenPort: 0,
    namesrvAddr,
    storePathRootDir: join(dir, `${brokerName}-${brokerId}-${seq++}`),
    registerNameServerPeriod: 200,
    // Topics are created per broker by the test (as an admin would on a real group).
  });
}

/** `workers` callers sending in a loop until `stop()`; counts results per broker and failures. */
function sendLoop(p: Producer, topic: string, workers: number) {
  const byBroker = new Map<string, number[]>();
  const failures: unknown[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; running; i++) {
      try {
        const r = await p.send({ topic, body: `w${w}-${i}` });
        const list = byBroker.get(r.messageQueue.brokerName) ?? [];
        list.push(Date.now());
        byBroker.set(r.messageQueue.brokerName, list);
      } catch (err) {
        failures.push(err);
      }
      await sleep(2);
    }
  });
  return {
    byBroker,
    failures,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('topologies on embedded servers', () => {
  it('a group’s master dies and another registers under its name: traffic back within seconds, no send fails', async () => {
    // The embedded broker has no slaves: the group leaves the routes while it has no master.
    const cluster = await EmbeddedCluster.start({ brokers: ['broker-a', 'broker-b'] });
    let newMaster: Broker | undefined;
    let p: Producer | undefined;
    try {
      const topic = uniqueTopic('Failover');
      await cluster.createTopic(topic, 4);
      // The default 30 s route poll: only the master watch can bring traffic back in seconds.
      p = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: 'PG_failover' });
      await p.start();
      const load = sendLoop(p, topic, 8);
      await waitFor(() => (load.byBroker.get('broker-b')?.length ?? 0) > 20, 5000, 'traffic on broker-b');
      await cluster.stopBroker('broker-b', { graceful: false });
      await sleep(1000);
      newMaster = broker('broker-b', 0, cluster.namesrvAddr);
      await newMaster.start();
      await newMaster.createTopic(topic, 4);
      const registered = Date.now();
      await waitFor(
        () => (load.byBroker.get('broker-b') ?? []).some((t) => t > registered),
        10_000,
        'traffic on the new master of broker-b (without the watch: up to 30 s)',
      );
      const back = ((load.byBroker.get('broker-b') ?? []).find((t) => t > registered) ?? 0) - registered;
      await load.stop();
      assert.deepEqual(load.failures, [], 'no send failed');
      assert.ok(newMaster.store !== undefined);
      // The new master stored what the producer says went to broker-b after it registered.
      let stored = 0;
      for (let q = 0; q < 4; q++)
        stored += (await newMaster.store.getMessages(topic, q, 0, 10_000, 1 << 24)).messages.length;
      assert.ok(stored > 0, `the new master stored messages (traffic back after ${back} ms)`);
    } finally {
      await p?.shutdown();
      await newMaster?.stop();
      await cluster.stop();
    }
  });

  it('masters only: a group with only a slave gets no sends, and no send goes to a slave address', async () => {
    const cluster = await EmbeddedCluster.start({ brokers: ['broker-a'] });
    const master = cluster.brokers[0]?.addr as string;
    const slaveAddr = '127.0.0.9:10911';
    // broker-s has only brokerId 1 (its master is gone); broker-a has a master and a slave.
    const route = routeOf({ 'broker-a': 4, 'broker-s': 4 });
    route.brokerDatas = [
      { cluster: 'C', brokerName: 'broker-a', brokerAddrs: { '0': master, '1': slaveAddr } },
      { cluster: 'C', brokerName: 'broker-s', brokerAddrs: { '1': slaveAddr } },
    ];
    const ns = await fakeNameServer(() => route);
    let p: Producer | undefined;
    try {
      const topic = uniqueTopic('MastersOnly');
      await cluster.createTopic(topic, 4);
      p = new Producer({ namesrvAddr: ns.address, producerGroup: 'PG_masters' });
      await p.start();
      const requests = watchAddresses(p);
      for (let i = 0; i < 40; i++) {
        const r: SendResult = await p.send({ topic, body: `m${i}` });
        assert.equal(r.messageQueue.brokerName, 'broker-a');
      }
      assert.ok(requests.length >= 40);
      const brokersAsked = new Set(requests.map((r) => r.address).filter((a) => a !== ns.address));
      assert.deepEqual(brokersAsked, new Set([master]), 'only the master address');
    } finally {
      await p?.shutdown();
      await ns.close();
      await cluster.stop();
    }
  });

  it('two NameServers: each restarts mid-run and no send fails, new topics included', async () => {
    const ns1 = new NameServer({ listenPort: 0 });
    const ns2 = new NameServer({ listenPort: 0 });
    const a1 = await ns1.start();
    const a2 = await ns2.start();
    const namesrvAddr = `${a1};${a2}`;
    const brokers = [broker('broker-a', 0, namesrvAddr), broker('broker-b', 0, namesrvAddr)];
    let p: Producer | undefined;
    let restarted: NameServer | undefined;
    let restarted2: NameServer | undefined;
    const options: Partial<ProducerOptions> = { pollNameServerInterval: 200 };
    try {
      for (const b of brokers) await b.start();
      const topics = [uniqueTopic('NsA'), uniqueTopic('NsB'), uniqueTopic('NsC')];
      for (const b of brokers) await b.createTopic(topics[0] as string, 4);
      p = new Producer({ namesrvAddr, producerGroup: 'PG_ns', ...options });
      await p.start();
      const load = sendLoop(p, topics[0] as string, 4);
      await sleep(300);
      await ns1.stop();
      await sleep(500);
      for (const b of brokers) await b.createTopic(topics[1] as string, 4);
      await p.send({ topic: topics[1] as string, body: 'new topic, one NameServer down' });
      restarted = new NameServer({ listenPort: Number(a1.split(':')[1]) });
      await restarted.start();
      await sleep(600); // brokers re-register with it (every 200 ms)
      await ns2.stop();
      await sleep(500);
      for (const b of brokers) await b.createTopic(topics[2] as string, 4);
      await p.send({ topic: topics[2] as string, body: 'new topic, the other NameServer down' });
      restarted2 = new NameServer({ listenPort: Number(a2.split(':')[1]) });
      await restarted2.start();
      await sleep(300);
      await load.stop();
      assert.deepEqual(load.failures, [], 'no send failed');
      assert.ok(
        (load.byBroker.get('broker-a')?.length ?? 0) > 0 && (load.byBroker.get('broker-b')?.length ?? 0) > 0,
      );
    } finally {
      await p?.shutdown();
      for (const b of brokers) await b.stop();
      await ns1.stop().catch(() => undefined);
      await ns2.stop().catch(() => undefined);
      await restarted?.stop();
      await restarted2?.stop();
    }
  });
});
