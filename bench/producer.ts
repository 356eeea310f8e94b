/**
 * Producer benchmark: rocketmq-ts `Producer` vs the ali-ons producer, side by side against the
 * same cluster, at 1 / 16 / 64 concurrent sends and 128 B / 4 KiB bodies (random bytes, so
 * compression cannot flatter either client). By default the cluster is an EmbeddedCluster in a
 * child process; `--namesrv` points both clients at a running one (the topic must exist or be
 * auto-creatable there); `--real 4.9.7|5.5.0` starts a real Apache RocketMQ cluster (two
 * brokers, loopback, interop-test/real-cluster.ts; jars via `npm run interop:prepare`), creates
 * the topic on both brokers and stops the cluster at the end.
 *
 *   node build/bench/producer.js [--seconds 3] [--namesrv 127.0.0.1:9876] [--topic BenchProducer]
 *   node build/bench/producer.js --real 4.9.7 --sizes 128 --serialize JSON,ROCKETMQ
 *   node build/bench/producer.js --soak 1000000        # RSS of our producer over 1M sends at 64 concurrent
 *   node build/bench/producer.js --serialize ROCKETMQ  # our producer with binary request headers
 *   node build/bench/producer.js --otel                # OpenTelemetry cost: off / API without SDK / SDK on
 *
 * "cpu µs/msg" is this process's CPU per send (the client's own cost; the brokers run in other
 * processes), the fairest figure on a shared machine; "brk µs/msg" is the cluster's CPU per send
 * in the same cell (embedded: the child with both brokers and the NameServer; real: both broker
 * JVMs); "cpu ratio" = ali-ons / ours. With several `--serialize` types ours runs once per type,
 * each row against the same ali-ons cell. `--otel` runs ours only (default 64 concurrent, 128 B):
 * `openTelemetry: false`, the API with no SDK registered, and the SDK on (bench/otel-sdk.ts),
 * interleaved over `--rounds`. Prints figures; asserts nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { formatMs } from '../src/cli/stats.js';
import { measureCell, type Cell, type SendFn } from './measure.js';
import { Producer } from '../src/producer/producer.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { startRealBench, type RealBench } from './real-producer-cluster.js';
import { forkClusterChild } from './cluster-child.js';

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
    /** Our producer's serializeType(s), comma-separated: JSON (default) and/or ROCKETMQ. */
    serialize: { type: 'string', default: 'JSON' },
    /** Start a real Apache RocketMQ cluster of this version (4.9.7 or 5.5.0) for the run. */
    real: { type: 'string' },
    /** Seconds every client sends at 64 concurrent before the first cell (a JVM broker needs its JIT warm). */
    'warm-seconds': { type: 'string' },
    /**
     * Another build's producer module (e.g. /tmp/base/build/src/producer/producer.js), run as
     * an extra "base" row against the same cluster: before/after of a change in one run.
     */
    baseline: { type: 'string' },
    /** OpenTelemetry's cost: baseline vs API without SDK vs SDK on (traces and metrics). */
    otel: { type: 'boolean', default: false },
    /** `--otel` rounds (each measures every mode once). */
    rounds: { type: 'string', default: '3' },
  },
});

/** The embedded cluster's child process, when there is one: asked for its CPU use per cell. */
let clusterChild: ChildProcess | undefined;
/** The real cluster, when `--real` started one: its brokers' CPU per cell. */
let realBench: RealBench | undefined;

function markClusterCpu(): void {
  clusterChild?.send({ mark: true });
  realBench?.markCpu();
}

async function clusterCpuUs(): Promise<number> {
  if (realBench !== undefined) return realBench.cpuUsSinceMark();
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
  let eluMark = performance.eventLoopUtilization();
  process.on('message', (m: { stop?: boolean; mark?: boolean; report?: boolean }) => {
    if (m.mark) {
      cpuMark = process.cpuUsage();
      eluMark = performance.eventLoopUtilization();
    }
    if (m.report) {
      const used = process.cpuUsage(cpuMark);
      const elu = performance.eventLoopUtilization(eluMark).utilization;
      process.send?.({ cpuUs: used.user + used.system, elu });
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
  serializeType: 'JSON' | 'ROCKETMQ' = 'JSON',
  ProducerClass: typeof Producer = Producer,
  otel?: { label: string; openTelemetry: boolean },
): Promise<{ send: SendFn; close: () => Promise<void>; producer: Producer }> {
  const tag = `${ProducerClass === Producer ? '' : 'BASE_'}${serializeType}${otel === undefined ? '' : `_${otel.label}`}`;
  const producer = new ProducerClass({
    namesrvAddr,
    producerGroup: `BENCH_ROCKETMQ_TS_${tag}`,
    instanceName: `bench_${tag}`,
    serializeType,
    ...(otel === undefined ? {} : { openTelemetry: otel.openTelemetry }),
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

/**
 * `--otel`: our producer's client CPU per message with OpenTelemetry off, with the API but no
 * SDK, and with the SDK tracing and metering, in one run, interleaved over `--rounds` rounds
 * (a shared machine drifts; medians of the rounds are printed). A producer takes its
 * instruments when it starts and its tracer from the global provider then in place, so each
 * round starts the no-SDK producer with nothing registered and the SDK-on one after
 * registering the SDK, and unregisters it at the end of the round.
 */
async function otelBench(namesrvAddr: string): Promise<void> {
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup);
  const rounds = Number(values.rounds);
  const concurrencies = (values.concurrency ?? '64').split(',').map(Number);
  const sizes = (values.sizes ?? '128').split(',').map(Number);
  const { installBenchOtelSdk } = await import('./otel-sdk.js');
  const modes = ['off', 'API, no SDK', 'SDK on'] as const;
  type Mode = (typeof modes)[number];
  const cells = new Map<string, Cell[]>();
  const key = (mode: Mode, size: number, c: number): string => `${mode}|${size}|${c}`;
  const measureAll = async (mode: Mode, send: SendFn): Promise<void> => {
    for (const size of sizes) {
      const body = randomBytes(size);
      for (const c of concurrencies) {
        const list = cells.get(key(mode, size, c)) ?? [];
        list.push(await measure(send, body, c, seconds, warmup));
        cells.set(key(mode, size, c), list);
      }
    }
  };
  const off = await startOurs(namesrvAddr, 'JSON', Producer, { label: 'OTEL_OFF', openTelemetry: false });
  await off.send(randomBytes(16));
  for (let round = 0; round < rounds; round++) {
    const label = `R${round}`;
    const noSdk = await startOurs(namesrvAddr, 'JSON', Producer, {
      label: `NO_SDK_${label}`,
      openTelemetry: true,
    });
    await noSdk.send(randomBytes(16));
    await measureAll('off', off.send);
    await measureAll('API, no SDK', noSdk.send);
    await noSdk.close();
    const sdk = await installBenchOtelSdk();
    const on = await startOurs(namesrvAddr, 'JSON', Producer, { label: `SDK_${label}`, openTelemetry: true });
    await on.send(randomBytes(16));
    await measureAll('SDK on', on.send);
    await on.close();
    await sdk.uninstall();
  }
  await off.close();
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  };
  console.log(
    `\n${rounds} rounds of ${seconds} s cells after ${warmup} s warm-up; medians over the rounds; "added" = median of each round's (mode − off) client CPU\n`,
  );
  console.log(
    'mode         size    conc |   msgs/s cpu µs/msg brk µs/msg | per-round cpu µs/msg       | added µs/msg',
  );
  for (const size of sizes) {
    for (const c of concurrencies) {
      const offCells = cells.get(key('off', size, c)) ?? [];
      for (const mode of modes) {
        const list = cells.get(key(mode, size, c)) ?? [];
        const added =
          mode === 'off'
            ? '-'
            : median(list.map((x, i) => x.cpuUsPerMsg - (offCells[i]?.cpuUsPerMsg ?? NaN))).toFixed(2);
        console.log(
          `${mode.padEnd(12)} ${String(size).padEnd(7)} ${String(c).padStart(4)} | ${String(Math.round(median(list.map((x) => x.msgsPerSec)))).padStart(8)} ${median(
            list.map((x) => x.cpuUsPerMsg),
          )
            .toFixed(1)
            .padStart(10)} ${median(list.map((x) => x.brokerCpuUsPerMsg))
            .toFixed(0)
            .padStart(10)} | ${list
            .map((x) => x.cpuUsPerMsg.toFixed(1))
            .join(' ')
            .padEnd(26)} | ${added.padStart(12)}`,
        );
      }
    }
  }
}

function serializeTypes(): Array<'JSON' | 'ROCKETMQ'> {
  return values.serialize.split(',').map((t) => {
    if (t !== 'JSON' && t !== 'ROCKETMQ') throw new Error(`--serialize: JSON or ROCKETMQ, got ${t}`);
    return t;
  });
}

async function main(): Promise<void> {
  if (positionals[0] === 'cluster') return serveCluster();
  let child: ChildProcess | undefined;
  let namesrvAddr = values.namesrv;
  if (values.real !== undefined) {
    realBench = await startRealBench(values.real, values.topic, 8);
    namesrvAddr = realBench.namesrvAddr;
    console.log(`real Apache RocketMQ ${values.real} (2 brokers), NameServer ${namesrvAddr}`);
  } else if (namesrvAddr === undefined) {
    child = forkClusterChild(values.topic);
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
    if (values.otel) {
      await otelBench(namesrvAddr);
      return;
    }
    const seconds = Number(values.seconds);
    const warmup = Number(values.warmup);
    const concurrencies = (values.concurrency ?? '1,16,64').split(',').map(Number);
    const sizes = (values.sizes ?? '128,4096').split(',').map(Number);
    const types = serializeTypes();
    const ours: Array<{ type: string; send: SendFn; close: () => Promise<void> }> = [];
    if (values.only !== 'ali-ons') {
      const Base =
        values.baseline === undefined
          ? undefined
          : ((await import(values.baseline)) as { Producer: typeof Producer }).Producer;
      for (const t of types) {
        ours.push({ type: t, ...(await startOurs(namesrvAddr, t)) });
        if (Base) ours.push({ type: `base ${t[0] ?? ''}`, ...(await startOurs(namesrvAddr, t, Base)) });
      }
    }
    const ali = values.only === 'ours' ? undefined : await startAliOns(namesrvAddr);
    // Warm both route caches and connections.
    for (const o of ours) await o.send(randomBytes(16));
    if (ali) await ali.send(randomBytes(16));
    const warmSeconds = Number(values['warm-seconds'] ?? (values.real === undefined ? 0 : 5));
    if (warmSeconds > 0) {
      const clients = [...ours.map((o) => o.send), ...(ali ? [ali.send] : [])];
      for (const send of clients) await measure(send, randomBytes(128), 64, warmSeconds / clients.length, 0);
    }
    console.log(`\n${seconds} s per cell after ${warmup} s warm-up; bodies are random bytes\n`);
    console.log(
      'size    conc ser      | rocketmq-ts msgs/s   p50 ms   p99 ms cpu µs/msg brk µs/msg |     ali-ons msgs/s   p50 ms   p99 ms cpu µs/msg brk µs/msg | msgs/s ratio  cpu ratio',
    );
    for (const size of sizes) {
      const body = randomBytes(size);
      for (const c of concurrencies) {
        const cells: Array<{ type: string; cell: Cell | undefined }> = [];
        for (const o of ours)
          cells.push({ type: o.type, cell: await measure(o.send, body, c, seconds, warmup) });
        if (cells.length === 0) cells.push({ type: '-', cell: undefined });
        const b = ali ? await measure(ali.send, body, c, seconds, warmup) : undefined;
        for (const { type, cell: a } of cells) {
          const ratio = a && b && b.msgsPerSec > 0 ? (a.msgsPerSec / b.msgsPerSec).toFixed(2) + 'x' : '-';
          const cpuRatio =
            a && b && a.cpuUsPerMsg > 0 ? (b.cpuUsPerMsg / a.cpuUsPerMsg).toFixed(2) + 'x' : '-';
          console.log(
            `${String(size).padEnd(7)} ${String(c).padStart(4)} ${type.padEnd(8)} | ${formatCell(a)} | ${formatCell(b)} | ${ratio.padStart(12)} ${cpuRatio.padStart(10)}`,
          );
        }
      }
    }
    for (const o of ours) await o.close();
    if (ali) await ali.close();
  } finally {
    if (child) {
      child.send({ stop: true });
      await once(child, 'exit');
    }
    await realBench?.stop();
  }
}

function formatCell(x: Cell | undefined): string {
  return x === undefined
    ? '                 -        -        -          -          -'
    : `${Math.round(x.msgsPerSec).toString().padStart(18)} ${formatMs(x.p50).padStart(8)} ${formatMs(x.p99).padStart(8)} ${x.cpuUsPerMsg.toFixed(1).padStart(10)} ${x.brokerCpuUsPerMsg.toFixed(0).padStart(10)}${x.failed ? ` (${x.failed} failed)` : ''}`;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
