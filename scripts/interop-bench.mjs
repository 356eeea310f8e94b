// Java client baseline: sync-send throughput and latency of the real Java producer against a real
// RocketMQ cluster (NameServer + broker-a + broker-b on loopback), one run per thread count.
// Usage (after `npm run build:all`):
//   node scripts/interop-bench.mjs [--version 4.9.7] [--threads 1,16,64] [--size 128] [--duration-ms 10000]
// Prints one line per run and a JSON summary on the last line.
import { parseArgs } from 'node:util';
import { RealCluster } from '../build/interop-test/real-cluster.js';
import { runDriver } from '../build/interop-test/java.js';

const { values } = parseArgs({
  options: {
    version: { type: 'string', default: '4.9.7' },
    threads: { type: 'string', default: '1,16,64' },
    size: { type: 'string', default: '128' },
    'duration-ms': { type: 'string', default: '10000' },
    'warmup-ms': { type: 'string', default: '3000' },
  },
});

const cluster = await RealCluster.start({ version: values.version, quickJit: false });
const results = [];
try {
  for (const threads of values.threads.split(',').map(Number)) {
    const r = await runDriver(
      values.version,
      [
        'bench',
        '--namesrv',
        cluster.namesrvAddr,
        '--topic',
        `interop_bench_${threads}_${Date.now().toString(36)}`,
        '--threads',
        String(threads),
        '--size',
        values.size,
        '--duration-ms',
        values['duration-ms'],
        '--warmup-ms',
        values['warmup-ms'],
      ],
      { timeoutMs: 300_000, jvmArgs: ['-XX:TieredStopAtLevel=4'] },
    );
    results.push({ version: values.version, ...r });
    console.log(
      `java ${values.version} threads=${threads} size=${values.size}: ${r.msgsPerSec} msg/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, failed ${r.failed}`,
    );
  }
} finally {
  await cluster.stop();
}
console.log(JSON.stringify(results));
