/**
 * autoBatch vs plain sends at many concurrent callers against the embedded cluster (2 brokers in
 * a child process, started by bench/producer.ts's `cluster` mode): msgs/s, p50, p99 and client
 * CPU per send for each, and the cluster child's CPU per message ("brk"). Target: autoBatch ≥ 5× plain, p99 ≤ batchMaxDelayMs + 5 ms.
 *
 *   node build/bench/auto-batch.js [--seconds 3] [--warmup 2] [--concurrency 256] [--size 128] [--delay 10]
 *     [--only plain|autoBatch] [--prof-broker <dir>]   (a V8 CPU profile of the cluster child)
 *     [--elu]   (also the event-loop utilization of both processes over the measured phase)
 *
 * Prints figures; asserts nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { formatMs } from '../src/cli/stats.js';
import { forkClusterChild } from './cluster-child.js';
import { measureCell, type ClusterCpu, type ClusterUsage } from './measure.js';
import { Producer } from '../src/producer/producer.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '256' },
    size: { type: 'string', default: '128' },
    delay: { type: 'string', default: '10' },
    /**
     * Seconds each mode runs before it is measured: the JIT of both processes and the broker's
     * write path settle (at 0.5 s both modes measured 5–10 % below their steady state).
     */
    warmup: { type: 'string', default: '2' },
    topic: { type: 'string', default: 'BenchAutoBatch' },
    /** Only one mode: 'plain' or 'autoBatch' (both by default). */
    only: { type: 'string' },
    /** Write a V8 CPU profile of the cluster child into this folder (node --cpu-prof). */
    'prof-broker': { type: 'string' },
    /**
     * Also print each process's event-loop utilization over the measured phase: how much of the
     * time each side was busy rather than waiting for the other (1.0 = never idle).
     */
    elu: { type: 'boolean', default: false },
  },
});

/** CPU accounting of the cluster child (bench/producer.ts `cluster` mode answers mark/report). */
function childCpu(child: ChildProcess): ClusterCpu {
  return {
    mark: () => child.send({ mark: true }),
    report: async () => {
      child.send({ report: true });
      const [msg] = (await once(child, 'message')) as [ClusterUsage];
      return msg;
    },
  };
}

async function run(namesrvAddr: string, autoBatch: boolean, cpu: ClusterCpu): Promise<number> {
  const producer = new Producer({
    namesrvAddr,
    producerGroup: autoBatch ? 'BENCH_AUTO_BATCH' : 'BENCH_PLAIN',
    autoBatch,
    batchMaxDelayMs: Number(values.delay),
  });
  await producer.start();
  const body = randomBytes(Number(values.size));
  const send = (b: Buffer): Promise<unknown> => producer.send({ topic: values.topic, body: b });
  await send(body);
  const cell = await measureCell(
    send,
    body,
    Number(values.concurrency),
    Number(values.seconds),
    Number(values.warmup),
    cpu,
  );
  await producer.shutdown();
  console.log(
    `${(autoBatch ? 'autoBatch' : 'plain').padEnd(10)} ${Math.round(cell.msgsPerSec).toString().padStart(10)} msgs/s ` +
      `p50 ${formatMs(cell.p50).padStart(7)} ms  p99 ${formatMs(cell.p99).padStart(7)} ms  ` +
      `cpu ${cell.cpuUsPerMsg.toFixed(1).padStart(6)} µs/msg  brk ${cell.brokerCpuUsPerMsg.toFixed(1).padStart(6)} µs/msg` +
      `${values.elu ? `  elu ${cell.elu.toFixed(2)} brk elu ${cell.brokerElu.toFixed(2)}` : ''}` +
      `${cell.failed ? `  (${cell.failed} failed)` : ''}`,
  );
  return cell.msgsPerSec;
}

async function main(): Promise<void> {
  const profDir = values['prof-broker'];
  const child = forkClusterChild(
    values.topic,
    profDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
  );
  try {
    const [msg] = (await once(child, 'message')) as [{ namesrvAddr: string }];
    console.log(
      `embedded cluster (2 brokers) in child ${child.pid}; ${values.concurrency} concurrent callers, ` +
        `${values.size} B bodies, batchMaxDelayMs ${values.delay}, ${values.seconds} s each after ${values.warmup} s of warm-up`,
    );
    const cpu = childCpu(child);
    const plain = values.only === 'autoBatch' ? NaN : await run(msg.namesrvAddr, false, cpu);
    const batched = values.only === 'plain' ? NaN : await run(msg.namesrvAddr, true, cpu);
    if (values.only === undefined) console.log(`ratio      ${(batched / plain).toFixed(2)}x`);
  } finally {
    child.send({ stop: true });
    await once(child, 'exit');
  }
}

await main();
