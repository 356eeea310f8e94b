/** Shared pieces of the SimpleConsumer (POP) scenario tests. */
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import type { SimpleConsumerOptions } from '../../src/consumer/simple/options.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import { harness, unique, type Harness } from './helpers.js';
import type { EmbeddedClusterOptions } from '../../src/server/cluster.js';

export interface PopScenario {
  h: Harness;
  topic: string;
  group: string;
  /** A started SimpleConsumer on `topic` (closed by the scenario). */
  consumer(o?: Partial<SimpleConsumerOptions>): Promise<SimpleConsumer>;
}

/** Short polls and a long invisible time: scenarios finish in seconds and nothing expires by accident. */
export const POP_TEST_OPTIONS = Object.freeze({
  awaitDuration: 300,
  invisibleDuration: 30_000,
  pollNameServerInterval: 500,
});

/** A cluster whose brokers revive expired POP checkpoints every 100 ms. */
export async function popScenario(
  options: Partial<EmbeddedClusterOptions>,
  queues: number,
  fn: (s: PopScenario) => Promise<void>,
): Promise<void> {
  const h = await harness({
    brokers: 1,
    ...options,
    brokerOptions: { reviveInterval: 100, ...(options.brokerOptions ?? {}) },
  });
  const consumers: SimpleConsumer[] = [];
  try {
    const topic = unique('PopT');
    const group = unique('PopG');
    await h.cluster.createTopic(topic, queues);
    await fn({
      h,
      topic,
      group,
      async consumer(o = {}) {
        const c = new SimpleConsumer({
          namesrvAddr: h.cluster.namesrvAddr,
          consumerGroup: group,
          subscriptions: { [topic]: '*' },
          ...POP_TEST_OPTIONS,
          ...o,
        });
        consumers.push(c);
        await c.start();
        return c;
      },
    });
  } finally {
    for (const c of consumers) await c.shutdown().catch(() => undefined);
    await h.close();
  }
}

/** Receives until `count` messages came or `timeoutMs` passed (then returns what it has). */
export async function receiveAtLeast(
  c: SimpleConsumer,
  count: number,
  invisibleMs?: number,
  timeoutMs = 10_000,
): Promise<PoppedMessage[]> {
  const out: PoppedMessage[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count && Date.now() < deadline) out.push(...(await c.receive(32, invisibleMs)));
  return out;
}
