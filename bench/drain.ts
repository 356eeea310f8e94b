/**
 * Drain benchmark: a backlog of `count` messages is written to a fresh 8-queue topic on every
 * broker of a cluster (raw SEND_MESSAGE_V2, many in flight), then one ali-ons push consumer with
 * a fresh group reads it from the first offset. The figure is messages consumed per second from
 * the first delivery to the last, so client start-up and rebalance are not counted. The same code
 * runs against the embedded cluster and, when the interop jars are built, a real 4.9.7 cluster.
 */
import { createRequire } from 'node:module';
import { RequestCode, ResponseCode } from '../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../src/protocol/command.js';
import { UpdateAndCreateTopic } from '../src/protocol/headers/admin.js';
import { encodeProperties } from '../src/protocol/message/properties.js';
import { Connection } from '../src/remoting/connection.js';
import { processesCpuMs } from './process-cpu.js';

const require = createRequire(import.meta.url);

interface OnsConsumer {
  ready(): Promise<void>;
  subscribe(topic: string, expr: string, handler: (msg: unknown) => Promise<void>): void;
  close(): Promise<void>;
  on(event: 'error', l: (err: Error) => void): void;
}
const ons = require('ali-ons') as { Consumer: new (o: object) => OnsConsumer };
const quiet = { info() {}, warn() {}, error() {}, debug() {} };
/** ali-ons fetches NameServer addresses over HTTP unless nameSrv is given; it must never do so. */
const noHttp = { request: (): Promise<never> => Promise.reject(new Error('no HTTP in benchmarks')) };

const QUEUES = 8;
const IN_FLIGHT = 128;

export interface DrainResult {
  count: number;
  msgsPerSec: number;
  fillMsgsPerSec: number;
  seconds: number;
  /** CPU of the broker processes during the drain (not the fill) per message, µs; NaN unknown. */
  brokerCpuUsPerMsg: number;
  /** CPU of the consumer process per message, µs. */
  clientCpuUsPerMsg: number;
  /** The drain's start and end on the monotonic clock, µs (the clock of `node --cpu-prof` samples). */
  windowUs: [number, number];
}

function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

async function createTopic(conns: Connection[], topic: string): Promise<void> {
  for (const conn of conns) {
    const header = UpdateAndCreateTopic.encode({
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: QUEUES,
      writeQueueNums: QUEUES,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: false,
    });
    const r = await conn.request(createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, header), 10_000);
    if (r.code !== ResponseCode.SUCCESS)
      throw new Error(`create topic on ${conn.remoteAddress}: ${r.remark}`);
  }
}

/** A SEND_MESSAGE_V2 request as a 4.9 Java producer writes it (`props` already encoded). */
export function sendV2Request(
  group: string,
  topic: string,
  queueId: number,
  props: string,
  body: Buffer,
): RemotingCommand {
  const header = {
    a: group,
    b: topic,
    c: 'TBW102',
    d: QUEUES,
    e: queueId,
    f: 0,
    g: Date.now(),
    h: 0,
    i: props,
    j: 0,
    k: false,
    m: false,
  };
  return createRequest(RequestCode.SEND_MESSAGE_V2, header, body);
}

/** Sends `count` messages round-robin over brokers and queues; returns sends per second. */
async function fill(conns: Connection[], topic: string, count: number, body: Buffer): Promise<number> {
  const props = encodeProperties({ WAIT: 'true', TAGS: 'bench' });
  let next = 0;
  const started = performance.now();
  const loop = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const conn = conns[i % conns.length]!;
      const queueId = Math.floor(i / conns.length) % QUEUES;
      for (let attempt = 0; ; attempt++) {
        const r = await conn.request(
          sendV2Request('BenchDrainProducer', topic, queueId, props, body),
          10_000,
        );
        if (r.code === ResponseCode.SUCCESS) break;
        // A Java broker sheds load with SYSTEM_BUSY when its send queue waits too long.
        if (r.code !== ResponseCode.SYSTEM_BUSY || attempt >= 100)
          throw new Error(`send failed: ${r.code} ${r.remark}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  return count / ((performance.now() - started) / 1000);
}

/** Creates a fresh topic on every broker and writes `count` messages to it. */
export async function fillBacklog(
  brokers: readonly string[],
  count: number,
  body: Buffer,
  label: string,
): Promise<{ topic: string; fillMsgsPerSec: number }> {
  const topic = `BenchDrain_${label}_${process.pid}_${Date.now().toString(36)}`;
  const conns = await Promise.all(brokers.map((addr) => Connection.connect(addr)));
  try {
    await createTopic(conns, topic);
    return { topic, fillMsgsPerSec: await fill(conns, topic, count, body) };
  } finally {
    for (const c of conns) c.close();
  }
}

/** What one consumer's drain took: seconds from first to last delivery, its own CPU per message. */
export interface DrainTiming {
  seconds: number;
  clientCpuUsPerMsg: number;
}

/** How a consumer drains `count` messages of `topic`. */
export type Drain = (namesrv: string, topic: string, count: number, label: string) => Promise<DrainTiming>;

/**
 * Fills a backlog on `brokers` and drains it through `namesrv` (with ali-ons unless `drain` is
 * given); the CPU of `brokerPids` is read around the drain.
 */
export async function drainBenchmark(
  namesrv: string,
  brokers: readonly string[],
  count: number,
  body: Buffer,
  label: string,
  drain: Drain = drainBacklog,
  brokerPids: readonly (number | undefined)[] = [],
): Promise<DrainResult> {
  const { topic, fillMsgsPerSec } = await fillBacklog(brokers, count, body, label);
  const cpu0 = brokerPids.length > 0 ? processesCpuMs(brokerPids) : NaN;
  const start = monotonicUs();
  const { seconds, clientCpuUsPerMsg } = await drain(namesrv, topic, count, label);
  const windowUs: [number, number] = [start, monotonicUs()];
  const brokerCpuUsPerMsg = ((processesCpuMs(brokerPids) - cpu0) * 1000) / count;
  return {
    count,
    msgsPerSec: count / seconds,
    fillMsgsPerSec,
    seconds,
    brokerCpuUsPerMsg,
    clientCpuUsPerMsg,
    windowUs,
  };
}

/** Reads `count` messages of `topic` with a fresh ali-ons group in this process. */
export async function drainBacklog(
  namesrv: string,
  topic: string,
  count: number,
  label: string,
): Promise<DrainTiming> {
  const cpu0 = process.cpuUsage();
  const consumer = new ons.Consumer({
    nameSrv: namesrv,
    httpclient: noHttp,
    instanceName: `drain-${label}-${process.pid}`,
    consumerGroup: `BenchDrainGroup_${label}_${Date.now().toString(36)}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    accessKey: 'bench',
    secretKey: 'bench',
    logger: quiet,
    rebalanceInterval: 1000,
  });
  consumer.on('error', () => undefined);
  let got = 0;
  let first = 0;
  let last = 0;
  const done = new Promise<void>((resolve) => {
    consumer.subscribe(topic, '*', async () => {
      const now = performance.now();
      if (got === 0) first = now;
      got++;
      last = now;
      if (got === count) resolve();
    });
  });
  try {
    await consumer.ready();
    await done;
  } finally {
    await consumer.close();
  }
  const cpu = process.cpuUsage(cpu0);
  return { seconds: (last - first) / 1000, clientCpuUsPerMsg: (cpu.user + cpu.system) / count };
}

export function formatDrain(label: string, r: DrainResult): string {
  const broker = Number.isFinite(r.brokerCpuUsPerMsg) ? ` broker ${r.brokerCpuUsPerMsg.toFixed(2)},` : '';
  const cpu = `, CPU µs/msg:${broker} client ${r.clientCpuUsPerMsg.toFixed(2)}`;
  return `drain ${label}: ${r.count} msgs in ${r.seconds.toFixed(2)} s = ${Math.round(r.msgsPerSec)} msgs/s${cpu} (backlog filled at ${Math.round(r.fillMsgsPerSec)} msgs/s)`;
}
