/**
 * Topology benchmarks (issue 16). Prints figures; asserts nothing.
 *
 *   node build/bench/topology.js --slow-broker [--seconds 5] [--concurrency 16]
 *     An EmbeddedCluster (broker-a, broker-b) in a child process, broker-b answering sends in
 *     100–300 ms (fault injection). 16 concurrent 128 B sync sends with `java-4.9` (Java's round
 *     robin) and `adaptive`: msgs/s, each group's share, this process's CPU per send, p99.
 *
 *   node build/bench/topology.js --scale [--brokers 16] [--topics 1000]
 *     16 brokers and a NameServer in this process, 1,000 topics on every broker. A client
 *     instance looks every route up: memory per topic (heap), the CPU of one full refresh
 *     (client and NameServer: same process), the paced refresh's requests in flight and
 *     spread, and heartbeat body sizes against the broker's frame limit.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { BROKER_NODE_FLAGS } from '../src/server/broker-heap.js';
import { parseArgs } from 'node:util';
import { ClientInstance } from '../src/client/client-instance.js';
import { Deadline } from '../src/client/deadline.js';
import { silentLogger } from '../src/observability/logger.js';
import { Producer } from '../src/producer/producer.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../src/protocol/frame.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { measureCell } from './measure.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'slow-broker': { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    brokers: { type: 'string', default: '16' },
    topics: { type: 'string', default: '1000' },
    topic: { type: 'string', default: 'BenchTopology' },
  },
});

/** Child process: the cluster, broker-b slow. */
async function serveCluster(): Promise<void> {
  const cluster = await EmbeddedCluster.start({ brokers: 2, faultInjection: true });
  await cluster.createTopic(values.topic, 8);
  cluster.broker('broker-b').faults.set({ latencyMs: [100, 300] });
  process.send?.({ namesrvAddr: cluster.namesrvAddr });
  process.on('message', (m: { stop?: boolean }) => {
    if (m.stop) void cluster.stop().then(() => process.exit(0));
  });
  process.on('disconnect', () => void cluster.stop().then(() => process.exit(0)));
}

async function slowBroker(): Promise<void> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['cluster', '--topic', values.topic], {
    stdio: 'inherit',
    execArgv: [...BROKER_NODE_FLAGS],
  });
  try {
    const [msg] = (await once(child, 'message')) as [{ namesrvAddr: string }];
    const seconds = Number(values.seconds);
    const concurrency = Number(values.concurrency);
    console.log(
      `embedded cluster in child ${child.pid}; broker-b answers sends in 100–300 ms; ${concurrency} concurrent 128 B sync sends, ${seconds} s per strategy`,
    );
    const body = randomBytes(128);
    const rows: { strategy: string; msgsPerSec: number }[] = [];
    for (const strategy of ['java-4.9', 'adaptive'] as const) {
      const p = new Producer({
        namesrvAddr: msg.namesrvAddr,
        producerGroup: `PG_topology_${strategy.replace('.', '_')}`,
        latencyFaultStrategy: strategy,
        instanceName: strategy,
      });
      await p.start();
      const count = new Map<string, number>();
      const cell = await measureCell(
        async (b) => {
          const r = await p.send({ topic: values.topic, body: b });
          count.set(r.messageQueue.brokerName, (count.get(r.messageQueue.brokerName) ?? 0) + 1);
        },
        body,
        concurrency,
        seconds,
        1,
      );
      const total = [...count.values()].reduce((a, b) => a + b, 0);
      const shares = [...count]
        .sort()
        .map(([b, n]) => `${b} ${((100 * n) / total).toFixed(1)} %`)
        .join(', ');
      const weights = p
        .brokerHealth()
        .filter((h) => h.weight !== undefined)
        .map((h) => `${h.brokerName} ${(100 * (h.weight ?? 0)).toFixed(1)} %`)
        .join(', ');
      console.log(
        `${strategy.padEnd(9)} ${cell.msgsPerSec.toFixed(0).padStart(6)} msgs/s  shares: ${shares}  cpu ${cell.cpuUsPerMsg.toFixed(0)} µs/msg  p50 ${cell.p50.toFixed(1)} ms  p99 ${cell.p99.toFixed(1)} ms  failed ${cell.failed}${weights ? `  brokerHealth weights: ${weights}` : ''}`,
      );
      rows.push({ strategy, msgsPerSec: cell.msgsPerSec });
      await p.shutdown();
    }
    const [rr, adaptive] = rows;
    if (rr && adaptive)
      console.log(`adaptive / round robin: ${(adaptive.msgsPerSec / rr.msgsPerSec).toFixed(1)}×`);
  } finally {
    child.send({ stop: true });
    await once(child, 'exit');
  }
}

function heapMiB(): number {
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

async function scale(): Promise<void> {
  const brokers = Number(values.brokers);
  const topicCount = Number(values.topics);
  const t0 = Date.now();
  const cluster = await EmbeddedCluster.start({
    brokers,
    brokerOptions: { registerNameServerPeriod: 600_000 },
  });
  const topics = Array.from({ length: topicCount }, (_, i) => `ScaleTopic_${i}`);
  try {
    for (const e of cluster.brokers) for (const t of topics) await e.broker.createTopic(t, 8);
    console.log(
      `${brokers} brokers, ${topicCount} topics × 8 queues on each, ready in ${Date.now() - t0} ms`,
    );
    const instance = new ClientInstance({
      clientId: '127.0.0.1@bench',
      namesrvAddr: [cluster.namesrvAddr],
      namespace: undefined,
      language: 'JAVA',
      mqClientApiTimeout: 30_000,
      pollNameServerInterval: 5000,
      heartbeatBrokerInterval: 30_000,
      createTopicKey: 'TBW102',
      defaultTopicQueueNums: 4,
      logger: silentLogger,
    });
    try {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const before = heapMiB();
      for (const t of topics) await instance.routes.get(t, Deadline.after(30_000));
      gc?.();
      const after = heapMiB();
      console.log(
        `memory per topic: ${(((after - before) * 1024 * 1024) / topicCount / 1024).toFixed(1)} KiB (heap, ${brokers} groups × 8 queues per route${gc ? '' : '; run with --expose-gc for a steadier figure'})`,
      );

      // Count NameServer requests in flight: the pool is the one path to the NameServer.
      const pool = instance.pool as unknown as { request: (...a: unknown[]) => Promise<unknown> };
      const original = pool.request.bind(pool);
      let inFlight = 0;
      let maxInFlight = 0;
      const arrivals: number[] = [];
      pool.request = async (...a: unknown[]) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        arrivals.push(performance.now());
        try {
          return await original(...a);
        } finally {
          inFlight--;
        }
      };
      const cpu0 = process.cpuUsage();
      const w0 = performance.now();
      await instance.routes.refresh();
      const cpu = process.cpuUsage(cpu0);
      console.log(
        `full refresh of ${topicCount} topics: ${(performance.now() - w0).toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU (client + NameServer), ${((cpu.user + cpu.system) / topicCount).toFixed(0)} µs CPU/topic, ${maxInFlight} request(s) in flight at most`,
      );
      maxInFlight = 0;
      arrivals.length = 0;
      const interval = 5000;
      const cpu1 = process.cpuUsage();
      instance.pacer.start();
      await new Promise((r) => setTimeout(r, interval * 2 + 200));
      instance.pacer.stop();
      const cpuPaced = process.cpuUsage(cpu1);
      const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number));
      const perSecond = new Map<number, number>();
      for (const t of arrivals)
        perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
      console.log(
        `paced refresh (interval ${interval} ms): ${arrivals.length} requests in ${instance.pacer.completedPasses} pass(es), ${maxInFlight} in flight at most, busiest second ${Math.max(...perSecond.values())} requests (even: ${Math.round(topicCount / (interval / 1000))}), median gap ${median(gaps).toFixed(1)} ms, CPU ${((cpuPaced.user + cpuPaced.system) / 1000).toFixed(0)} ms over ${((interval * 2 + 200) / 1000).toFixed(1)} s`,
      );

      const producerOnly = instance.heartbeat.body().length;
      instance.heartbeat.register({
        producerGroups: () => ['PG_scale'],
        consumerData: () => [
          {
            groupName: 'CG_scale',
            consumeType: 'CONSUME_PASSIVELY',
            messageModel: 'CLUSTERING',
            consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
            unitMode: false,
            subscriptionDataSet: topics.map((topic) => ({
              topic,
              subString: 'TagA || TagB',
              tagsSet: ['TagA', 'TagB'],
              codeSet: [2598936, 2598937],
              subVersion: Date.now(),
              expressionType: 'TAG',
              classFilterMode: false,
            })),
          },
        ],
      });
      const withConsumer = instance.heartbeat.body().length;
      console.log(
        `heartbeat body: ${producerOnly} B (producer), ${withConsumer} B (plus a consumer of all ${topicCount} topics) = ${((100 * withConsumer) / DEFAULT_MAX_FRAME_SIZE).toFixed(2)} % of the broker's ${DEFAULT_MAX_FRAME_SIZE / 1024 / 1024} MiB frame limit; one per broker (${brokers}) every heartbeat interval`,
      );
    } finally {
      await instance.shutdown();
    }
  } finally {
    await cluster.stop();
  }
}

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  if (positionals[0] === 'cluster') return serveCluster();
  if (values.scale) return scale();
  return slowBroker();
}

await main();
