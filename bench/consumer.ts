/**
 * Consumer benchmark, side by side in one run against one cluster (the embedded one in a child
 * process by default, a real one with `--namesrv`):
 *
 *   npm run bench:consumer [-- --size 1024 --count 200000 --namesrv A --clients ours,ali-ons,java --mode push,pull,pop]
 *     [--baseline DIR]   (DIR: a copy of an earlier build/, measured as client `baseline`)
 *     [--otel]           (three more rows of ours at 64 handlers in flight: `ours-otel-off`, the
 *                         option `openTelemetry: false`; `ours-otel-nosdk`, the API installed and
 *                         no SDK; `ours-otel-sdk`, the SDK registered with tracing and metrics on,
 *                         bench/consumer-otel.ts; ratios printed against `ours-otel-off`)
 *
 * 1. drain: a backlog of `--count` messages of `--size` bytes; each client drains it as a new group
 *    from the first offset, in its own process (bench/consumer-worker.ts; the Java push consumer
 *    through the interop driver, 20 threads, only when `npm run interop:prepare` has built it).
 *    Prints msgs/s from the first to the last message, client CPU µs per message, the embedded
 *    broker process's CPU per message, and our ratios against the others. `--mode push,pull` adds
 *    a row `ours-pull`: our LitePullConsumer draining the same backlog (bench/consumer-pull.ts);
 *    `pop` a row `ours-pop`: our SimpleConsumer receiving and acking it (bench/consumer-pop.ts,
 *    RocketMQ 5 POP, `maxInFlightPops` receivers, one batch ack per receive; the time receivers
 *    waited for their previous ack, per message, is printed under the table); `pop-push` a row
 *    `ours-pop-push`: our PushConsumer with `clientRebalance: false` on the group switched to POP
 *    (bench/consumer-pop-push.ts).
 * 2. latency: our consumer while a producer sends at a steady `--rate` (5,000 msgs/s) for
 *    `--latency-seconds`; born → handler p50/p99.
 * 3. rss: a handler that sleeps 100 ms per message on the backlog for `--rss-seconds`; peak RSS.
 *
 * A first unmeasured drain warms the broker up (`--no-warmup` skips it).
 * Figures, never assertions. `--prof` runs our drain and latency workers, and the embedded
 * cluster, under `node --cpu-prof` (profiles in $TMPDIR/rocketmq-ts-consumer-prof).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PacedSender } from '../src/cli/demo/pacer.js';
import { Admin } from '../src/admin/admin.js';
import { Producer } from '../src/producer/producer.js';
import type { Message } from '../src/producer/message.js';
import { EXACT_BACKLOG } from './consumer-pop.js';
import { processCpuMs } from './process-cpu.js';
import {
  INTEROP_VERSIONS,
  REPO_ROOT,
  drainWithJava,
  drainWithJavaPopPush,
  type DrainResult,
} from '../interop-test/java.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const WORKER = fileURLToPath(new URL('./consumer-worker.js', import.meta.url));
const PULL_WORKER = fileURLToPath(new URL('./consumer-pull.js', import.meta.url));
const POP_WORKER = fileURLToPath(new URL('./consumer-pop.js', import.meta.url));
const POP_PUSH_WORKER = fileURLToPath(new URL('./consumer-pop-push.js', import.meta.url));
const PROF_DIR = join(tmpdir(), 'rocketmq-ts-consumer-prof');
const PROF_ARGS = ['--cpu-prof', '--cpu-prof-dir', PROF_DIR];

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '128' },
    count: { type: 'string', default: '200000' },
    namesrv: { type: 'string' },
    clients: { type: 'string', default: 'ours,ali-ons,java' },
    rate: { type: 'string', default: '5000' },
    'latency-seconds': { type: 'string', default: '10' },
    'rss-seconds': { type: 'string', default: '15' },
    'java-version': { type: 'string', default: INTEROP_VERSIONS[0]?.version ?? '4.9.7' },
    queues: { type: 'string', default: '8' },
    prof: { type: 'boolean', default: false },
    // A flag of its own rather than parseArgs' allowNegative, which Node 20 before 20.16 lacks.
    'no-warmup': { type: 'boolean', default: false },
    skip: { type: 'string', default: '' },
    // A copy of an earlier build/ (e.g. of main): its consumer runs as client `baseline`, so a
    // change is measured before/after in one run on the same backlog and machine load.
    baseline: { type: 'string' },
    /** Consumer kinds in the drain: push (the --clients) and/or pull (our LitePullConsumer). */
    mode: { type: 'string', default: 'push' },
    otel: { type: 'boolean', default: false },
  },
});

const size = Number(values.size);
const count = Number(values.count);
const clients = (values.clients ?? '').split(',').filter((c) => c !== '');
if (values.baseline !== undefined && !clients.includes('baseline')) clients.splice(1, 0, 'baseline');
/** `--otel`: our consumer three more times, OpenTelemetry off / API without SDK / SDK on. */
const OTEL_ROWS = ['ours-otel-off', 'ours-otel-nosdk', 'ours-otel-sdk'];
if (values.otel) for (const row of OTEL_ROWS) if (!clients.includes(row)) clients.push(row);
const skipPhases = new Set((values.skip ?? '').split(','));
const modes = new Set((values.mode ?? 'push').split(','));
for (const m of modes)
  if (m !== 'push' && m !== 'pull' && m !== 'pop' && m !== 'pop-push')
    throw new Error(`--mode: push, pull, pop or pop-push, not ${m}`);
const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;

interface Cluster {
  namesrv: string;
  /** The embedded cluster's process, whose CPU is read around each drain. */
  pid: number | undefined;
  stop(): Promise<void>;
}

async function startEmbedded(): Promise<Cluster> {
  const child = spawn(
    process.execPath,
    [...(values.prof ? PROF_ARGS : []), MAIN, 'cluster', '--brokers', '2', '--namesrv-port', '0', '--json'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await firstLine(child.stdout, child);
  const info = JSON.parse(line) as { namesrv: string };
  return {
    namesrv: info.namesrv,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function firstLine(
  stream: NodeJS.ReadableStream,
  child: { once(e: 'exit', l: () => void): void },
): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    stream.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', () => reject(new Error(`child exited before printing: ${out}`)));
  });
}

async function createTopic(namesrv: string, topic: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [MAIN, 'topic', 'create', '--namesrv', namesrv, '--topic', topic, '--queues', values.queues ?? '8'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`topic create ${topic} failed (exit ${code})`);
}

/** Fills `topic` with `n` messages of `size` bytes, in batches so the fill takes seconds. */
async function fill(producer: Producer, topic: string, n: number): Promise<void> {
  const body = Buffer.alloc(size, 'x');
  const batch = Math.max(1, Math.min(64, Math.floor((512 * 1024) / (size + 100))));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const k = Math.min(batch, n - next);
      next += k;
      const msgs: Message[] = Array.from({ length: k }, () => ({ topic, body }));
      await producer.sendBatch(msgs);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/**
 * Messages stored in `topic` (sum over its queues). Every drain's `received` is judged against
 * `count`, so a backlog of any other size is an error, not a figure.
 */
async function storedMessages(namesrv: string, topic: string): Promise<number> {
  const admin = new Admin({ namesrvAddr: namesrv });
  try {
    const stats = await admin.topicStats(topic);
    return stats.queues.reduce((sum, q) => sum + q.maxOffset - q.minOffset, 0);
  } finally {
    await admin.close();
  }
}

interface WorkerResult {
  client: string;
  [k: string]: unknown;
}

/** Runs one worker; `onReady` is called on its `{"ready":true}` line. */
function runWorker(
  args: string[],
  onReady?: (child: ChildProcessByStdio<Writable, Readable, null>) => void,
  nodeArgs: string[] = [],
): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const baseline = args[1] === 'baseline' && values.baseline !== undefined;
    const worker = baseline ? join(values.baseline ?? '', 'bench', 'consumer-worker.js') : WORKER;
    const otel = /^ours-otel-(\w+)$/.exec(args[1] ?? '')?.[1];
    const workerArgs = baseline
      ? ['--client', 'ours', ...args.slice(2)]
      : otel !== undefined
        ? ['--client', 'ours', '--otel', otel, '--threads', '64', ...args.slice(2)]
        : args;
    const child = spawn(process.execPath, [...nodeArgs, worker, ...workerArgs], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    let result: WorkerResult | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const parsed = JSON.parse(line) as WorkerResult & { ready?: boolean };
        if (parsed.ready === true) onReady?.(child);
        else result = parsed;
      }
    });
    child.once('exit', (code) =>
      result !== undefined ? resolve(result) : reject(new Error(`worker ${args.join(' ')} exited ${code}`)),
    );
  });
}

function javaAvailable(version: string): boolean {
  return existsSync(join(REPO_ROOT, 'interop', 'target', version, 'lib', '.complete'));
}

interface DrainRow {
  client: string;
  msgsPerSec: number;
  cpuUsPerMsg: number;
  brokerCpuUsPerMsg: number;
  received: number;
  complete: boolean;
}

async function drainPhase(cluster: Cluster, topic: string): Promise<DrainRow[]> {
  const rows: DrainRow[] = [];
  if (!values['no-warmup']) {
    // The first drain of a fresh backlog warms the broker (JIT, page cache): whichever client came
    // first measured about 0.6x of the same client run second. One unmeasured drain evens that out.
    const args = ['--client', 'ali-ons', '--mode', 'drain', '--namesrv', cluster.namesrv, '--topic', topic];
    await runWorker([...args, '--group', `bench_cg_warmup_${run}`, '--expect', String(count)]);
  }
  for (const client of modes.has('push') ? clients : []) {
    const group = `bench_cg_${client.replace(/\W/g, '')}_${run}`;
    const broker0 = processCpuMs(cluster.pid);
    let r: DrainResult | WorkerResult;
    if (client === 'java') {
      const version = values['java-version'] ?? '4.9.7';
      if (!javaAvailable(version)) {
        console.log(`java: skipped (no interop/target/${version}; run npm run interop:prepare)`);
        continue;
      }
      r = await drainWithJava(version, cluster.namesrv, topic, group, count);
    } else {
      const prof = values.prof && client === 'ours' ? PROF_ARGS : [];
      const args = ['--client', client, '--mode', 'drain', '--namesrv', cluster.namesrv, '--topic', topic];
      r = await runWorker([...args, '--group', group, '--expect', String(count)], undefined, prof);
    }
    const brokerMs = processCpuMs(cluster.pid) - broker0;
    const received = Number(r['received' as keyof typeof r]);
    rows.push({
      client,
      msgsPerSec: Number(r['msgsPerSec' as keyof typeof r]),
      cpuUsPerMsg: Number(r['cpuUsPerMsg' as keyof typeof r]),
      brokerCpuUsPerMsg: (brokerMs * 1000) / received,
      received,
      complete: Boolean(r['complete' as keyof typeof r]),
    });
  }
  if (modes.has('pull')) rows.push(await workerDrain(cluster, topic, PULL_WORKER, 'ours-pull'));
  if (modes.has('pop')) rows.push(await workerDrain(cluster, topic, POP_WORKER, 'ours-pop'));
  if (modes.has('pop-push')) {
    rows.push(await workerDrain(cluster, topic, POP_PUSH_WORKER, 'ours-pop-push'));
    // Java 5.5.0's POP-mode push consumer on the same backlog: a real cluster only (the embedded
    // broker is ours), and only when the interop harness is built.
    if (values.namesrv !== undefined && clients.includes('java')) {
      if (javaAvailable('5.5.0')) rows.push(await javaPopPushDrain(cluster, topic));
      else console.log('java-pop-push: skipped (no interop/target/5.5.0; run npm run interop:prepare)');
    }
  }
  return rows;
}

/** Java 5.5.0's DefaultMQPushConsumer with setClientRebalance(false) on a group switched to POP. */
async function javaPopPushDrain(cluster: Cluster, topic: string): Promise<DrainRow> {
  const group = `bench_cg_javapoppush_${run}`;
  const admin = new Admin({ namesrvAddr: cluster.namesrv });
  try {
    await admin.setMessageRequestMode(topic, group, 'POP', 0);
  } finally {
    await admin.close();
  }
  const r = await drainWithJavaPopPush('5.5.0', cluster.namesrv, topic, group, count);
  return {
    client: 'java-pop-push',
    msgsPerSec: Number(r.msgsPerSec),
    cpuUsPerMsg: Number(r.cpuUsPerMsg),
    brokerCpuUsPerMsg: Number.NaN,
    received: Number(r.received),
    complete: Boolean(r.complete),
  };
}

/** Our LitePullConsumer or SimpleConsumer draining the backlog as a new group, in its own process. */
async function workerDrain(
  cluster: Cluster,
  topic: string,
  worker: string,
  client: string,
): Promise<DrainRow> {
  const broker0 = processCpuMs(cluster.pid);
  const out = await new Promise<string>((resolve, reject) => {
    const prof = values.prof ? PROF_ARGS : [];
    const child = spawn(process.execPath, [...prof, worker, cluster.namesrv, topic, String(count)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`${client} drain exited ${code}`)),
    );
  });
  const brokerMs = processCpuMs(cluster.pid) - broker0;
  const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
    msgs: number;
    cpuMicros: number;
    msgsPerSec: number;
    ackMicrosPerMsg?: number;
    redelivered?: number;
  };
  if (r.ackMicrosPerMsg === undefined && r.redelivered !== undefined)
    console.log(`${client}: ${r.redelivered} offsets received again (POP redelivery), counted once`);
  if (r.ackMicrosPerMsg !== undefined)
    console.log(
      `${client}: ack wait ${r.ackMicrosPerMsg} µs per message; ${r.redelivered ?? 0} offsets received again (POP redelivery after the invisible time), counted once`,
    );
  return {
    client,
    msgsPerSec: r.msgsPerSec,
    cpuUsPerMsg: r.cpuMicros / r.msgs,
    brokerCpuUsPerMsg: (brokerMs * 1000) / r.msgs,
    received: r.msgs,
    complete: r.msgs >= count,
  };
}

function printDrain(rows: DrainRow[]): void {
  console.log(`\ndrain ${count} x ${size} B from the first offset (new group each)`);
  const width = Math.max(9, ...rows.map((r) => r.client.length));
  console.log(`${'client'.padEnd(width)}    msgs/s   client CPU µs/msg   broker CPU µs/msg   received`);
  for (const r of rows) {
    const broker = Number.isFinite(r.brokerCpuUsPerMsg) ? r.brokerCpuUsPerMsg.toFixed(1) : '-';
    console.log(
      `${r.client.padEnd(width)} ${String(r.msgsPerSec).padStart(9)}   ${r.cpuUsPerMsg.toFixed(1).padStart(17)}   ${broker.padStart(17)}   ${r.received}${r.complete ? '' : ' (incomplete)'}`,
    );
  }
  // The POP-mode push consumer against our pull-mode one and Java's POP-mode one.
  const popPush = rows.find((r) => r.client === 'ours-pop-push');
  if (popPush !== undefined)
    for (const other of rows.filter((r) => r.client === 'ours' || r.client === 'java-pop-push'))
      console.log(
        `ours-pop-push vs ${other.client}: ${(popPush.msgsPerSec / other.msgsPerSec).toFixed(2)}x msgs/s, ${(popPush.cpuUsPerMsg / other.cpuUsPerMsg).toFixed(2)}x CPU per message`,
      );
  // --otel: what the API without an SDK and the SDK on add per message, against the option off.
  const off = rows.find((r) => r.client === 'ours-otel-off');
  if (off !== undefined)
    for (const r of rows.filter((x) => x.client.startsWith('ours-otel-') && x !== off))
      console.log(
        `${r.client} vs ours-otel-off: ${(r.cpuUsPerMsg - off.cpuUsPerMsg).toFixed(2)} µs/msg client CPU added (${(r.cpuUsPerMsg / off.cpuUsPerMsg).toFixed(2)}x), ${(r.msgsPerSec / off.msgsPerSec).toFixed(2)}x msgs/s`,
      );
  const ours = rows.find((r) => r.client === 'ours');
  if (ours === undefined) return;
  for (const other of rows.filter((r) => r !== ours && !r.client.startsWith('ours-otel-'))) {
    console.log(
      `ours vs ${other.client}: ${(ours.msgsPerSec / other.msgsPerSec).toFixed(2)}x msgs/s, ${(ours.cpuUsPerMsg / other.cpuUsPerMsg).toFixed(2)}x CPU per message`,
    );
  }
}

async function latencyPhase(cluster: Cluster, producer: Producer): Promise<void> {
  const topic = `bench_lat_${run}`;
  await createTopic(cluster.namesrv, topic);
  const rate = Number(values.rate);
  const seconds = Number(values['latency-seconds']);
  const expect = Math.floor(rate * seconds);
  const body = Buffer.alloc(size, 'x');
  let pacer: PacedSender | undefined;
  let sending: Promise<void> = Promise.resolve();
  let acknowledged = 0;
  const result = await runWorker(
    ['--client', 'ours', '--mode', 'latency', '--namesrv', cluster.namesrv, '--topic', topic].concat([
      '--group',
      `bench_lat_cg_${run}`,
      '--expect',
      String(expect),
      '--seconds',
      String(seconds),
    ]),
    (child) => {
      pacer = new PacedSender(
        { ratePerSec: rate, maxInFlight: 256, durationMs: seconds * 1000 },
        async () => {
          await producer.send({
            topic,
            body,
            properties: { sentAt: String(performance.timeOrigin + performance.now()) },
          });
          acknowledged++;
        },
      );
      sending = pacer.run().then(() => {
        child.stdin.end(`${acknowledged}\n`);
      });
    },
    values.prof ? PROF_ARGS : [],
  );
  await sending;
  const f = (k: string): string => Number(result[k]).toFixed(2);
  console.log(
    `\nlatency at a steady ${rate} msgs/s for ${seconds} s (${size} B; first 500 skipped), our consumer:`,
  );
  console.log(
    `  received ${String(result['received'])}/${acknowledged} sent (target ${expect}, producer fell behind by ${pacer?.skipped ?? 0})   born→handler p50 ${f('bornP50Ms')} ms  p99 ${f('bornP99Ms')} ms   sent→handler p50 ${f('sentP50Ms')} ms  p99 ${f('sentP99Ms')} ms  max ${f('sentMaxMs')} ms`,
  );
  console.log(
    `  client CPU ${f('cpuUsPerMsg')} µs/msg; stored→handler (the pull path) p50 ${f('storeP50Ms')} ms  p99 ${f('storeP99Ms')} ms  max ${f('storeMaxMs')} ms; consumer process: event loop delay p99 ${f('loopDelayP99Ms')} ms  max ${f('loopDelayMaxMs')} ms, ${String(result['gcCount'])} GCs ${f('gcTotalMs')} ms (max ${f('gcMaxMs')} ms)`,
  );
}

async function rssPhase(cluster: Cluster, topic: string): Promise<void> {
  const seconds = values['rss-seconds'] ?? '15';
  console.log(`\nRSS with a handler that sleeps 100 ms per message, ${seconds} s on the backlog:`);
  for (const client of clients.filter((c) => c !== 'java')) {
    const r = await runWorker(
      ['--client', client, '--mode', 'rss', '--namesrv', cluster.namesrv, '--topic', topic].concat([
        '--group',
        `bench_rss_${client.replace(/\W/g, '')}_${run}`,
        '--seconds',
        seconds,
      ]),
    );
    const mib = (k: string): string => Number(r[k]).toFixed(1);
    console.log(
      `  ${client.padEnd(8)} handled ${String(r['handled'])}  handlers in flight max ${String(r['maxInFlight'])}  RSS start ${mib('rssStartMiB')} MiB  peak ${mib('rssPeakMiB')} MiB  heap ${mib('heapUsedMiB')} MiB  buffers ${mib('externalMiB')} MiB`,
    );
  }
}

async function main(): Promise<void> {
  const cluster: Cluster =
    values.namesrv !== undefined
      ? { namesrv: values.namesrv, pid: undefined, stop: async () => undefined }
      : await startEmbedded();
  const producer = new Producer({
    namesrvAddr: cluster.namesrv,
    producerGroup: `bench_pg_${run}`,
    ...EXACT_BACKLOG,
  });
  try {
    await producer.start();
    const topic = `bench_consume_${run}`;
    await createTopic(cluster.namesrv, topic);
    const t0 = performance.now();
    await fill(producer, topic, count);
    const stored = await storedMessages(cluster.namesrv, topic);
    if (stored !== count) throw new Error(`backlog holds ${stored} messages, not ${count}`);
    console.log(
      `consumer benchmark: ${values.namesrv !== undefined ? `cluster ${values.namesrv}` : `embedded cluster (2 brokers, pid ${cluster.pid})`}; backlog of ${count} x ${size} B filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    if (!skipPhases.has('drain')) printDrain(await drainPhase(cluster, topic));
    if (values.prof) console.log(`CPU profiles of our workers: ${PROF_DIR}`);
    if (!skipPhases.has('latency') && clients.includes('ours')) await latencyPhase(cluster, producer);
    if (!skipPhases.has('rss')) await rssPhase(cluster, topic);
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
