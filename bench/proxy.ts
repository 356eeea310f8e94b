/**
 * Proxy benchmark (issue 24): through one real RocketMQ 5.5.0 cluster with a `rocketmq-proxy`
 * 5.5.0 in cluster mode (interop-test/real-cluster.ts, full JIT), 128 B sends at 1 / 16 / 64 in
 * flight by rocketmq-ts (the Proxy's remoting endpoint), Apache's gRPC Node client
 * `rocketmq-client-nodejs` (its gRPC endpoint) and the Java 5.5.0 client (remoting endpoint,
 * interop driver `bench`), side by side; then a SimpleConsumer drain of a prefilled backlog by
 * ours and by the official Node client. Each client runs in a process of its own
 * (bench/proxy-client.ts, a JVM for Java), so "cpu µs/msg" is that client's CPU per send alone;
 * "proxy µs/msg" is the Proxy JVM's CPU per send in the same cell (Node clients only: the Java
 * driver warms up inside its JVM, where this process cannot see its measured window).
 *
 *   npm run bench:proxy
 *   node build/bench/proxy.js [--seconds 5] [--concurrency 1,16,64] [--clients ours,official,java]
 *                             [--types NORMAL,FIFO,DELAY,TRANSACTION] [--drain 20000]
 *
 * Every topic is created typed (`+message.type=...`) before it is used: the Proxy's type check is
 * on, as it is by default. `--drain 0` skips the drain. Prints figures; asserts nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatMs } from '../src/cli/stats.js';
import { Admin } from '../src/admin/admin.js';
import { Producer } from '../src/producer/producer.js';
import { BrokerResponseError } from '../src/errors/broker.js';
import { SendFailedError } from '../src/errors/producer.js';
import { ResponseCode } from '../src/protocol/codes.js';
import { RealCluster } from '../interop-test/real-cluster.js';
import { runDriver, runMqadmin, type BenchResult } from '../interop-test/java.js';
import { processesCpuMs } from './process-cpu.js';
import { EXACT_BACKLOG } from './consumer-pop.js';
import type { Cell } from './measure.js';
import type {
  BenchMessageType,
  ClientJob,
  ClientName,
  DrainResult,
  FromChild,
  ToChild,
} from './proxy-client.js';

const VERSION = '5.5.0';
const QUEUES = 8;
const TYPES: readonly BenchMessageType[] = ['NORMAL', 'FIFO', 'DELAY', 'TRANSACTION'];
const CLIENTS = ['ours', 'official', 'java'] as const;
type AnyClient = (typeof CLIENTS)[number];

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    /** Seconds each Node client sends at 64 in flight before a type's first cell (the JVMs' JIT). */
    'warm-seconds': { type: 'string', default: '3' },
    /** The same before the first type's cells: the Proxy and brokers start cold. */
    'first-warm-seconds': { type: 'string', default: '15' },
    /** Seconds the Java driver sends before it measures (its own JIT, in a fresh JVM per cell). */
    'java-warmup': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,16,64' },
    clients: { type: 'string', default: CLIENTS.join(',') },
    types: { type: 'string', default: 'NORMAL' },
    size: { type: 'string', default: '128' },
    /** Messages each SimpleConsumer drains; 0 skips the drain. */
    drain: { type: 'string', default: '20000' },
  },
});

function listOption<T extends string>(name: string, value: string, allowed: readonly T[]): T[] {
  return value.split(',').map((v) => {
    if (!(allowed as readonly string[]).includes(v))
      throw new Error(`--${name}: one or more of ${allowed.join(',')}, got ${v}`);
    return v as T;
  });
}

/** The Proxy JVM: the child of this process whose command line runs ProxyStartup. */
function proxyPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('ProxyStartup')) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

/** A topic of `type`, on every broker, routed by the NameServer before it is used. */
async function createTypedTopic(cluster: RealCluster, topic: string, type: BenchMessageType): Promise<void> {
  const r = await runMqadmin(VERSION, [
    'updateTopic',
    ...['-n', cluster.namesrvAddr, '-c', 'DefaultCluster', '-t', topic],
    ...['-r', String(QUEUES), '-w', String(QUEUES), '-a', `+message.type=${type}`],
  ]);
  if (r.code !== 0) throw new Error(`mqadmin updateTopic ${topic} exited ${r.code}: ${r.stdout}${r.stderr}`);
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  try {
    for (let i = 0; ; i++) {
      const route = await admin.topicRoute(topic).catch(() => undefined);
      if (route !== undefined && route.brokers.length >= cluster.brokers.length) return;
      if (i >= 60) throw new Error(`topic ${topic} is not routed to every broker after 30 s`);
      await sleep(500);
    }
  } finally {
    await admin.close();
  }
}

/** One client child (bench/proxy-client.ts) and the messages it answers with. */
class ClientChild {
  private readonly child: ChildProcess;
  private readonly exited: Promise<unknown>;
  private serverMark = 0;
  private readonly inbox: FromChild[] = [];
  private waiter: { resolve(m: FromChild): void; reject(e: Error): void } | undefined;

  constructor(
    job: ClientJob,
    private readonly serverPids: readonly (number | undefined)[],
  ) {
    const script = fileURLToPath(new URL('./proxy-client.js', import.meta.url));
    this.child = fork(script, [JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    // Messages queue up: two can arrive in one read, before the caller asks for the second.
    this.child.on('message', (m: FromChild) => {
      if ('mark' in m) this.serverMark = processesCpuMs(this.serverPids);
      else if ('report' in m) {
        const serverCpuUs = (processesCpuMs(this.serverPids) - this.serverMark) * 1000;
        this.child.send({ serverCpuUs } satisfies ToChild);
      } else this.deliver(m);
    });
    this.child.once('exit', (code) => {
      const w = this.waiter;
      this.waiter = undefined;
      w?.reject(new Error(`client child exited ${code}`));
    });
  }

  /** The next message that is not CPU accounting; a `failed` one rejects. */
  next(): Promise<FromChild> {
    const m = this.inbox.shift();
    if (m !== undefined) return 'failed' in m ? Promise.reject(new Error(m.failed)) : Promise.resolve(m);
    if (this.child.exitCode !== null)
      return Promise.reject(new Error(`client child exited ${this.child.exitCode}`));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private deliver(m: FromChild): void {
    const w = this.waiter;
    if (w === undefined) {
      this.inbox.push(m);
      return;
    }
    this.waiter = undefined;
    if ('failed' in m) w.reject(new Error(m.failed));
    else w.resolve(m);
  }

  async cell(concurrency: number, seconds: number, warmup: number, size: number): Promise<Cell> {
    const reply = this.next();
    this.child.send({ cell: { concurrency, seconds, warmup, size } } satisfies ToChild);
    const m = await reply;
    if (!('cell' in m)) throw new Error(`expected a cell, got ${JSON.stringify(m)}`);
    return m.cell;
  }

  /** Stops the client; returns the non-loopback peers it had. */
  async stop(): Promise<string[]> {
    if (this.child.exitCode !== null || !this.child.connected) return [];
    const reply = this.next().catch(() => undefined);
    this.child.send({ stop: true } satisfies ToChild);
    return this.closed(reply);
  }

  async closed(reply: Promise<FromChild | undefined> = this.next()): Promise<string[]> {
    const m = await reply;
    const exited = await Promise.race([this.exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!exited) this.child.kill('SIGKILL');
    return m !== undefined && 'closed' in m ? m.closed.nonLoopbackPeers : [];
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

interface Row {
  type: BenchMessageType;
  concurrency: number;
  cells: Partial<Record<AnyClient, Cell | string>>;
}

const nonLoopback: string[] = [];

async function javaCell(
  proxyAddr: string,
  topic: string,
  type: BenchMessageType,
  concurrency: number,
  seconds: number,
  size: number,
): Promise<Cell> {
  const args = ['bench', '--namesrv', proxyAddr, '--topic', topic, '--type', type];
  args.push('--threads', String(concurrency), '--size', String(size));
  args.push(
    '--duration-ms',
    String(seconds * 1000),
    '--warmup-ms',
    String(Number(values['java-warmup']) * 1000),
  );
  const r = await runDriver<BenchResult & { cpuUsPerMsg: number | null }>(VERSION, args, {
    timeoutMs: (seconds + 120) * 1000,
    jvmArgs: ['-XX:TieredStopAtLevel=4'],
  });
  return {
    msgsPerSec: r.msgsPerSec,
    p50: r.p50Ms ?? NaN,
    p99: r.p99Ms ?? NaN,
    cpuUsPerMsg: r.cpuUsPerMsg ?? NaN,
    brokerCpuUsPerMsg: NaN,
    elu: NaN,
    brokerElu: NaN,
    failed: r.failed,
  };
}

async function sendRows(cluster: RealCluster, stamp: string): Promise<Row[]> {
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup);
  const size = Number(values.size);
  const concurrencies = values.concurrency.split(',').map(Number);
  const clients = listOption('clients', values.clients, CLIENTS);
  const serverPids = [proxyPid()];
  if (serverPids[0] === undefined) console.log('(the Proxy JVM was not found in /proc: no proxy µs/msg)');
  const rows: Row[] = [];
  for (const type of listOption('types', values.types, TYPES)) {
    const topic = `bench_proxy_${type.toLowerCase()}_${stamp}`;
    await createTypedTopic(cluster, topic, type);
    const children = new Map<ClientName, ClientChild | string>();
    for (const client of clients) {
      if (client === 'java') continue;
      const endpoint = client === 'ours' ? cluster.proxyAddr : cluster.proxyGrpcAddr;
      const child = new ClientChild({ mode: 'send', client, type, endpoint, topic }, serverPids);
      children.set(
        client,
        await child.next().then(
          () => child,
          (err: unknown) => {
            child.kill();
            console.log(`${client} ${type}: start failed: ${String(err)}`);
            return 'start failed';
          },
        ),
      );
    }
    try {
      const warm = Number(values[rows.length === 0 ? 'first-warm-seconds' : 'warm-seconds']);
      for (const child of children.values())
        if (typeof child !== 'string') await child.cell(64, warm, 0, size);
      for (const concurrency of concurrencies) {
        const row: Row = { type, concurrency, cells: {} };
        for (const client of clients) {
          const child = children.get(client as ClientName);
          try {
            row.cells[client] =
              client === 'java'
                ? await javaCell(cluster.proxyAddr, topic, type, concurrency, seconds, size)
                : typeof child === 'string' || child === undefined
                  ? (child ?? '-')
                  : await child.cell(concurrency, seconds, warmup, size);
          } catch (err) {
            console.log(`${client} ${type} at ${concurrency}: ${String(err).slice(0, 600)}`);
            row.cells[client] = 'failed';
          }
        }
        rows.push(row);
        printRow(row);
      }
    } finally {
      for (const child of children.values())
        if (typeof child !== 'string') nonLoopback.push(...(await child.stop()));
    }
  }
  return rows;
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || !(b > 0) || !Number.isFinite(a)
    ? '-'
    : `${(a / b).toFixed(2)}x`;
}

function formatCell(x: Cell | string | undefined): string {
  if (x === undefined || typeof x === 'string') return (x ?? '-').padStart(50);
  const proxy = Number.isNaN(x.brokerCpuUsPerMsg) ? '-' : x.brokerCpuUsPerMsg.toFixed(0);
  return `${Math.round(x.msgsPerSec).toString().padStart(8)} ${formatMs(x.p50).padStart(8)} ${formatMs(x.p99).padStart(8)} ${x.cpuUsPerMsg.toFixed(0).padStart(9)} ${proxy.padStart(9)}${x.failed ? ` (${x.failed} failed)` : ''}`;
}

const HEADER =
  'type         conc |    ours:  msgs/s   p50 ms   p99 ms  cpu µs/msg proxy µs/msg | official:  msgs/s   p50 ms   p99 ms  cpu µs/msg proxy µs/msg |   java:  msgs/s   p50 ms   p99 ms  cpu µs/msg     - | ours/official msgs/s  official/ours cpu | ours/java msgs/s  java/ours cpu';

function cellOf(row: Row, client: AnyClient): Cell | undefined {
  const c = row.cells[client];
  return typeof c === 'object' ? c : undefined;
}

function printRow(row: Row): void {
  const [ours, off, java] = [cellOf(row, 'ours'), cellOf(row, 'official'), cellOf(row, 'java')];
  console.log(
    [
      `${row.type.padEnd(12)} ${String(row.concurrency).padStart(4)}`,
      formatCell(row.cells.ours),
      formatCell(row.cells.official),
      formatCell(row.cells.java),
      `${ratio(ours?.msgsPerSec, off?.msgsPerSec).padStart(20)} ${ratio(off?.cpuUsPerMsg, ours?.cpuUsPerMsg).padStart(18)}`,
      `${ratio(ours?.msgsPerSec, java?.msgsPerSec).padStart(16)} ${ratio(java?.cpuUsPerMsg, ours?.cpuUsPerMsg).padStart(14)}`,
    ].join(' | '),
  );
}

/** SYSTEM_BUSY means the broker stored nothing: sent again after a pause, it is stored once. */
async function sendUnlessBusy(producer: Producer, topic: string, body: Buffer): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await producer.send({ topic, body });
      return;
    } catch (err) {
      const busy =
        err instanceof SendFailedError &&
        err.attempts.every(
          (a) => a.error instanceof BrokerResponseError && a.error.responseCode === ResponseCode.SYSTEM_BUSY,
        );
      if (!busy || attempt >= 20) throw err;
      await sleep(200);
    }
  }
}

/** `count` 128 B messages on a fresh NORMAL topic, written straight to the brokers. */
async function prefill(cluster: RealCluster, topic: string, count: number): Promise<void> {
  await createTypedTopic(cluster, topic, 'NORMAL');
  const producer = new Producer({
    producerGroup: 'bench_proxy_prefill',
    namesrvAddr: cluster.namesrvAddr,
    ...EXACT_BACKLOG,
  });
  await producer.start();
  try {
    const body = Buffer.alloc(Number(values.size), 'x');
    for (let sent = 0; sent < count;) {
      const n = Math.min(256, count - sent);
      await Promise.all(Array.from({ length: n }, () => sendUnlessBusy(producer, topic, body)));
      sent += n;
    }
  } finally {
    await producer.shutdown();
  }
}

async function drains(cluster: RealCluster, stamp: string): Promise<void> {
  const count = Number(values.drain);
  const clients = listOption('clients', values.clients, CLIENTS).filter((c): c is ClientName => c !== 'java');
  if (count <= 0 || clients.length === 0) return;
  const results = new Map<ClientName, DrainResult | string>();
  for (const client of clients) {
    const topic = `bench_proxy_drain_${client}_${stamp}`;
    await prefill(cluster, topic, count);
    const endpoint = client === 'ours' ? cluster.proxyAddr : cluster.proxyGrpcAddr;
    const child = new ClientChild({ mode: 'drain', client, endpoint, topic, count }, []);
    try {
      const m = await child.next();
      if ('drained' in m) results.set(client, m.drained);
      nonLoopback.push(...(await child.closed()));
    } catch (err) {
      if (!results.has(client)) results.set(client, `failed: ${String(err).slice(0, 300)}`);
      child.kill();
    }
  }
  console.log(
    `\nSimpleConsumer drain through the Proxy: ${count} prefilled messages, receive ${32} x 4 receivers, ack each`,
  );
  console.log('client     msgs      ms   msgs/s  cpu µs/msg  redelivered  retried');
  const rate = (r: DrainResult): number => (r.msgs * 1000) / Math.max(1, r.ms);
  for (const [client, r] of results) {
    if (typeof r === 'string') console.log(`${client.padEnd(9)} ${r}`);
    else
      console.log(
        `${client.padEnd(9)} ${String(r.msgs).padStart(6)} ${String(r.ms).padStart(7)} ${Math.round(rate(r)).toString().padStart(8)} ${(r.cpuMicros / Math.max(1, r.msgs)).toFixed(0).padStart(11)} ${String(r.redelivered).padStart(12)} ${String(r.errors).padStart(8)}${r.firstError === undefined ? '' : `  first: ${r.firstError}`}`,
      );
  }
  const ours = results.get('ours');
  const off = results.get('official');
  if (typeof ours === 'object' && typeof off === 'object')
    console.log(
      `ours/official msgs/s ${ratio(rate(ours), rate(off))}, official/ours cpu ${ratio(off.cpuMicros / off.msgs, ours.cpuMicros / ours.msgs)}`,
    );
}

async function main(): Promise<void> {
  // The harness runs 5.x brokers without the timer wheel; DELAY messages and POP need it.
  const types = listOption('types', values.types, TYPES);
  const timerWheel = types.includes('DELAY') || Number(values.drain) > 0;
  const cluster = await RealCluster.start({
    version: VERSION,
    proxy: true,
    quickJit: false,
    // Full-JIT JVMs start slowly on a shared 2-core machine.
    startTimeoutMs: 300_000,
    ...(timerWheel ? { brokerConfig: { timerWheelEnable: true } } : {}),
  });
  const stamp = Date.now().toString(36);
  try {
    console.log(
      `RocketMQ ${VERSION}, 2 brokers, rocketmq-proxy ${VERSION} (cluster mode): remoting ${cluster.proxyAddr}, gRPC ${cluster.proxyGrpcAddr}`,
    );
    console.log(
      `${values.seconds} s per cell after ${values.warmup} s warm-up (Java: ${values['java-warmup']} s in its own JVM); ${values.size} B random bodies\n`,
    );
    console.log(HEADER);
    await sendRows(cluster, stamp);
    await drains(cluster, stamp);
  } finally {
    await cluster.stop();
  }
  if (nonLoopback.length > 0) {
    console.error(`a client connected beyond loopback: ${[...new Set(nonLoopback)].join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
