/**
 * Hedged sends against the embedded cluster: a hung broker and a slow one, 16 concurrent senders.
 * Correctness only (no failed send, every message stored, duplicates counted exactly); the
 * timing figures are printed by bench/hedge.ts.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import { WARM_SAMPLES, type HedgedDuplicateEvent } from '../../src/producer/hedge.js';
import { decodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';
import { sleep, uniqueTopic, waitFor } from './cluster-helpers.js';

let cluster: EmbeddedCluster;
const producers: Producer[] = [];

async function startProducer(options: Partial<ProducerOptions> = {}): Promise<Producer> {
  const p = new Producer({
    namesrvAddr: cluster.namesrvAddr,
    producerGroup: `PG_HEDGE_${producers.length}`,
    ...options,
  });
  producers.push(p);
  await p.start();
  return p;
}

/**
 * 16 senders in a loop until `stop()`, each pausing between sends so the test does not starve
 * the tests running beside it; every send must succeed.
 */
function senders(p: Producer, topic: string): { stop: () => Promise<string[]>; failures: unknown[] } {
  let running = true;
  const sent: string[] = [];
  const failures: unknown[] = [];
  const loops = Array.from({ length: 16 }, async (_, w) => {
    for (let i = 0; running; i++) {
      try {
        const r = await p.send({ topic, body: `w${w} #${i}` });
        sent.push(r.msgId);
        await sleep(10);
      } catch (err) {
        failures.push(err);
      }
    }
  });
  return {
    failures,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return sent;
    },
  };
}

/** Stored copies per UNIQ_KEY, every queue read to its end. */
async function storedCopies(topic: string): Promise<Map<string, number>> {
  const copies = new Map<string, number>();
  for (const b of cluster.brokers) {
    for (let q = 0; q < 4; q++) {
      for (let offset = 0; ;) {
        const r = await b.broker.store.getMessages(topic, q, offset, 4096);
        for (const rec of r.messages) {
          const id = decodeProperties(decodeStoredMessage(rec).message.properties)['UNIQ_KEY'] ?? '';
          copies.set(id, (copies.get(id) ?? 0) + 1);
        }
        if (r.messages.length === 0 || r.nextBeginOffset <= offset) break;
        offset = r.nextBeginOffset;
      }
    }
  }
  return copies;
}

describe('hedged sends against the embedded cluster', () => {
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2, faultInjection: true });
  });
  after(async () => {
    for (const p of producers) await p.shutdown();
    await cluster.stop();
  });

  it('a broker hangs for 12 s', async () => {
    const topic = uniqueTopic('Hang12');
    await cluster.createTopic(topic, 4);
    // The hedge, not the attempt cap, must take the sends off the hung broker however loaded the
    // machine is: 10 × a loaded p99 can pass the default 1 s cap, and a retry is not a hedge.
    const p = await startProducer({ sendMsgTimeout: 60_000, sendAttemptTimeout: 30_000 });
    const duplicates: HedgedDuplicateEvent[] = [];
    p.on('hedgedDuplicate', (e) => duplicates.push(e));
    const run = senders(p, topic);
    // Hedging starts once the broker has answered WARM_SAMPLES sends (hedge.ts): wait for twice
    // that many on broker-a, however slowly a loaded machine gets there.
    const storedOnA = (): number =>
      [0, 1, 2, 3].reduce((n, q) => n + cluster.broker('broker-a').store.getMaxOffset(topic, q), 0);
    await waitFor(() => storedOnA() >= 2 * WARM_SAMPLES, 120_000, 'broker-a warmed up');
    cluster.broker('broker-a').faults.set({ hang: true });
    await sleep(12_000);
    cluster.broker('broker-a').faults.clear();
    await sleep(1000);
    const sent = await run.stop();
    assert.deepEqual(run.failures, [], 'no send failed');
    assert.ok(sent.length > 0);
    const copies = await storedCopies(topic);
    for (const id of sent) assert.ok((copies.get(id) ?? 0) >= 1, `message ${id} is stored`);
    const extra = [...copies.values()].reduce((n, c) => n + c - 1, 0);
    assert.equal(extra, duplicates.length, 'every second copy was reported as a duplicate');
    const hedged = p.brokerHealth().find((h) => h.brokerName === 'broker-a')?.hedged ?? 0;
    assert.ok(hedged > 0, 'sends in flight to the hung broker were hedged');
  });

  it('a broker turns slow: sends hedged away from it are stored twice and every duplicate is counted', async () => {
    const topic = uniqueTopic('Slow');
    await cluster.createTopic(topic, 4);
    // A hedge delay well under the added latency even when a loaded machine makes p99 large.
    const p = await startProducer({ hedgeDelayMultiplier: 2, hedgeDelayFloorMs: 100 });
    const duplicates: HedgedDuplicateEvent[] = [];
    p.on('hedgedDuplicate', (e) => duplicates.push(e));
    const run = senders(p, topic);
    await sleep(500);
    // Under the 1 s attempt cap, so the slow copies are answered and seen.
    cluster.broker('broker-b').faults.set({ latencyMs: 700 });
    await sleep(1500);
    cluster.broker('broker-b').faults.clear();
    const sent = await run.stop();
    // Let the slow copies land before counting.
    await sleep(1000);
    assert.deepEqual(run.failures, [], 'no send failed');
    const copies = await storedCopies(topic);
    for (const id of sent) assert.ok((copies.get(id) ?? 0) >= 1, `message ${id} is stored`);
    const extra = [...copies.values()].reduce((n, c) => n + c - 1, 0);
    assert.ok(duplicates.length > 0, 'the slow broker stored copies of hedged sends');
    assert.equal(extra, duplicates.length, 'every second copy was reported as a duplicate');
    for (const d of duplicates) assert.equal(copies.get(d.msgId), 2, d.msgId);
    const health = p.brokerHealth().find((h) => h.brokerName === 'broker-b');
    assert.equal(health?.hedgedDuplicates, duplicates.filter((d) => d.brokerName === 'broker-b').length);
  });
});
