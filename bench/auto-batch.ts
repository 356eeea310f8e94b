/**
 * autoBatch vs plain sends at many concurrent callers against the embedded cluster (2 brokers in
 * a child process, started by bench/producer.ts's `cluster` mode): msgs/s, p50, p99 and client
 * CPU per send for each. Target: autoBatch ≥ 5× plain, p99 ≤ batchMaxDelayMs + 5 ms.
 *
 *   node build/bench/auto-batch.js [--seconds 3] [--concurrency 256] [--size 128] [--delay 10]
 *
 * Prints figures; asserts nothing.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LatencyHistogram, formatMs } from '../src/cli/stats.js';
import { Producer } from '../src/producer/producer.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '256' },
    size: { type: 'string', default: '128' },
    delay: { type: 'string', default: '10' },
    topic: { type: 'string', default: 'BenchAutoBatch' },
  },
});

async function run(namesrvAddr: string, autoBatch: boolean): Promise<string> {
  const producer = new Producer({
    namesrvAddr,
    producerGroup: autoBatch ? 'BENCH_AUTO_BATCH' : 'BENCH_PLAIN',
    autoBatch,
    batchMaxDelayMs: Number(values.delay),
  });
  await producer.start();
  const body = randomBytes(Number(values.size));
  const send = (): Promise<unknown> => producer.send({ topic: values.topic, body });
  await send();
  const hist = new LatencyHistogram();
  let ok = 0;
  let failed = 0;
  const warmEnd = performance.now() + 500;
  const end = warmEnd + Number(values.seconds) * 1000;
  let cpu = process.cpuUsage();
  let started = warmEnd;
  let recording = false;
  const worker = async (): Promise<void> => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      if (!recording && t0 >= warmEnd) {
        recording = true;
        started = t0;
        cpu = process.cpuUsage();
      }
      try {
        await send();
        if (recording) {
          hist.record(performance.now() - t0);
          ok++;
        }
      } catch {
        if (recording) failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Number(values.concurrency) }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await producer.shutdown();
  const rate = ok / elapsed;
  return (
    `${(autoBatch ? 'autoBatch' : 'plain').padEnd(10)} ${Math.round(rate).toString().padStart(10)} msgs/s ` +
    `p50 ${formatMs(hist.percentile(50)).padStart(7)} ms  p99 ${formatMs(hist.percentile(99)).padStart(7)} ms  ` +
    `cpu ${((used.user + used.system) / Math.max(1, ok)).toFixed(1).padStart(6)} µs/msg${failed ? `  (${failed} failed)` : ''}` +
    `\u0000${rate}`
  );
}

async function main(): Promise<void> {
  const producerBench = fileURLToPath(new URL('./producer.js', import.meta.url));
  const child = fork(producerBench, ['cluster', '--topic', values.topic], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const [msg] = (await once(child, 'message')) as [{ namesrvAddr: string }];
    console.log(
      `embedded cluster (2 brokers) in child ${child.pid}; ${values.concurrency} concurrent callers, ` +
        `${values.size} B bodies, batchMaxDelayMs ${values.delay}, ${values.seconds} s each`,
    );
    const plain = (await run(msg.namesrvAddr, false)).split('\u0000');
    console.log(plain[0]);
    const batched = (await run(msg.namesrvAddr, true)).split('\u0000');
    console.log(batched[0]);
    console.log(`ratio      ${(Number(batched[1]) / Number(plain[1])).toFixed(2)}x`);
  } finally {
    child.send({ stop: true });
    await once(child, 'exit');
  }
}

await main();
