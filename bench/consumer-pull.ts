/**
 * `--mode pull` of the consumer benchmark (bench/consumer.ts calls it): one LitePullConsumer
 * with a fresh group subscribes `topic` from the first offset and polls until `count` messages
 * arrived. Like the push figures, the clock runs from the first message to the last, so start-up
 * and the first rebalance are not counted; cpuMicros is this process's user + system CPU over the
 * same span.
 */
import { LitePullConsumer } from '../src/consumer/lite-pull/lite-pull-consumer.js';
import type { LitePullConsumerOptions } from '../src/consumer/lite-pull/options.js';

export interface PullDrainResult {
  /** Messages polled (distinct offsets; a poll never repeats one). */
  msgs: number;
  /** First message to last (ms). */
  ms: number;
  cpuMicros: number;
}

export async function drainWithLitePull(
  namesrv: string,
  topic: string,
  group: string,
  count: number,
  options: Partial<LitePullConsumerOptions> = {},
  timeoutMs = 300_000,
): Promise<PullDrainResult> {
  const consumer = new LitePullConsumer({
    consumerGroup: group,
    namesrvAddr: namesrv,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    ...options,
  });
  consumer.subscribe(topic, '*');
  await consumer.start();
  try {
    const deadline = Date.now() + timeoutMs;
    let msgs = 0;
    let t0 = 0;
    let cpu0: NodeJS.CpuUsage | undefined;
    let t1 = 0;
    let cpu1: NodeJS.CpuUsage | undefined;
    while (msgs < count) {
      if (Date.now() > deadline) throw new Error(`pull drain timed out after ${msgs} of ${count} messages`);
      const got = await consumer.poll(1000);
      if (got.length === 0) continue;
      if (cpu0 === undefined) {
        t0 = performance.now();
        cpu0 = process.cpuUsage();
      }
      msgs += got.length;
      t1 = performance.now();
      cpu1 = process.cpuUsage(cpu0);
    }
    return { msgs, ms: t1 - t0, cpuMicros: cpu1 === undefined ? 0 : cpu1.user + cpu1.system };
  } finally {
    await consumer.shutdown();
  }
}

/** `node build/bench/consumer-pull.js <namesrv> <topic> <count>`: one drain, printed as JSON. */
async function main(): Promise<void> {
  const [namesrv, topic, count] = process.argv.slice(2);
  if (namesrv === undefined || topic === undefined || count === undefined) {
    console.error('usage: consumer-pull.js <namesrv host:port> <topic> <count>');
    process.exitCode = 2;
    return;
  }
  const r = await drainWithLitePull(namesrv, topic, `bench_pull_${Date.now()}`, Number(count));
  console.log(JSON.stringify({ ...r, msgsPerSec: Math.round((r.msgs / r.ms) * 1000) }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
