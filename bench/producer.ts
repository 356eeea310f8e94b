/**
 * Producer benchmark: rocketmq-ts `Producer` vs the ali-ons producer, side by side against the
 * same cluster, at 1 / 16 / 64 concurrent sends and 128 B / 4 KiB bodies (random bytes, so
 * compression cannot flatter either client). By default the cluster is an EmbeddedCluster in a
 * child process; `--namesrv` points both clients at a real one (the topic must exist or be
 * auto-creatable there).
 *
 *   node build/bench/producer.js [--seconds 3] [--namesrv 127.0.0.1:9876] [--topic BenchProducer]
 *   node build/bench/producer.js --soak 1000000        # RSS of our producer over 1M sends at 64 concurrent
 *   node build/bench/producer.js --serialize ROCKETMQ  # our producer with binary request headers
 *
 * "cpu µs/msg" is this process's CPU per send (the client's own cost; the broker runs in the
 * child), the fairest figure on a shared machine; "brk µs/msg" is the cluster child's CPU per
 * send in the same cell (both brokers and the NameServer); "cpu ratio" = ali-ons / ours.
 * Prints figures; asserts nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatMs } from '../src/cli/stats.js';
import { measureCell, type Cell, type SendFn } from './measure.js';
import { Producer } from '../src/producer/producer.js';
import { EmbeddedCluster } from '../src/server/cluster.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '0.5' },
    namesrv: { type: 'string' },
    topic: { type: 'string', default: 'BenchProducer' },
    soak: { type: 'string' },
    concurrency: { type: 'string' },
    sizes: { type: 'string' },
    /** 'ours' or 'ali-ons': run one client only */
    only: { type: 'string' },
    /** Our producer's serializeType: JSON (default) or ROCKETMQ (binary request headers). */
    serialize: { type: 'string', default: 'JSON' },
  },
});

/** The embedded cluster's child process, when there is one: asked for its CPU use per cell. */
let clusterChild: ChildProcess | undefined;

function markClusterCpu(): void {
  clusterChild?.send({ mark: true });
}

async function clusterCpuUs(): Promise<number> {
  if (clusterChild === undefined) return NaN;
  clusterChild.send({ report: true });
  const [msg] = (await once(clusterChild, 'message')) as [{ cpuUs: number }];
  return msg.cpuUs;
}

async function serveCluster(): Promise<void> {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  await cluster.createTopic(values.topic, 8);
  process.send?.({ namesrvAddr: cluster.namesrvAddr });
  let cpuMark = process.cpuUsage();
  process.on('message', (m: { stop?: boolean; mark?: boolean; report?: boolean }) => {
    if (m.mark) cpuMark = process.cpuUsage();
    if (m.report) {
      const used = process.cpuUsage(cpuMark);
      process.send?.({ cpuUs: used.user + used.system });
    }
    if (m.stop) void cluster.stop().then(() => process.exit(0));
  });
  process.on('disconnect', () => void cluster.stop().then(() => process.exit(0)));
}

function measure(
  send: SendFn,
  body: Buffer,
  concurrency: number,
  seconds: number,
  warmup: number,
): Promise<Cell> {
  return measureCell(send, body, concurrency, seconds, warmup, {
    mark: markClusterCpu,
    report: clusterCpuUs,
  });
}

interface OnsProducer {
  ready(): Promise<void>;
  send(msg: unknown): Promise<unknown>;
  close(): Promise<void>;
}

async function startAliOns(namesrvAddr: string): Promise<{ send: SendFn; close: () => Promise<void> }> {
  const require = createRequire(import.meta.url);
  const ons = require('ali-ons') as {
    Producer: (new (o: Record<string, unknown>) => OnsProducer) & { defaultProducer: OnsProducer | null };
    Message: new (topic: string, tags: string, body: Buffer) => unknown;
  };
  const silent = { info() {}, warn() {}, error() {}, debug() {} };
  const producer = new ons.Producer({
    httpclient: {
      request(): never {
        throw new Error('ali-ons must not use HTTP here');
      },
    },
    accessKeyId: 'bench',
    accessKeySecret: 'bench',
    producerGroup: 'BENCH_ALI_ONS',
    nameSrv: namesrvAddr,
    logger: silent,
    // Its scheduled tasks sleep on ref'd timers for a whole interval after close().
    pollNameServerInteval: 1000,
    heartbeatBrokerInterval: 1000,
    rebalanceInterval: 1000,
    persistConsumerOffsetInterval: 1000,
  });
  await producer.ready();
  return {
    send: (body) => producer.send(new ons.Message(values.topic, 'bench', body)),
    close: async () => {
      await producer.close();
      // ali-ons keeps a process-wide inner producer (and its client's timers) otherwise.
      await ons.Producer.defaultProducer?.close();
      ons.Producer.defaultProducer = null;
    },
  };
}

async function startOurs(
  namesrvAddr: string,
): Promise<{ send: SendFn; close: () => Promise<void>; producer: Producer }> {
  const producer = new Producer({
    namesrvAddr,
    producerGroup: 'BENCH_ROCKETMQ_TS',
    serializeType: values.serialize === 'ROCKETMQ' ? 'ROCKETMQ' : 'JSON',
  });
  await producer.start();
  return {
    producer,
    send: (body) => producer.send({ topic: values.topic, body, tags: 'bench' }),
    close: () => producer.shutdown(),
  };
}

async function soak(namesrvAddr: string, total: number): Promise<void> {
  const ours = await startOurs(namesrvAddr);
  const body = randomBytes(128);
  const sampleEvery = Math.max(1000, Math.floor(total / 20));
  let sent = 0;
  let done = 0;
  let failed = 0;
  const samples: { sent: number; rssMiB: number; heapMiB: number }[] = [];
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (sent < total) {
      sent++;
      try {
        await ours.send(body);
      } catch {
        failed++;
      }
      done++;
      if (done % sampleEvery === 0) {
        const m = process.memoryUsage();
        const s = { sent: done, rssMiB: m.rss / 1048576, heapMiB: m.heapUsed / 1048576 };
        samples.push(s);
        console.log(
          `sent ${String(s.sent).padStart(9)}  rss ${s.rssMiB.toFixed(1)} MiB  heapUsed ${s.heapMiB.toFixed(1)} MiB`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const secs = (performance.now() - started) / 1000;
  const warm = samples.slice(Math.floor(samples.length / 4));
  const first = warm[0];
  const last = warm[warm.length - 1];
  const maxRss = Math.max(...warm.map((s) => s.rssMiB));
  console.log(
    `\n${total} sends (${failed} failed) in ${secs.toFixed(1)} s = ${Math.round(total / secs)} msgs/s at 64 concurrent`,
  );
  if (first && last) {
    console.log(
      `RSS after warm-up: ${first.rssMiB.toFixed(1)} MiB at ${first.sent}, ${last.rssMiB.toFixed(1)} MiB at the end, max ${maxRss.toFixed(1)} MiB`,
    );
  }
  await ours.close();
}

async function main(): Promise<void> {
  if (positionals[0] === 'cluster') return serveCluster();
  let child: ChildProcess | undefined;
  let namesrvAddr = values.namesrv;
  if (namesrvAddr === undefined) {
    child = fork(fileURLToPath(import.meta.url), ['cluster', '--topic', values.topic], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    clusterChild = child;
    const [msg] = (await once(child, 'message')) as [{ namesrvAddr: string }];
    namesrvAddr = msg.namesrvAddr;
    console.log(`embedded cluster (2 brokers) in child process ${child.pid}, NameServer ${namesrvAddr}`);
  }
  try {
    if (values.soak !== undefined) {
      await soak(namesrvAddr, Number(values.soak));
      return;
    }
    const seconds = Number(values.seconds);
    const warmup = Number(values.warmup);
    const concurrencies = (values.concurrency ?? '1,16,64').split(',').map(Number);
    const sizes = (values.sizes ?? '128,4096').split(',').map(Number);
    const ours = values.only === 'ali-ons' ? undefined : await startOurs(namesrvAddr);
    const ali = values.only === 'ours' ? undefined : await startAliOns(namesrvAddr);
    // Warm both route caches and connections.
    if (ours) await ours.send(randomBytes(16));
    if (ali) await ali.send(randomBytes(16));
    console.log(`\n${seconds} s per cell after ${warmup} s warm-up; bodies are random bytes\n`);
    console.log(
      'size    conc | rocketmq-ts msgs/s   p50 ms   p99 ms cpu µs/msg brk µs/msg |     ali-ons msgs/s   p50 ms   p99 ms cpu µs/msg brk µs/msg | msgs/s ratio  cpu ratio',
    );
    for (const size of sizes) {
      const body = randomBytes(size);
      for (const c of concurrencies) {
        const a = ours ? await measure(ours.send, body, c, seconds, warmup) : undefined;
        const b = ali ? await measure(ali.send, body, c, seconds, warmup) : undefined;
        const ratio = a && b && b.msgsPerSec > 0 ? (a.msgsPerSec / b.msgsPerSec).toFixed(2) + 'x' : '-';
        const cpuRatio = a && b && a.cpuUsPerMsg > 0 ? (b.cpuUsPerMsg / a.cpuUsPerMsg).toFixed(2) + 'x' : '-';
        const fmt = (x: Cell | undefined): string =>
          x === undefined
            ? '                 -        -        -          -          -'
            : `${Math.round(x.msgsPerSec).toString().padStart(18)} ${formatMs(x.p50).padStart(8)} ${formatMs(x.p99).padStart(8)} ${x.cpuUsPerMsg.toFixed(0).padStart(10)} ${x.brokerCpuUsPerMsg.toFixed(0).padStart(10)}${x.failed ? ` (${x.failed} failed)` : ''}`;
        console.log(
          `${String(size).padEnd(7)} ${String(c).padStart(4)} | ${fmt(a)} | ${fmt(b)} | ${ratio.padStart(12)} ${cpuRatio.padStart(10)}`,
        );
      }
    }
    if (ours) await ours.close();
    if (ali) await ali.close();
  } finally {
    if (child) {
      child.send({ stop: true });
      await once(child, 'exit');
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
