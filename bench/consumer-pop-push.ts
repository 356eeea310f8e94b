/**
 * `--mode pop-push` of the consumer benchmark (bench/consumer.ts calls it): the group is switched to
 * POP (Admin.setMessageRequestMode, popShareQueueNum 0), then one PushConsumer with
 * `clientRebalance: false` drains the backlog from the first offset, acking every message. As the
 * other drains, the clock runs from the first message to the last; cpuMicros is this process's
 * user + system CPU over the same span. POP is at-least-once: an offset received again (its ack
 * reached the broker after the invisible time) is counted once and reported as `redelivered`.
 */
import { Admin } from '../src/admin/admin.js';
import type { ConsumerMessage } from '../src/consumer/core/message-view.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import { OffsetsSeen } from './consumer-pop.js';

export interface PopPushDrainResult {
  msgs: number;
  ms: number;
  cpuMicros: number;
  redelivered: number;
}

export async function drainWithPopPush(
  namesrv: string,
  topic: string,
  group: string,
  count: number,
  timeoutMs = 300_000,
): Promise<PopPushDrainResult> {
  const admin = new Admin({ namesrvAddr: namesrv });
  try {
    await admin.setMessageRequestMode(topic, group, 'POP', 0);
  } finally {
    await admin.shutdown();
  }
  const consumer = new PushConsumer({
    namesrvAddr: namesrv,
    consumerGroup: group,
    clientRebalance: false,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, '*');
  // A number set per queue (bench/consumer-pop.ts): a string key per message was charged to the
  // client's CPU, and the pull-mode row only counts.
  const seen = new OffsetsSeen();
  let t0 = 0;
  let t1 = 0;
  let cpu0: NodeJS.CpuUsage | undefined;
  let cpu1: NodeJS.CpuUsage | undefined;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  await consumer.start((m: ConsumerMessage) => {
    if (cpu0 === undefined) {
      t0 = performance.now();
      cpu0 = process.cpuUsage();
    }
    seen.add(m);
    if (seen.size === count) {
      t1 = performance.now();
      cpu1 = process.cpuUsage(cpu0);
      finished();
    }
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      done,
      new Promise<void>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`pop-push drain timed out after ${seen.size} of ${count} messages`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await consumer.shutdown();
  }
  return {
    msgs: seen.size,
    ms: t1 - t0,
    cpuMicros: cpu1 === undefined ? 0 : cpu1.user + cpu1.system,
    redelivered: seen.redelivered,
  };
}

/** `node build/bench/consumer-pop-push.js <namesrv> <topic> <count>`: one drain, printed as JSON. */
async function main(): Promise<void> {
  const [namesrv, topic, count] = process.argv.slice(2);
  if (namesrv === undefined || topic === undefined || count === undefined) {
    console.error('usage: consumer-pop-push.js <namesrv host:port> <topic> <count>');
    process.exitCode = 2;
    return;
  }
  const r = await drainWithPopPush(namesrv, topic, `bench_poppush_${Date.now()}`, Number(count));
  console.log(JSON.stringify({ ...r, msgsPerSec: Math.round((r.msgs / r.ms) * 1000) }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
