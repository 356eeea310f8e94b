/**
 * POP drain benchmark: a SimpleConsumer with a fresh group drains a backlog of `count` messages
 * (receive 32 at a time on several receivers, ack each batch with one `ack(messages)` call while
 * the next receive is out). `drainWithPop` is the piece the
 * consumer benchmark (`bench/consumer.ts --mode pop`) calls on a backlog it wrote; run alone
 * (`node build/bench/consumer-pop.js [count]`) it fills an embedded cluster first and prints the figures.
 */
import { pathToFileURL } from 'node:url';
import { SimpleConsumer } from '../src/consumer/simple/simple-consumer.js';
import { SIMPLE_CONSUMER_DEFAULTS } from '../src/consumer/simple/options.js';
import { Producer } from '../src/producer/producer.js';
import { EmbeddedCluster } from '../src/server/cluster.js';

/**
 * Producer options for filling a backlog of exactly `count` messages. A send the broker stored
 * but answered late is stored again by the producer's retry (its per-attempt cap is 1 s) or by a
 * hedged send (50 ms on a broker with no latency history yet): the first batches to a fresh
 * broker take 0.6–2 s on a loaded machine, and the consumer benchmark's backlog of 200,000 held
 * 201,024 messages, so every drain counted deliveries "beyond the backlog" (issue 10). One
 * unhurried attempt per send instead; a send that still fails stops the benchmark.
 */
export const EXACT_BACKLOG = Object.freeze({
  hedgeSends: false,
  retryTimesWhenSendFailed: 0,
  sendMsgTimeout: 30_000,
});

export interface PopDrainResult {
  /** Messages received and acked. */
  msgs: number;
  /** Wall time from the start of the first receive to the last ack. */
  ms: number;
  /** Process CPU (user + system) over the same span, µs. */
  cpuMicros: number;
  /** Wall time receivers spent waiting for their previous batch's ack, per message, µs. */
  ackMicrosPerMsg: number;
  /**
   * Receipts of an offset already received: POP is at-least-once, a message whose ack did not
   * reach the broker within its invisible time (60 s here) comes again. `msgs` counts each once.
   */
  redelivered: number;
}

/**
 * Receivers popping at once (one POP request in flight each): the consumer's default
 * `maxInFlightPops`, so the drain runs at the concurrency a SimpleConsumer allows by default.
 */
const RECEIVERS = SIMPLE_CONSUMER_DEFAULTS.maxInFlightPops;
/** A receive this long without messages, after the backlog was seen, ends the drain. */
const IDLE_MS = 3000;

/**
 * One queue's received offsets: a bit per offset from the first one seen (a Set of numbers per
 * queue still cost the POP drains 4 % of their client CPU, and the push row only counts), with
 * the rare offset below that start kept aside.
 */
class QueueOffsets {
  private base = -1;
  private bits = new Uint32Array(1024);
  private readonly below = new Set<number>();

  /** True when `offset` was not seen before. */
  add(offset: number): boolean {
    if (this.base < 0) this.base = offset;
    if (offset < this.base) {
      if (this.below.has(offset)) return false;
      this.below.add(offset);
      return true;
    }
    const i = offset - this.base;
    const word = i >>> 5;
    if (word >= this.bits.length) {
      const grown = new Uint32Array(Math.max(word + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const bit = 1 << (i & 31);
    const had = (this.bits[word]! & bit) !== 0;
    this.bits[word]! |= bit;
    return !had;
  }
}

/**
 * The offsets a drain received, per broker and queue. POP is at-least-once: an offset received
 * again is counted once, and in `redelivered`.
 */
export class OffsetsSeen {
  private readonly byBroker = new Map<string, QueueOffsets[]>();
  size = 0;
  redelivered = 0;

  add(m: { queue: { brokerName: string; queueId: number }; queueOffset: number }): void {
    let queues = this.byBroker.get(m.queue.brokerName);
    if (queues === undefined) this.byBroker.set(m.queue.brokerName, (queues = []));
    const offsets = (queues[m.queue.queueId] ??= new QueueOffsets());
    if (offsets.add(m.queueOffset)) this.size++;
    else this.redelivered++;
  }
}

export async function drainWithPop(
  namesrv: string,
  topic: string,
  group: string,
  count: number,
  timeoutMs = 300_000,
): Promise<PopDrainResult> {
  const consumer = new SimpleConsumer({
    namesrvAddr: namesrv,
    consumerGroup: group,
    subscriptions: { [topic]: '*' },
    awaitDuration: 1000,
    invisibleDuration: 60_000,
  });
  await consumer.start();
  const seen = new OffsetsSeen();
  let ackNanos = 0n;
  let lastMessageAt = Date.now();
  const deadline = Date.now() + timeoutMs;
  const startCpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  // The drain ends at the last ack of the backlog: the receives still out then long-poll an empty
  // broker for `awaitDuration`, idle time the consumer would not spend with more messages to take.
  let acksPending = 0;
  let ended: { at: bigint; cpu: NodeJS.CpuUsage } | undefined;
  const markEndWhenDone = (): void => {
    if (ended === undefined && acksPending === 0 && seen.size >= count)
      ended = { at: process.hrtime.bigint(), cpu: process.cpuUsage(startCpu) };
  };
  try {
    const receiver = async (): Promise<void> => {
      let acking: Promise<void> = Promise.resolve();
      while (seen.size < count && Date.now() < deadline && Date.now() - lastMessageAt < IDLE_MS) {
        const batch = await consumer.receive(32);
        if (batch.length === 0) continue;
        lastMessageAt = Date.now();
        for (const m of batch) seen.add(m);
        // The batch's ack (one BATCH_ACK per broker) runs while the next POP is out; a receiver
        // waits only for its previous ack, so at most one per receiver is pending.
        const t0 = process.hrtime.bigint();
        await acking;
        ackNanos += process.hrtime.bigint() - t0;
        acksPending++;
        acking = consumer.ack(batch).finally(() => {
          acksPending--;
          markEndWhenDone();
        });
      }
      await acking;
    };
    await Promise.all(Array.from({ length: RECEIVERS }, receiver));
  } finally {
    await consumer.shutdown();
  }
  const end = ended ?? { at: process.hrtime.bigint(), cpu: process.cpuUsage(startCpu) };
  const ms = Number(end.at - started) / 1e6;
  return {
    msgs: seen.size,
    ms: Math.round(ms),
    cpuMicros: end.cpu.user + end.cpu.system,
    ackMicrosPerMsg: seen.size === 0 ? 0 : Math.round(Number(ackNanos) / 1000 / seen.size),
    redelivered: seen.redelivered,
  };
}

async function main(): Promise<void> {
  const [first, topicArg, countArg] = process.argv.slice(2);
  if (topicArg !== undefined && countArg !== undefined && first !== undefined) {
    // `consumer-pop.js <namesrv> <topic> <count>`: one drain of an existing backlog, as JSON
    // (how bench/consumer.ts --mode pop runs it, in a process of its own).
    const r = await drainWithPop(first, topicArg, `bench_pop_g_${Date.now().toString(36)}`, Number(countArg));
    console.log(JSON.stringify({ ...r, msgsPerSec: Math.round((r.msgs * 1000) / Math.max(1, r.ms)) }));
    return;
  }
  const count = Number(first ?? 20_000);
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const producer = new Producer({
    producerGroup: 'bench_pop_pg',
    namesrvAddr: cluster.namesrvAddr,
    ...EXACT_BACKLOG,
  });
  try {
    const topic = `bench_pop_${Date.now().toString(36)}`;
    await cluster.createTopic(topic, 8);
    await producer.start();
    const body = Buffer.alloc(128, 'x');
    for (let sent = 0; sent < count;) {
      const n = Math.min(256, count - sent);
      await Promise.all(Array.from({ length: n }, () => producer.send({ topic, body })));
      sent += n;
    }
    const r = await drainWithPop(cluster.namesrvAddr, topic, `bench_pop_g_${Date.now().toString(36)}`, count);
    console.log(
      `POP drain: ${r.msgs} msgs in ${r.ms} ms = ${Math.round((r.msgs * 1000) / Math.max(1, r.ms))} msgs/s; ` +
        `CPU ${Math.round(r.cpuMicros / Math.max(1, r.msgs))} µs/msg; ack wait ${r.ackMicrosPerMsg} µs/msg`,
    );
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
