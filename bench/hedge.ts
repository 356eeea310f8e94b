/**
 * Hedged sends through a hung broker: an embedded cluster (2 brokers, in this process), 16
 * concurrent senders, broker-a hung for `--hang` s after `--warmup` s, once with `hedgeSends`
 * off and once on. Prints the send rate of every second, the worst second against the pre-fault
 * rate, the healthy p99 and the worst latency seen during the hang. Figures, not assertions.
 *
 *   npm run build:all && node build/bench/hedge.js [--hang 12] [--warmup 3] [--after 2] [--concurrency 16]
 */
import { parseArgs } from 'node:util';
import { LatencyHistogram } from '../src/cli/stats.js';
import { Producer } from '../src/producer/producer.js';
import { PRODUCER_DEFAULTS } from '../src/producer/options.js';
import { EmbeddedCluster } from '../src/server/cluster.js';

const { values } = parseArgs({
  options: {
    hang: { type: 'string', default: '12' },
    warmup: { type: 'string', default: '3' },
    after: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '16' },
  },
});
const hangS = Number(values.hang);
const warmupS = Number(values.warmup);
const afterS = Number(values.after);
const concurrency = Number(values.concurrency);

interface Run {
  perSecond: number[];
  healthy: LatencyHistogram;
  duringHang: LatencyHistogram;
  failures: number;
  duplicates: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function run(hedgeSends: boolean): Promise<Run> {
  const cluster = await EmbeddedCluster.start({ brokers: 2, faultInjection: true });
  const topic = `BenchHedge_${hedgeSends ? 'on' : 'off'}`;
  await cluster.createTopic(topic, 4);
  const p = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: 'PG_BENCH_HEDGE', hedgeSends });
  await p.start();
  const out: Run = {
    perSecond: [],
    healthy: new LatencyHistogram(),
    duringHang: new LatencyHistogram(),
    failures: 0,
    duplicates: 0,
  };
  p.on('hedgedDuplicate', () => out.duplicates++);
  const start = Date.now();
  const hangAt = start + warmupS * 1000;
  const hangEnd = hangAt + hangS * 1000;
  const end = hangEnd + afterS * 1000;
  let running = true;
  const body = Buffer.alloc(128, 1);
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) {
      const t0 = Date.now();
      try {
        await p.send({ topic, body });
      } catch {
        out.failures++;
        continue;
      }
      const t1 = Date.now();
      const second = Math.floor((t1 - start) / 1000);
      out.perSecond[second] = (out.perSecond[second] ?? 0) + 1;
      // Healthy: the second before the hang (after the warm-up); hang: sends that overlapped it.
      if (t0 >= hangAt - 1000 && t1 < hangAt) out.healthy.record(t1 - t0);
      else if (t1 >= hangAt && t0 < hangEnd) out.duringHang.record(t1 - t0);
    }
  });
  await sleep(hangAt - Date.now());
  cluster.broker('broker-a').faults.set({ hang: true });
  await sleep(hangEnd - Date.now());
  cluster.broker('broker-a').faults.clear();
  await sleep(end - Date.now());
  running = false;
  await Promise.all(loops);
  await p.shutdown();
  await cluster.stop();
  return out;
}

function report(name: string, r: Run): void {
  const pre = r.perSecond[warmupS - 1] ?? 0;
  const hangSeconds = r.perSecond.slice(warmupS, warmupS + hangS + 1).map((n) => n ?? 0);
  const worst = Math.min(...hangSeconds);
  const p99 = r.healthy.percentile(99);
  console.log(`\n${name}`);
  console.log(`  per second: ${r.perSecond.map((n) => n ?? 0).join(' ')}`);
  console.log(
    `  pre-fault ${pre}/s; worst second during the hang ${worst}/s (${((100 * worst) / Math.max(1, pre)).toFixed(0)} %)`,
  );
  console.log(
    `  healthy p99 ${p99.toFixed(1)} ms; worst latency during the hang ${r.duringHang.percentile(100).toFixed(0)} ms ` +
      `(goal ≤ 10 × p99 + ${PRODUCER_DEFAULTS.hedgeDelayFloorMs} = ${(10 * p99 + PRODUCER_DEFAULTS.hedgeDelayFloorMs).toFixed(0)} ms)`,
  );
  console.log(`  failed sends ${r.failures}; duplicates ${r.duplicates}`);
}

console.log(
  `broker-a hangs for ${hangS} s after ${warmupS} s; ${concurrency} concurrent 128 B sends; embedded cluster in this process`,
);
report('hedgeSends: false', await run(false));
report('hedgeSends: true (default)', await run(true));
