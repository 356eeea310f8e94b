/**
 * One client of bench/proxy.ts in a process of its own, so the CPU a cell reports is that
 * client's alone: rocketmq-ts (remoting endpoint of the Proxy) or Apache's gRPC Node client
 * `rocketmq-client-nodejs` (gRPC endpoint of the same Proxy). Forked with one `ClientJob` (JSON in
 * argv[2]); a `send` job answers `{ ready }`, then runs one cell per `{ cell }` message and stops
 * on `{ stop }`; a `drain` job drains a backlog with the client's SimpleConsumer and answers once.
 * Before it closes its client it reports every non-loopback TCP peer it had (there must be none).
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Official from 'rocketmq-client-nodejs';
import { measureCell, type Cell, type SendFn } from './measure.js';
import { nonLoopbackPeers } from './loopback-peers.js';
import { SimpleConsumer } from '../src/consumer/simple/simple-consumer.js';
import { Producer } from '../src/producer/producer.js';
import { TransactionProducer } from '../src/producer/transaction-producer.js';
import { MESSAGE_FIELD_NAMES, type Message } from '../src/producer/message.js';

export type ClientName = 'ours' | 'official';
export type BenchMessageType = 'NORMAL' | 'FIFO' | 'DELAY' | 'TRANSACTION';

export type ClientJob =
  | { mode: 'send'; client: ClientName; type: BenchMessageType; endpoint: string; topic: string }
  | { mode: 'drain'; client: ClientName; endpoint: string; topic: string; count: number };

/** Parent → child. */
export type ToChild =
  | { cell: { concurrency: number; seconds: number; warmup: number; size: number } }
  | { serverCpuUs: number }
  | { stop: true };

/** Child → parent. */
export type FromChild =
  | { ready: true }
  | { mark: true }
  | { report: true }
  | { cell: Cell }
  | { drained: DrainResult }
  | { failed: string }
  | { closed: { nonLoopbackPeers: string[] } };

/** FIFO sends spread over this many message groups (Bench.java uses the same). */
export const FIFO_GROUPS = 16;
/** Delay of a DELAY send: due after the run, so deliveries do not load the measurement. */
export const DELAY_MS = 600_000;
/** Receivers of a drain, receive batch and invisible time (bench/consumer-pop.ts's). */
const RECEIVERS = 4;
const BATCH = 32;
const INVISIBLE_MS = 60_000;
/** No message for this long ends a drain short of its count (well above a long poll). */
const IDLE_MS = 20_000;
/**
 * Long-poll time of a receive: the Proxy's gRPC side refuses less than its
 * grpcClientConsumerMinLongPollingTimeoutMillis (5 s), and ours uses the same.
 */
const AWAIT_MS = 5000;

interface Client {
  send: SendFn;
  close(): Promise<void>;
}

const silentLogger = { info() {}, warn() {}, error() {}, debug() {} };

function official(): typeof Official {
  return createRequire(import.meta.url)('rocketmq-client-nodejs') as typeof Official;
}

/** The group of the n-th FIFO send. */
function groupOf(n: number): string {
  return `g${n % FIFO_GROUPS}`;
}

async function startOurs(job: Extract<ClientJob, { mode: 'send' }>): Promise<Client> {
  const { topic, type, endpoint } = job;
  const common = { namesrvAddr: endpoint, producerGroup: `bench_proxy_ours_${type}` };
  if (type === 'TRANSACTION') {
    const tp = new TransactionProducer({ ...common, checkListener: () => 'COMMIT' });
    await tp.start();
    return {
      send: (body) => tp.sendMessageInTransaction({ topic, body, tags: 'bench' }, () => 'COMMIT'),
      close: () => tp.shutdown(),
    };
  }
  const producer = new Producer(common);
  await producer.start();
  let n = 0;
  // `Message.messageGroup` (issue 24); until a build has it, the per-send shardingKey option.
  const hasMessageGroup = MESSAGE_FIELD_NAMES.includes('messageGroup');
  const send: SendFn =
    type === 'FIFO'
      ? (body) => {
          const group = groupOf(n++);
          return hasMessageGroup
            ? producer.send({ topic, body, tags: 'bench', messageGroup: group } as Message)
            : producer.send({ topic, body, tags: 'bench' }, { shardingKey: group });
        }
      : type === 'DELAY'
        ? (body) => producer.send({ topic, body, tags: 'bench', deliverAfterMs: DELAY_MS })
        : (body) => producer.send({ topic, body, tags: 'bench' });
  return { send, close: () => producer.shutdown() };
}

async function startOfficial(job: Extract<ClientJob, { mode: 'send' }>): Promise<Client> {
  const { topic, type, endpoint } = job;
  const { Producer: OfficialProducer } = official();
  const COMMIT = 1; // TransactionResolution.COMMIT of its protobuf definitions
  const producer = new OfficialProducer({
    endpoints: endpoint,
    namespace: '',
    topics: [topic],
    logger: silentLogger,
    ...(type === 'TRANSACTION' ? { checker: { check: () => Promise.resolve(COMMIT) } } : {}),
  });
  await producer.startup();
  let n = 0;
  const send: SendFn =
    type === 'TRANSACTION'
      ? async (body) => {
          const tx = producer.beginTransaction();
          const receipt = await producer.send({ topic, body, tag: 'bench' }, tx);
          await tx.commit();
          return receipt;
        }
      : type === 'FIFO'
        ? (body) => producer.send({ topic, body, tag: 'bench', messageGroup: groupOf(n++) })
        : type === 'DELAY'
          ? (body) => producer.send({ topic, body, tag: 'bench', delay: DELAY_MS })
          : (body) => producer.send({ topic, body, tag: 'bench' });
  return { send, close: () => producer.shutdown() };
}

/** What a drain measured, from the first receive to the ack that completed the backlog. */
export interface DrainResult {
  msgs: number;
  ms: number;
  /** Process CPU (user + system) over the same span, µs. */
  cpuMicros: number;
  /** Deliveries of a message already received (POP is at-least-once). */
  redelivered: number;
  /** Receives and acks that failed (timed out) and were retried. */
  errors: number;
  /** The first of those failures. */
  firstError?: string;
}

/** A SimpleConsumer as the drain loop sees it: either client's. */
interface Receiver<M> {
  receive(): Promise<M[]>;
  ack(m: M): Promise<unknown>;
  id(m: M): string;
}

/**
 * Both clients drain the same way: RECEIVERS loops receive BATCH and ack every message; the
 * clock and the CPU stop at the ack that completes `count` (a long poll still parked after it
 * is the client's idle time, not drain time).
 */
async function drainLoop<M>(c: Receiver<M>, count: number): Promise<DrainResult> {
  const seen = new Set<string>();
  let acked = 0;
  let redelivered = 0;
  let errors = 0;
  let firstError: string | undefined;
  const failure = (err: unknown): void => {
    errors++;
    firstError ??= String(err).slice(0, 300);
  };
  let lastMessageAt = Date.now();
  const startCpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  let done: { ms: number; cpuMicros: number } | undefined;
  const receiver = async (): Promise<void> => {
    while (done === undefined && Date.now() - lastMessageAt < IDLE_MS) {
      // A receive or ack that times out on a loaded machine is retried, as an application would.
      let batch: M[] = [];
      try {
        batch = await c.receive();
      } catch (err) {
        failure(err);
        await sleep(100);
      }
      if (batch.length === 0) continue;
      lastMessageAt = Date.now();
      await Promise.all(
        batch.map(async (m) => {
          const id = c.id(m);
          if (seen.has(id)) redelivered++;
          else seen.add(id);
          if (
            !(await c.ack(m).then(
              () => true,
              (err: unknown) => (failure(err), false),
            ))
          )
            return;
          if (++acked >= count && done === undefined && seen.size >= count) {
            const cpu = process.cpuUsage(startCpu);
            done = { ms: Number(process.hrtime.bigint() - started) / 1e6, cpuMicros: cpu.user + cpu.system };
          }
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: RECEIVERS }, receiver));
  if (done === undefined) {
    const cpu = process.cpuUsage(startCpu);
    done = {
      ms: Number(process.hrtime.bigint() - started) / 1e6 - IDLE_MS,
      cpuMicros: cpu.user + cpu.system,
    };
  }
  return {
    msgs: seen.size,
    ms: Math.round(done.ms),
    cpuMicros: done.cpuMicros,
    redelivered,
    errors,
    firstError,
  };
}

async function drainOurs(endpoint: string, topic: string, count: number): Promise<DrainResult> {
  const consumer = new SimpleConsumer({
    namesrvAddr: endpoint,
    consumerGroup: `bench_proxy_drain_ours_${Date.now().toString(36)}`,
    subscriptions: { [topic]: '*' },
    awaitDuration: AWAIT_MS,
    invisibleDuration: INVISIBLE_MS,
  });
  await consumer.start();
  try {
    return await drainLoop(
      { receive: () => consumer.receive(BATCH), ack: (m) => consumer.ack(m), id: (m) => m.msgId },
      count,
    );
  } finally {
    await consumer.shutdown();
  }
}

async function drainOfficial(endpoint: string, topic: string, count: number): Promise<DrainResult> {
  const { SimpleConsumer: OfficialSimpleConsumer, FilterExpression } = official();
  const consumer = new OfficialSimpleConsumer({
    endpoints: endpoint,
    namespace: '',
    consumerGroup: `bench_proxy_drain_official_${Date.now().toString(36)}`,
    subscriptions: new Map([[topic, FilterExpression.SUB_ALL]]),
    awaitDuration: AWAIT_MS,
    logger: silentLogger,
  });
  await consumer.startup();
  try {
    return await drainLoop(
      {
        receive: () => consumer.receive(BATCH, INVISIBLE_MS),
        ack: (m) => consumer.ack(m),
        id: (m) => m.messageId,
      },
      count,
    );
  } finally {
    await consumer.shutdown();
  }
}

function send(msg: FromChild): void {
  process.send?.(msg);
}

/** The last messages before the channel closes: resolved once written. */
function sendFlushed(msg: FromChild): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(msg, undefined, {}, () => resolve());
  });
}

/** Server CPU accounting relayed to the parent, which reads the Proxy's /proc. */
const serverCpu = {
  mark: (): void => send({ mark: true }),
  report: async (): Promise<number> => {
    send({ report: true });
    for (;;) {
      const [m] = (await once(process, 'message')) as [ToChild];
      if ('serverCpuUs' in m) return m.serverCpuUs;
    }
  },
};

async function runSendJob(job: Extract<ClientJob, { mode: 'send' }>): Promise<void> {
  const client = job.client === 'ours' ? await startOurs(job) : await startOfficial(job);
  // Route caches and connections warm before the first cell.
  await client.send(randomBytes(16));
  send({ ready: true });
  for (;;) {
    const [m] = (await once(process, 'message')) as [ToChild];
    if ('cell' in m) {
      const { concurrency, seconds, warmup, size } = m.cell;
      send({
        cell: await measureCell(client.send, randomBytes(size), concurrency, seconds, warmup, serverCpu),
      });
    } else if ('stop' in m) {
      const peers = nonLoopbackPeers();
      await client.close();
      await sendFlushed({ closed: { nonLoopbackPeers: peers } });
      return;
    }
  }
}

async function runDrainJob(job: Extract<ClientJob, { mode: 'drain' }>): Promise<void> {
  // The consumer closes its connections when the drain ends: look at them while it runs.
  const peers = new Set<string>();
  const watch = setInterval(() => nonLoopbackPeers().forEach((p) => peers.add(p)), 1000);
  try {
    const drained =
      job.client === 'ours'
        ? await drainOurs(job.endpoint, job.topic, job.count)
        : await drainOfficial(job.endpoint, job.topic, job.count);
    send({ drained });
  } finally {
    clearInterval(watch);
  }
  await sendFlushed({ closed: { nonLoopbackPeers: [...peers] } });
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as ClientJob;
  try {
    await (job.mode === 'send' ? runSendJob(job) : runDrainJob(job));
  } catch (err) {
    await sendFlushed({ failed: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
  process.disconnect();
  // A client that leaves a timer behind must not keep the child alive.
  setTimeout(() => process.exit(0), 2000).unref();
}

await main();
