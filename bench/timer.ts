/**
 * Timer-message delivery error on the embedded cluster (2 brokers in a child process): N messages
 * with random `deliverAfterMs` within a window are sent; a push consumer notes when each arrives. Error = arrival − (send
 * start + delay). Prints p50 / p99 / max error and how many arrived early (there should be none).
 *
 *   node build/bench/timer.js [--count 2000] [--window 5000]
 *
 * Prints figures; asserts nothing.
 */
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { forkClusterChild } from './cluster-child.js';
import { PushConsumer } from '../src/consumer/push/push-consumer.js';
import { Producer } from '../src/producer/producer.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    window: { type: 'string', default: '5000' },
  },
});
const count = Number(values.count);
const windowMs = Number(values.window);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  // The cluster runs in a child (bench/producer.ts's cluster mode), so the send burst and the
  // consumer here do not share an event loop with the broker's timer.
  const topic = 'BenchTimer';
  const child = forkClusterChild(topic);
  const [msg] = (await once(child, 'message')) as [{ namesrvAddr: string }];
  const namesrvAddr = msg.namesrvAddr;
  const producer = new Producer({ namesrvAddr, producerGroup: 'bench_timer_p' });
  const consumer = new PushConsumer({
    namesrvAddr,
    consumerGroup: 'bench_timer_c',
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    consumeThreadMax: 64,
  });
  const due = new Map<string, number>();
  const errors: number[] = [];
  /** Broker part of the error: TIMER_DEQUEUE_MS − TIMER_OUT_MS. */
  const brokerErrors: number[] = [];
  let early = 0;
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => (done = r));
  try {
    await producer.start();
    consumer.subscribe(topic);
    await consumer.start((m) => {
      const at = due.get(m.msgId);
      if (at === undefined) return;
      due.delete(m.msgId);
      const err = Date.now() - at;
      if (err < 0) early++;
      errors.push(err);
      const out = Number(m.systemProperties['TIMER_OUT_MS']);
      const dequeued = Number(m.systemProperties['TIMER_DEQUEUE_MS']);
      if (Number.isFinite(out) && Number.isFinite(dequeued)) brokerErrors.push(dequeued - out);
      if (errors.length === count) done();
    });
    const sendStart = Date.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      const delay = Math.floor(Math.random() * windowMs);
      const before = Date.now();
      sends.push(
        producer.send({ topic, body: `t${i}`, deliverAfterMs: delay }).then((r) => {
          // The broker counts the delay from when it stored the message: no earlier than `before`.
          due.set(r.msgId, before + delay);
        }),
      );
      if (sends.length >= 64) await Promise.all(sends.splice(0));
    }
    await Promise.all(sends);
    const sendMs = Date.now() - sendStart;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, windowMs + 15_000)))]);
    clearTimeout(timer);
    const sorted = [...errors].sort((a, b) => a - b);
    console.log(
      `timer delivery error over ${errors.length}/${count} messages, delays in [0, ${windowMs}) ms:`,
    );
    console.log(
      `  p50 ${pct(sorted, 50)} ms   p99 ${pct(sorted, 99)} ms   max ${sorted.at(-1) ?? NaN} ms   early ${early}` +
        `   (sending took ${sendMs} ms)`,
    );
    const b = [...brokerErrors].sort((x, y) => x - y);
    console.log(
      `  broker part (dequeue − due): p50 ${pct(b, 50)} ms   p99 ${pct(b, 99)} ms   max ${b.at(-1) ?? NaN} ms`,
    );
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
    child.send({ stop: true });
    await once(child, 'exit');
  }
}

await main();
