/** Helpers for producer tests against the embedded cluster. */
import type { EmbeddedCluster } from '../../src/server/cluster.js';
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
