/**
 * Hedged sends and message trace against a real Apache RocketMQ 4.9.7 cluster (short):
 * - a broker frozen with SIGSTOP for 12 s under 16 concurrent sends: no send fails, sends in
 *   flight to it are hedged, and its late answers after SIGCONT are counted as duplicates;
 *   the per-second rate is printed (figures, not assertions);
 * - a traced send is found and decoded by Java's own `mqadmin queryMsgTraceById` (which reads
 *   the trace topic by key and parses it with `TraceDataEncoder.decoderFromTraceDataString`).
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Producer } from '../src/producer/producer.js';
import type { HedgedDuplicateEvent } from '../src/producer/hedge.js';
import { runMqadmin } from './java.js';
import { RealCluster } from './real-cluster.js';

const VERSION = '4.9.7';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe(
  `hedged sends and message trace on RocketMQ ${VERSION}`,
  { timeout: 300_000, concurrency: 1 },
  () => {
    let cluster: RealCluster;
    const producers: Producer[] = [];
    const run = Date.now().toString(36);

    async function producer(group: string, extra: Partial<ConstructorParameters<typeof Producer>[0]> = {}) {
      const p = new Producer({
        producerGroup: `${group}_${run}`,
        namesrvAddr: cluster.namesrvAddr,
        instanceName: `${group}_${run}`,
        pollNameServerInterval: 1000,
        ...extra,
      });
      producers.push(p);
      await p.start();
      return p;
    }

    before(async () => {
      cluster = await RealCluster.start({ version: VERSION });
    });
    after(async () => {
      for (const p of producers) await p.shutdown();
      await cluster?.stop();
    });

    it('a broker frozen for 12 s (SIGSTOP): no send fails, overdue sends are hedged, late copies are counted', async () => {
      const p = await producer('interop_hedge');
      const topic = `interop_hedge_${run}`;
      // Auto-created on both brokers (TBW102) before the fault.
      for (let i = 0; i < 20; i++) await p.send({ topic, body: `warm ${i}` });
      const duplicates: HedgedDuplicateEvent[] = [];
      p.on('hedgedDuplicate', (e) => duplicates.push(e));
      const pid = cluster.broker('broker-a').pid;
      assert.ok(pid !== undefined);
      let running = true;
      const failures: unknown[] = [];
      const perSecond: number[] = [];
      const start = Date.now();
      const loops = Array.from({ length: 16 }, async (_, w) => {
        for (let i = 0; running; i++) {
          try {
            await p.send({ topic, body: `w${w} #${i}` });
            const s = Math.floor((Date.now() - start) / 1000);
            perSecond[s] = (perSecond[s] ?? 0) + 1;
          } catch (err) {
            failures.push(err);
          }
        }
      });
      try {
        await sleep(2000);
        process.kill(pid, 'SIGSTOP');
        await sleep(12_000);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await sleep(3000);
      running = false;
      await Promise.all(loops);
      console.log(`# per second (frozen from s2 to s14): ${perSecond.map((n) => n ?? 0).join(' ')}`);
      assert.deepEqual(failures, [], 'no send failed');
      const a = p.brokerHealth().find((h) => h.brokerName === 'broker-a');
      assert.ok((a?.hedged ?? 0) > 0, 'sends in flight to the frozen broker were hedged');
      // A duplicate is counted under the broker whose copy came late. Around the freeze and
      // the thaw broker-b can be the slow one too (a send to it hedged onto broker-a, which
      // then won), so broker-a's counter matches only broker-a's events, and the counters of
      // all brokers together match all events.
      const lateOnA = duplicates.filter((e) => e.brokerName === 'broker-a').length;
      assert.equal(a?.hedgedDuplicates, lateOnA, 'every late copy on broker-a counted');
      const counted = p.brokerHealth().reduce((sum, h) => sum + (h.hedgedDuplicates ?? 0), 0);
      assert.equal(counted, duplicates.length, 'every late copy counted under its broker');
      console.log(`# hedged ${a?.hedged}, duplicates ${duplicates.length} (${lateOnA} late on broker-a)`);
    });

    it('a traced send is found and decoded by mqadmin queryMsgTraceById', async () => {
      const p = await producer('interop_trace', { enableMsgTrace: true });
      const topic = `interop_trace_${run}`;
      const sent = await p.send({ topic, body: 'traced', tags: 'TagT', keys: 'trace-key' });
      let out = '';
      for (let i = 0; i < 20; i++) {
        const r = await runMqadmin(VERSION, [
          'queryMsgTraceById',
          '-n',
          cluster.namesrvAddr,
          '-i',
          sent.msgId,
        ]);
        out = r.stdout;
        if (/\bPub\b/.test(out)) break;
        await sleep(1000);
      }
      assert.match(out, new RegExp(`Pub\\s+interop_trace_${run}`), `Java decoded our Pub record:\n${out}`);
      assert.equal(p.traceStats()?.failed, 0);
    });
  },
);
