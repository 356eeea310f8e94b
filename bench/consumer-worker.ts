/**
 * One consumer client of the consumer benchmark (`bench/consumer.ts`), alone in its own process
 * so that its CPU time is its own: `process.cpuUsage()` is read around the measured part only.
 * Prints one JSON line on stdout; `{"ready":true}` first in the modes that wait for a producer.
 *
 *   node build/bench/consumer-worker.js --client ours|ali-ons --mode drain|latency|rss
 *     --namesrv A --topic T --group G [--expect N] [--seconds S] [--skip K] [--otel off|nosdk|sdk]
 *
 * - drain: a new group consumes `expect` messages from the first offset; msgs/s first→last
 *   message and CPU µs per message from before start() to the last message.
 * - latency: consumes `expect` messages produced at a steady rate by the parent; born → handler
 *   (ms resolution of bornTimestamp) and sent → handler (property `sentAt`, sub-ms epoch) p50/p99.
 * - rss: the handler sleeps 100 ms per message for `seconds`; peak RSS and messages held.
 * - `--otel` (ours): `off` sets `openTelemetry: false`; `nosdk` leaves the API installed with no
 *   SDK; `sdk` registers the OpenTelemetry SDK first (bench/consumer-otel.ts).
 */
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { LatencyHistogram } from '../src/cli/stats.js';

const require = createRequire(import.meta.url);

const { values } = parseArgs({
  options: {
    client: { type: 'string', default: 'ours' },
    mode: { type: 'string', default: 'drain' },
    namesrv: { type: 'string' },
    topic: { type: 'string' },
    group: { type: 'string' },
    expect: { type: 'string', default: '0' },
    seconds: { type: 'string', default: '15' },
    skip: { type: 'string', default: '500' },
    threads: { type: 'string', default: '20' },
    otel: { type: 'string' },
  },
});

/** What the benchmark sees of a message, whichever client delivered it. */
interface Delivered {
  body: Buffer;
  bornTimestamp: number;
  /** When the broker stored it (ms): store → handler is the pull path alone. */
  storeTimestamp: number;
  /** Read only by the latency mode: a drain handler reads the body alone, whichever client. */
  sentAt(): string | undefined;
}

interface Client {
  start(handler: (m: Delivered) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const namesrv = required('namesrv');
const topic = required('topic');
const group = required('group');
const expect = Number(values.expect);
const threads = Number(values.threads);

function required(name: 'namesrv' | 'topic' | 'group'): string {
  const v = values[name];
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

async function ours(): Promise<Client> {
  // Loaded on demand, like ali-ons: a worker only loads the client it measures.
  const { PushConsumer } = await import('../src/consumer/index.js');
  const otel = values.otel;
  if (otel !== undefined && otel !== 'off' && otel !== 'nosdk' && otel !== 'sdk')
    throw new Error(`--otel: off, nosdk or sdk, not ${otel}`);
  const stopSdk = otel === 'sdk' ? (await import('./consumer-otel.js')).registerOtelSdk() : undefined;
  const consumer = new PushConsumer({
    ...(otel === undefined ? {} : { openTelemetry: otel !== 'off' }),
    namesrvAddr: namesrv,
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    consumeThreadMax: threads,
    instanceName: `bench-${process.pid}`,
  });
  consumer.subscribe(topic, '*');
  return {
    start: (handler) =>
      consumer.start((m) =>
        handler({
          body: m.body,
          bornTimestamp: m.bornTimestamp,
          storeTimestamp: m.storeTimestamp,
          sentAt: () => m.properties['sentAt'],
        }),
      ),
    stop: async () => {
      await consumer.shutdown();
      await stopSdk?.();
    },
  };
}

interface OnsMessage {
  body: Buffer;
  bornTimestamp: number;
  /** When the broker stored it (ms): store → handler is the pull path alone. */
  storeTimestamp: number;
  properties: Record<string, string>;
}
interface OnsConsumer {
  ready(): Promise<void>;
  subscribe(topic: string, expr: string, handler: (msg: OnsMessage) => Promise<void>): void;
  close(): Promise<void>;
  on(event: 'error', l: (err: Error) => void): void;
}

function aliOns(): Client {
  const ons = require('ali-ons') as { Consumer: new (o: object) => OnsConsumer };
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  const consumer = new ons.Consumer({
    nameSrv: namesrv,
    // ali-ons looks the NameServer up over HTTP unless nameSrv is given; it must never do so here.
    httpclient: { request: () => Promise.reject(new Error('no HTTP in benchmarks')) },
    instanceName: `bench-ons-${process.pid}`,
    accessKey: 'bench',
    secretKey: 'bench',
    logger: quiet,
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    // Its best setting: 20 handlers in flight per queue (default 1).
    parallelConsumeLimit: threads,
  });
  consumer.on('error', () => undefined);
  return {
    async start(handler) {
      // ali-ons insists on an async function (it checks the constructor), not any Promise-returning one.
      consumer.subscribe(topic, '*', async (msg) => {
        await handler({
          body: msg.body,
          bornTimestamp: msg.bornTimestamp,
          storeTimestamp: msg.storeTimestamp,
          sentAt: () => msg.properties['sentAt'],
        });
      });
      await consumer.ready();
    },
    stop: () => consumer.close(),
  };
}

function emit(result: object): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function drain(client: Client): Promise<object> {
  let n = 0;
  let bytes = 0;
  let first = 0;
  let last = 0;
  let cpu: NodeJS.CpuUsage | undefined;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await client.start(async (m) => {
    if (n === 0) first = performance.now();
    bytes += m.body.length;
    if (++n === expect) {
      last = performance.now();
      cpu = process.cpuUsage(cpu0);
      done();
    }
  });
  const timeout = setTimeout(done, 300_000);
  await finished;
  clearTimeout(timeout);
  const end = last > 0 ? last : performance.now();
  cpu ??= process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  await client.stop();
  const seconds = (end - first) / 1000;
  return {
    received: n,
    bytes,
    complete: n >= expect,
    firstToLastMs: Math.round(end - first),
    msgsPerSec: seconds > 0 ? Math.round(n / seconds) : 0,
    cpuMs: Math.round(cpuMs),
    wallMs: Math.round(end - t0),
    cpuUsPerMsg: n > 0 ? (cpuMs * 1000) / n : 0,
  };
}

async function latency(client: Client): Promise<object> {
  const skip = Number(values.skip);
  const born = new LatencyHistogram();
  const sent = new LatencyHistogram();
  const stored = new LatencyHistogram();
  // Where a tail comes from: this process stalling (event loop delay, GC) or upstream.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  const gc = { count: 0, totalMs: 0, maxMs: 0 };
  let cpu0: NodeJS.CpuUsage | undefined;
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  });
  let n = 0;
  // The parent writes how many messages it sent, once it is done sending, on stdin.
  let target = Infinity;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  await client.start(async (m) => {
    const now = performance.timeOrigin + performance.now();
    // The first messages pay for JIT warm-up and connection set-up; steady state is what counts.
    if (n++ >= skip) {
      if (n === skip + 1) {
        cpu0 = process.cpuUsage();
        loopDelay.enable();
        gcObserver.observe({ entryTypes: ['gc'] });
      }
      born.record(now - m.bornTimestamp);
      stored.record(now - m.storeTimestamp);
      const sentAt = m.sentAt();
      if (sentAt !== undefined) sent.record(now - Number(sentAt));
    }
    if (n >= target) done();
  });
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (line: string) => {
    target = Number(line.trim());
    if (n >= target) done();
  });
  // The parent starts producing on this line; give the first rebalance time to assign queues.
  await new Promise((r) => setTimeout(r, 1500));
  emit({ ready: true });
  const timeout = setTimeout(done, Number(values.seconds) * 1000 + 30_000);
  await finished;
  clearTimeout(timeout);
  loopDelay.disable();
  gcObserver.disconnect();
  const cpu = process.cpuUsage(cpu0);
  const measured = Math.max(1, n - skip);
  await client.stop();
  return {
    received: n,
    cpuUsPerMsg: (cpu.user + cpu.system) / measured,
    storeP50Ms: stored.percentile(50),
    storeP99Ms: stored.percentile(99),
    storeMaxMs: stored.max,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
    gcCount: gc.count,
    gcTotalMs: gc.totalMs,
    gcMaxMs: gc.maxMs,
    bornP50Ms: born.percentile(50),
    bornP99Ms: born.percentile(99),
    sentP50Ms: sent.percentile(50),
    sentP99Ms: sent.percentile(99),
    sentMaxMs: sent.max,
  };
}

async function rss(client: Client): Promise<object> {
  let started = 0;
  let finishedCount = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 250);
  await client.start(async () => {
    started++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 100));
    inFlight--;
    finishedCount++;
  });
  await new Promise((r) => setTimeout(r, Number(values.seconds) * 1000));
  clearInterval(sampler);
  const heap = process.memoryUsage();
  await client.stop();
  return {
    handled: finishedCount,
    started,
    maxInFlight,
    rssStartMiB: rss0 / 1048576,
    rssPeakMiB: peak / 1048576,
    heapUsedMiB: heap.heapUsed / 1048576,
    externalMiB: (heap.external + heap.arrayBuffers) / 1048576,
  };
}

async function main(): Promise<void> {
  const client = values.client === 'ali-ons' ? aliOns() : await ours();
  const mode = values.mode;
  const result =
    mode === 'latency' ? await latency(client) : mode === 'rss' ? await rss(client) : await drain(client);
  const otel = values.otel === 'sdk' ? { otelExported: (await import('./consumer-otel.js')).exported } : {};
  emit({ client: values.client, mode, ...result, ...otel });
  // ali-ons keeps timers (and a process-wide inner producer) alive after close().
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
