/** Helpers for producer tests against the embedded cluster. */
import { after, before } from 'node:test';
import { EmbeddedCluster as EmbeddedClusterClass, type EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import type { RemotingCommand } from '../../src/protocol/command.js';
import { decodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';

export interface ReadBack {
  brokerName: string;
  queueId: number;
  body: Buffer;
  sysFlag: number;
  properties: Record<string, string>;
}

/** Every stored message of `topic` on every running broker of the cluster. */
export async function readTopic(cluster: EmbeddedCluster, topic: string, queues = 16): Promise<ReadBack[]> {
  const out: ReadBack[] = [];
  for (const b of cluster.brokers) {
    if (!b.broker.running) continue;
    for (let q = 0; q < queues; q++) {
      const r = await b.broker.store.getMessages(topic, q, 0, 10_000, 64 * 1024 * 1024);
      for (const rec of r.messages) {
        const { message } = decodeStoredMessage(rec);
        out.push({
          brokerName: b.name,
          queueId: q,
          body: message.body,
          sysFlag: message.sysFlag,
          properties: decodeProperties(message.properties),
        });
      }
    }
  }
  return out;
}

let seq = 0;
/** A topic name no other test uses. */
export function uniqueTopic(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now() % 100000}_${seq++}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves when `predicate` holds (polling), rejects after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await predicate()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Producers on one cluster, each in its own group `<prefix>_<n>`; `shutdownAll` ends them. */
export function producerPool(
  cluster: () => EmbeddedCluster,
  prefix: string,
): { start(options?: Partial<ProducerOptions>): Promise<Producer>; shutdownAll(): Promise<void> } {
  const producers: Producer[] = [];
  return {
    async start(options = {}) {
      const p = new Producer({
        namesrvAddr: cluster().namesrvAddr,
        producerGroup: `${prefix}_${producers.length}`,
        ...options,
      });
      producers.push(p);
      await p.start();
      return p;
    },
    async shutdownAll() {
      for (const p of producers.splice(0)) await p.shutdown();
    },
  };
}

/**
 * Watches the requests a started producer sends through its connection pool: `seen` gets every
 * request command and the response it got (undefined until it arrives).
 */
export function watchRequests(p: Producer): Array<{ request: RemotingCommand; response?: RemotingCommand }> {
  const seen: Array<{ request: RemotingCommand; response?: RemotingCommand }> = [];
  const pool = (
    p as unknown as { instance: { pool: { request: (...a: unknown[]) => Promise<RemotingCommand> } } }
  ).instance.pool;
  const original = pool.request.bind(pool);
  pool.request = async (address: unknown, cmd: unknown, timeout: unknown) => {
    const entry: { request: RemotingCommand; response?: RemotingCommand } = {
      request: cmd as RemotingCommand,
    };
    seen.push(entry);
    entry.response = await original(address, cmd, timeout);
    return entry.response;
  };
  return seen;
}

/**
 * For a describe block: a one-broker embedded cluster started before its tests and stopped
 * after them, with a producer pool whose producers are shut down first.
 */
export function oneBrokerCluster(prefix: string): {
  cluster(): EmbeddedCluster;
  startProducer(options?: Partial<ProducerOptions>): Promise<Producer>;
} {
  let c: EmbeddedCluster | undefined;
  const cluster = (): EmbeddedCluster => {
    if (c === undefined) throw new Error('the cluster is not started yet');
    return c;
  };
  const pool = producerPool(cluster, prefix);
  before(async () => {
    c = await EmbeddedClusterClass.start({ brokers: 1 });
  });
  after(async () => {
    await pool.shutdownAll();
    await c?.stop();
  });
  return { cluster, startProducer: pool.start };
}
