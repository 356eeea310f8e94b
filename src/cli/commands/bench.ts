import { RocketMQError } from '../../errors.js';
import type { ClientConnectionOptions } from '../../client/connection-options.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { Producer } from '../../producer/producer.js';
import type { Message } from '../../producer/message.js';
import { EmbeddedCluster } from '../../server/cluster.js';
import type { CliCommand } from '../command.js';
import { checkNameServer } from '../namesrv-check.js';
import { parseDuration, parseFlags, parseNamesrv, parsePositiveInt } from '../flags.js';
import { formatMs, LatencyHistogram } from '../stats.js';

const HELP = `Usage: rocketmq-ts bench [options]

Producer benchmark (like RocketMQ's benchmark/producer.sh): N concurrent senders, each sending the
next message as soon as the previous one is acknowledged, for a fixed time. Against --namesrv, or
an embedded 2-broker cluster when none is given. Prints a progress line every second and a
summary; MB/s counts body bytes (1 MB = 10^6 bytes).

Options:
${CLIENT_SECURITY_HELP}
  --namesrv <host:port> NameServer of a running cluster (default: start an embedded one)
  --topic <name>        topic (default BenchmarkTest; created on the embedded cluster)
  --concurrency <n>     concurrent senders (default 64)
  --size <bytes>        body size (default 128)
  --duration <time>     how long: 10, 10s, 500ms, 1m (default 10s)
  --batch <n>           send batches of n messages (sendBatch) instead of single messages (default 1)
  --compress            compress bodies (compressMsgBodyOverHowmuch = 1; batches are not compressed)
  --oneway              sendOneway: no acknowledgement, latency = time to write
  --json                print one JSON line {sent, errors, msgsPerSec, mbPerSec, p50Ms, p99Ms,
                        concurrency, size} on stdout; progress goes to stderr
  -h, --help            this help`;

export interface BenchFlags {
  namesrv: string | undefined;
  topic: string;
  concurrency: number;
  size: number;
  durationMs: number;
  batch: number;
  compress: boolean;
  oneway: boolean;
  json: boolean;
  /** `credentials` / `tls` from the flags and environment. */
  security: ClientConnectionOptions;
}

const BENCH_FLAGS = {
  namesrv: { type: 'string' },
  topic: { type: 'string', default: 'BenchmarkTest' },
  concurrency: { type: 'string', default: '64' },
  size: { type: 'string', default: '128' },
  duration: { type: 'string', default: '10s' },
  batch: { type: 'string', default: '1' },
  compress: { type: 'boolean', default: false },
  oneway: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export function parseBenchFlags(argv: string[]): BenchFlags {
  const values = parseFlags(argv, BENCH_FLAGS);
  return {
    namesrv: values.namesrv === undefined ? undefined : parseNamesrv('--namesrv', values.namesrv),
    security: clientSecurity(values),
    topic: values.topic,
    concurrency: parsePositiveInt('--concurrency', values.concurrency, 10_000),
    size: parsePositiveInt('--size', values.size, 4 * 1024 * 1024),
    durationMs: parseDuration('--duration', values.duration),
    batch: parsePositiveInt('--batch', values.batch, 10_000),
    compress: values.compress,
    oneway: values.oneway,
    json: values.json,
  };
}

export interface BenchResult {
  sent: number;
  errors: number;
  msgsPerSec: number;
  mbPerSec: number;
  p50Ms: number;
  p99Ms: number;
  concurrency: number;
  size: number;
}

/** A compressible but not trivial body: rocketmq-ts bench text repeated to `size` bytes. */
function makeBody(size: number): Buffer {
  const pattern = Buffer.from('rocketmq-ts bench payload 0123456789 abcdefghijklmnopqrstuvwxyz\n');
  const body = Buffer.alloc(size);
  for (let i = 0; i < size; i += pattern.length) pattern.copy(body, i, 0, Math.min(pattern.length, size - i));
  return body;
}

export async function runBench(flags: BenchFlags, log: (line: string) => void): Promise<BenchResult> {
  let cluster: EmbeddedCluster | undefined;
  let producer: Producer | undefined;
  try {
    let namesrvAddr = flags.namesrv;
    if (!namesrvAddr) {
      cluster = await EmbeddedCluster.start({ brokers: 2 });
      await cluster.createTopic(flags.topic, 8);
      namesrvAddr = cluster.namesrvAddr;
      log(`embedded cluster: NameServer ${namesrvAddr}, ${cluster.brokers.map((b) => b.name).join(', ')}`);
    } else {
      // a wrong --namesrv would otherwise run the whole --duration counting ERR_NAMESRV_UNREACHABLE
      await checkNameServer(namesrvAddr, flags.security);
    }
    producer = new Producer({
      producerGroup: 'rocketmq-ts-bench',
      namesrvAddr,
      ...flags.security,
      ...(flags.compress ? { compressMsgBodyOverHowmuch: 1 } : {}),
    });
    await producer.start();
    const body = makeBody(flags.size);
    const message: Message = { topic: flags.topic, body, tags: 'bench' };
    const batch: Message[] = Array.from({ length: flags.batch }, () => message);
    const send = async (): Promise<void> => {
      if (flags.oneway) await producer!.sendOneway(message);
      else if (flags.batch > 1) await producer!.sendBatch(batch);
      else await producer!.send(message);
    };
    const perCall = flags.oneway ? 1 : flags.batch;
    // one warm-up send so route lookup and connecting are not measured
    await send().catch(() => {});

    const overall = new LatencyHistogram();
    const interval = new LatencyHistogram();
    let sent = 0;
    let errors = 0;
    let intervalSent = 0;
    const errorKinds = new Map<string, number>();
    const t0 = performance.now();
    const deadline = t0 + flags.durationMs;
    let lastTick = t0;
    const ticker = setInterval(() => {
      const now = performance.now();
      const secs = (now - lastTick) / 1000;
      lastTick = now;
      log(
        `[${((now - t0) / 1000).toFixed(0).padStart(3)}s] ${(intervalSent / secs).toFixed(0).padStart(7)} msgs/s ` +
          `${((intervalSent * flags.size) / secs / 1e6).toFixed(2).padStart(7)} MB/s  ` +
          `p50 ${formatMs(interval.percentile(50))} ms  p99 ${formatMs(interval.percentile(99))} ms  errors ${errors}`,
      );
      intervalSent = 0;
      interval.reset();
    }, 1000);
    const worker = async (): Promise<void> => {
      while (performance.now() < deadline) {
        const start = performance.now();
        try {
          await send();
          const ms = performance.now() - start;
          overall.record(ms);
          interval.record(ms);
          sent += perCall;
          intervalSent += perCall;
        } catch (err) {
          errors += 1;
          const key = err instanceof RocketMQError ? err.code : 'other';
          errorKinds.set(key, (errorKinds.get(key) ?? 0) + 1);
          // a failing cluster must not turn the bench into a busy loop
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: flags.concurrency }, worker));
    } finally {
      clearInterval(ticker);
    }
    const elapsedSec = (performance.now() - t0) / 1000;
    if (errorKinds.size > 0) log(`errors: ${[...errorKinds].map(([k, n]) => `${k} × ${n}`).join(', ')}`);
    return {
      sent,
      errors,
      msgsPerSec: Math.round(sent / elapsedSec),
      mbPerSec: Math.round(((sent * flags.size) / elapsedSec / 1e6) * 100) / 100,
      p50Ms: Math.round(overall.percentile(50) * 1000) / 1000,
      p99Ms: Math.round(overall.percentile(99) * 1000) / 1000,
      concurrency: flags.concurrency,
      size: flags.size,
    };
  } finally {
    if (producer) await producer.shutdown().catch(() => {});
    if (cluster) await cluster.stop().catch(() => {});
  }
}

export const benchCommand: CliCommand = {
  path: ['bench'],
  summary: 'Producer benchmark (msgs/s, MB/s, p50/p99) against --namesrv or an embedded cluster',
  help: HELP,
  flags: BENCH_FLAGS,
  async run(argv) {
    const flags = parseBenchFlags(argv);
    const out = flags.json ? process.stderr : process.stdout;
    const log = (line: string): void => {
      out.write(`${line}\n`);
    };
    const mode = flags.oneway ? 'oneway' : flags.batch > 1 ? `batches of ${flags.batch}` : 'sync';
    log(
      `bench: ${flags.concurrency} senders, ${flags.size} B bodies, ${mode}${flags.compress ? ', compressed' : ''}, ${flags.durationMs / 1000} s`,
    );
    const result = await runBench(flags, log);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      log(
        `\nsent ${result.sent} messages, ${result.errors} errors: ${result.msgsPerSec} msgs/s, ${result.mbPerSec} MB/s, ` +
          `p50 ${formatMs(result.p50Ms)} ms, p99 ${formatMs(result.p99Ms)} ms`,
      );
    }
    return result.sent > 0 ? 0 : 1;
  },
};
