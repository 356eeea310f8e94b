/** Scenarios through the fake 5.x Proxy (test/helpers/fake-proxy.ts) in front of a 2-broker embedded cluster. */
import { EmbeddedCluster } from '../../src/server/cluster.js';
import type { BrokerOptions } from '../../src/server/broker/options.js';
import { FakeProxy } from '../helpers/fake-proxy.js';
import { unique } from '../consumer/helpers.js';

export interface ProxyScenario {
  cluster: EmbeddedCluster;
  proxy: FakeProxy;
  /** A topic with `queues` queues on each broker. */
  topic: string;
  group: string;
  /** Shut down after the scenario (in reverse order). */
  own<T extends { shutdown(): Promise<void> }>(client: T): T;
}

/** Fast timer, POP revive and transaction check-back, so scenarios finish in seconds. */
const FAST_BROKER: Partial<BrokerOptions> = {
  reviveInterval: 100,
  transactionTimeOut: 300,
  transactionCheckInterval: 150,
};

export async function proxyScenario(queues: number, fn: (s: ProxyScenario) => Promise<void>): Promise<void> {
  const cluster = await EmbeddedCluster.start({ brokers: 2, brokerOptions: FAST_BROKER });
  const proxy = await FakeProxy.start(cluster);
  const clients: { shutdown(): Promise<void> }[] = [];
  try {
    const topic = unique('ProxyT');
    await cluster.createTopic(topic, queues);
    await fn({
      cluster,
      proxy,
      topic,
      group: unique('ProxyG'),
      own(client) {
        clients.push(client);
        return client;
      },
    });
  } finally {
    for (const c of clients.reverse()) await c.shutdown().catch(() => undefined);
    await proxy.close();
    await cluster.stop();
  }
}

/** Broker names holding each of `bodies` (read from the stores, not through the Proxy). */
export function brokersOf(stored: { brokerName: string }[]): string[] {
  return [...new Set(stored.map((s) => s.brokerName))].sort();
}
