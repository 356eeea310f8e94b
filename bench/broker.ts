/**
 * Broker throughput benchmark: the embedded cluster (NameServer + 2 brokers) runs in a child
 * process (`rocketmq-ts cluster`), so the RSS measured is the broker's; ali-ons producers in this
 * process send 128-byte messages with 1, 16 and 64 sends in flight.
 *
 *   npm run build:all && node build/bench/broker.js --duration 5 --levels 1,16,64 [--flush sync]
 *
 * Prints msgs/s, p50/p99 latency and the cluster process RSS per level. Figures, not assertions.
 * `--client raw` sends SEND_MESSAGE_V2 with this package's own Connection instead (round-robin over
 * both brokers), which shows what the broker absorbs when the client is not the bottleneck.
 *
 * Then the drain figures (bench/drain.ts): a backlog of `--drain` messages (default 200000, 0 = skip)
 * read by one ali-ons consumer, and by the Java push consumer of the interop driver when its jars
 * are built. With `--real auto` (default) and the interop jars built
 * (`npm run interop:prepare`), the same drain runs against a real RocketMQ 4.9.7 cluster (two
 * brokers, like ours) and the ratio embedded / real is printed per client. `--levels ''` skips the send levels.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// Long-run figures (flags documented there): restart time, idle connections, retention.
import { idleConnectionsBenchmark, restartBenchmark, retentionThroughputBenchmark } from './long-run.js';
import { LatencyHistogram } from '../src/cli/stats.js';
import { encodeProperties } from '../src/protocol/message/properties.js';
import { Connection } from '../src/remoting/connection.js';
import { RealCluster } from '../interop-test/real-cluster.js';
import { drainWithJava } from '../interop-test/java.js';
import { drainBenchmark, formatDrain, sendV2Request, type Drain, type DrainResult } from './drain.js';

const require = createRequire(import.meta.url);
const MAIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    levels: { type: 'string', default: '1,16,64' },
    size: { type: 'string', default: '128' },
    flush: { type: 'string', default: 'async' },
    client: { type: 'string', default: 'ali-ons' },
    drain: { type: 'string', default: '200000' },
    'drain-warmup': { type: 'string', default: '50000' },
    'drain-rounds': { type: 'string', default: '2' },
    real: { type: 'string', default: 'auto' },
    'real-version': { type: 'string', default: '4.9.7' },
    'idle-connections': { type: 'string', default: '5000' },
    'restart-gib': { type: 'string', default: '1' },
    'full-rebuild-gib': { type: 'string', default: '1' },
    'retention-seconds': { type: 'string', default: '5' },
    // Profiles the embedded cluster child (node --cpu-prof) into $TMPDIR/rocketmq-ts-broker-prof.
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const PROF_DIR = join(tmpdir(), 'rocketmq-ts-broker-prof');

interface OnsProducer {
  ready(): Promise<void>;
  send(msg: unknown): Promise<{ sendStatus: string }>;
  close(): Promise<void>;
}
const ons = require('ali-ons') as {
  Producer: (new (o: object) => OnsProducer) & { defaultProducer?: OnsProducer | null };
  Message: new (topic: string, tags: string, body: Buffer) => unknown;
};
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

interface ClusterInfo {
  pid: number;
  namesrv: string;
  brokers: string[];
}

async function startCluster(): Promise<ClusterInfo & { stop: () => Promise<void> }> {
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', PROF_DIR] : [];
  if (prof.length > 0) console.log(`cluster CPU profile: ${PROF_DIR} (written when the cluster stops)`);
  const child = spawn(
    process.execPath,
    [
      ...prof,
      MAIN,
      'cluster',
      '--brokers',
      '2',
      '--namesrv-port',
      '0',
      '--json',
      '--flush',
      values.flush ?? 'async',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`cluster exited with ${code}`)));
  });
  const info = JSON.parse(line) as { namesrv: string; brokers: Array<{ addr: string }> };
  return {
    pid: child.pid ?? -1,
    namesrv: info.namesrv,
    brokers: info.brokers.map((b) => b.addr),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function main(): Promise<void> {
  const durationMs = Number(values.duration) * 1000;
  const warmupMs = Number(values.warmup) * 1000;
  const levels = (values.levels ?? '1,16,64')
    .split(',')
    .filter((l) => l !== '')
    .map(Number);
  const body = Buffer.alloc(Number(values.size), 'x');
  const drainCount = Number(values.drain);
  const cluster = await startCluster();
  let real: RealCluster | undefined;
  try {
    if (levels.length > 0) await run(cluster, body, levels, durationMs, warmupMs);
    const idle = Number(values['idle-connections']);
    if (idle > 0) await idleConnectionsBenchmark(cluster.brokers[0]!, idle, () => rssOf(cluster.pid));
    if (drainCount > 0) {
      const targets: DrainTarget[] = [
        { label: 'embedded', namesrv: cluster.namesrv, brokers: cluster.brokers, pids: [cluster.pid] },
      ];
      real = await startReal();
      if (real !== undefined)
        targets.push({
          label: `real ${values['real-version'] ?? '4.9.7'}`,
          namesrv: real.namesrvAddr,
          brokers: real.brokers.map((b) => b.addr),
          pids: real.brokers.map((b) => b.pid),
        });
      await compareDrains(targets, drainCount, body);
    }
  } finally {
    const inner = ons.Producer.defaultProducer;
    ons.Producer.defaultProducer = null;
    await inner?.close();
    await cluster.stop();
    await real?.stop();
  }
  for (const gib of (values['restart-gib'] ?? '')
    .split(',')
    .filter((g) => g !== '')
    .map(Number))
    await restartBenchmark(gib, gib <= Number(values['full-rebuild-gib']));
  const retentionSeconds = Number(values['retention-seconds']);
  if (retentionSeconds > 0) await retentionThroughputBenchmark(retentionSeconds);
}

/** A cluster to drain from. */
interface DrainTarget {
  label: string;
  namesrv: string;
  brokers: string[];
  /** Broker processes, whose CPU is read around each drain. */
  pids: Array<number | undefined>;
}

function javaJarsBuilt(): boolean {
  const version = values['real-version'] ?? '4.9.7';
  return existsSync(fileURLToPath(new URL(`../../interop/target/${version}/lib/.complete`, import.meta.url)));
}

/** The Java push consumer of the interop driver (20 threads). */
const javaDrain: Drain = async (namesrv, topic, count, label) => {
  const version = values['real-version'] ?? '4.9.7';
  const group = `BenchDrainJava_${label}_${Date.now().toString(36)}`;
  const r = await drainWithJava(version, namesrv, topic, group, count);
  return { seconds: r.firstToLastMs / 1000, clientCpuUsPerMsg: r.cpuUsPerMsg };
};

/** A real Java cluster, when its jars are there (or `--real on`); undefined with `--real off`. */
async function startReal(): Promise<RealCluster | undefined> {
  const version = values['real-version'] ?? '4.9.7';
  const jars = fileURLToPath(new URL(`../../interop/target/${version}/lib`, import.meta.url));
  if (values.real === 'off' || (values.real === 'auto' && !existsSync(jars))) {
    console.log(`drain real ${version}: skipped (no ${jars}; run npm run interop:prepare)`);
    return undefined;
  }
  return RealCluster.start({ version, quickJit: false });
}

/**
 * A smaller drain on each cluster first (its own topic and group), so every broker is measured
 * warm (JIT, caches); then `--drain-rounds` rounds, each draining a fresh backlog with ali-ons
 * and (interop jars built) the Java push consumer from each cluster in turn, so a change in the
 * machine's load hits both clusters alike. Each round prints the ratio embedded / real of that
 * round; the summary gives the best round per client and cluster (on a shared 2-core machine the
 * spread between rounds comes from the neighbours, not the brokers) and the worst round's ratio.
 */
async function compareDrains(targets: DrainTarget[], count: number, body: Buffer): Promise<void> {
  const warmup = Number(values['drain-warmup']);
  const clients: Array<{ name: string; drain: Drain | undefined }> = [{ name: 'ali-ons', drain: undefined }];
  if (javaJarsBuilt()) clients.push({ name: 'Java push consumer', drain: javaDrain });
  /** Per client and cluster label, one result per round. */
  const rounds = new Map<string, DrainResult[]>();
  const key = (t: DrainTarget, client: string): string => `${t.label}|${client}`;
  for (const [i, t] of targets.entries())
    if (warmup > 0) await drainBenchmark(t.namesrv, t.brokers, warmup, body, `warmup${i}`);
  for (let round = 0; round < Math.max(1, Number(values['drain-rounds'])); round++) {
    for (const [c, client] of clients.entries()) {
      const results: DrainResult[] = [];
      for (const [i, t] of targets.entries()) {
        const r = await drainBenchmark(
          t.namesrv,
          t.brokers,
          count,
          body,
          `r${round}c${c}t${i}`,
          client.drain,
          t.pids,
        );
        console.log(`  ${formatDrain(`${t.label} round ${round + 1}, ${client.name}`, r)}`);
        // Lets a profile analysis keep only the drain's samples (the fill is the send path).
        if (values['cpu-prof'] && i === 0) console.log(`  profile window µs: ${r.windowUs.join('-')}`);
        results.push(r);
        const list = rounds.get(key(t, client.name)) ?? [];
        list.push(r);
        rounds.set(key(t, client.name), list);
      }
      for (const [i, t] of targets.entries())
        if (i > 0)
          console.log(
            `  drain ratio embedded / ${t.label} round ${round + 1}, ${client.name}: ${ratio(results[0], results[i])}`,
          );
    }
  }
  const fastest = (rs: DrainResult[] | undefined): DrainResult | undefined =>
    rs?.reduce((a, b) => (b.msgsPerSec > a.msgsPerSec ? b : a));
  for (const client of clients) {
    for (const t of targets) {
      const r = fastest(rounds.get(key(t, client.name)));
      if (r !== undefined) console.log(formatDrain(`${t.label}, best round (${client.name})`, r));
    }
    const ours = rounds.get(key(targets[0]!, client.name)) ?? [];
    for (const t of targets.slice(1)) {
      const theirs = rounds.get(key(t, client.name)) ?? [];
      const perRound = ours.map((r, i) => (theirs[i] ? r.msgsPerSec / theirs[i].msgsPerSec : NaN));
      console.log(
        `drain ratio embedded / ${t.label}, ${client.name}: best rounds ${ratio(fastest(ours), fastest(theirs))}, worst round ${Math.min(...perRound).toFixed(2)} (per round ${perRound.map((x) => x.toFixed(2)).join(', ')})`,
      );
    }
  }
}

function ratio(ours: DrainResult | undefined, theirs: DrainResult | undefined): string {
  return ours === undefined || theirs === undefined ? '-' : (ours.msgsPerSec / theirs.msgsPerSec).toFixed(2);
}

type Send = () => Promise<boolean>;

/** A sender with this package's Connection: SEND_MESSAGE_V2 round-robin over the brokers. */
async function rawSender(
  cluster: ClusterInfo,
  topic: string,
  body: Buffer,
): Promise<{ send: Send; close: () => void }> {
  const conns = await Promise.all(cluster.brokers.map((addr) => Connection.connect(addr)));
  let next = 0;
  const props = encodeProperties({ WAIT: 'true', TAGS: 'bench' });
  const send: Send = async () => {
    const i = next++;
    const conn = conns[i % conns.length]!;
    const r = await conn.request(sendV2Request('BenchProducer', topic, i % 8, props, body), 3000);
    return r.code === 0;
  };
  return { send, close: () => conns.forEach((c) => c.close()) };
}

async function run(
  cluster: ClusterInfo,
  body: Buffer,
  levels: number[],
  durationMs: number,
  warmupMs: number,
): Promise<void> {
  const topic = `BenchTopic_${process.pid}`;
  // ali-ons does not fall back to TBW102 on TOPIC_NOT_EXIST, so the topic is created up front.
  const created = spawnSync(
    process.execPath,
    [MAIN, 'topic', 'create', '--namesrv', cluster.namesrv, '--topic', topic, '--queues', '8'],
    { encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`topic create failed: ${created.stderr}`);
  const producer = new ons.Producer({
    nameSrv: cluster.namesrv,
    httpclient: { request: () => Promise.reject(new Error('no HTTP in benchmarks')) },
    instanceName: `bench-${process.pid}`,
    producerGroup: 'BenchProducer',
    accessKey: 'bench',
    secretKey: 'bench',
    logger: quiet,
  });
  await producer.ready();
  const raw = values.client === 'raw' ? await rawSender(cluster, topic, body) : undefined;
  const send: Send = raw
    ? raw.send
    : async () => (await producer.send(new ons.Message(topic, 'bench', body))).sendStatus === 'SEND_OK';
  console.log(
    `broker benchmark: ${values.client} producer -> embedded cluster (2 brokers, ${values.flush} flush, child pid ${cluster.pid}), ${body.length} B messages`,
  );
  console.log('in-flight   msgs/s     p50 ms   p99 ms   errors   cluster RSS MiB');
  for (const level of levels) {
    const hist = new LatencyHistogram();
    let count = 0;
    let errors = 0;
    let measuring = false;
    let running = true;
    let peakRss = 0;
    const loop = async (): Promise<void> => {
      while (running) {
        const t0 = performance.now();
        try {
          const ok = await send();
          if (measuring && ok) {
            hist.record(performance.now() - t0);
            count++;
          }
        } catch {
          if (measuring) errors++;
        }
      }
    };
    const loops = Array.from({ length: level }, () => loop());
    await new Promise((r) => setTimeout(r, warmupMs));
    measuring = true;
    const started = performance.now();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(cluster.pid))), 200);
    await new Promise((r) => setTimeout(r, durationMs));
    measuring = false;
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    running = false;
    await Promise.all(loops);
    console.log(
      `${String(level).padStart(9)}   ${String(Math.round(count / elapsed)).padStart(7)}   ${hist.percentile(50).toFixed(2).padStart(7)}  ${hist
        .percentile(99)
        .toFixed(2)
        .padStart(7)}   ${String(errors).padStart(6)}   ${(peakRss / 1048576).toFixed(1).padStart(8)}`,
    );
  }
  raw?.close();
  await producer.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
