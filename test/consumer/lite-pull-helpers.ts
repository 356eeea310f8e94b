/** Shared pieces of the lite pull consumer scenario tests: a cluster, a producer, consumers. */
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import type { LitePullConsumerOptions } from '../../src/consumer/lite-pull/options.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { EmbeddedClusterOptions } from '../../src/server/cluster.js';
import { harness, unique, type Harness } from './helpers.js';

/** Short intervals so scenarios finish in seconds. */
export const LITE_FAST: Partial<LitePullConsumerOptions> = {
  rebalanceInterval: 500,
  autoCommitIntervalMillis: 200,
  heartbeatBrokerInterval: 500,
  pollNameServerInterval: 500,
  brokerSuspendMaxTimeMillis: 1000,
  consumerTimeoutMillisWhenSuspend: 5000,
  pullTimeDelayMillsWhenException: 200,
  pollTimeoutMillis: 1000,
};

export interface LiteScenario {
  h: Harness;
  topic: string;
  group: string;
  consumer(o?: Partial<LitePullConsumerOptions>): LitePullConsumer;
}

/** A fresh cluster, topic (`queues` per broker) and group; every consumer is shut down after. */
export async function liteScenario(
  options: Partial<EmbeddedClusterOptions>,
  queues: number,
  fn: (s: LiteScenario) => Promise<void>,
): Promise<void> {
  const h = await harness(options);
  const consumers: LitePullConsumer[] = [];
  let instance = 0;
  try {
    const topic = unique('T');
    await h.cluster.createTopic(topic, queues);
    const group = unique('G');
    await fn({
      h,
      topic,
      group,
      consumer(o = {}) {
        const c = new LitePullConsumer({
          consumerGroup: group,
          namesrvAddr: h.cluster.namesrvAddr,
          instanceName: `lite${instance++}`,
          ...LITE_FAST,
          ...o,
        });
        consumers.push(c);
        return c;
      },
    });
  } finally {
    for (const c of consumers) await c.shutdown().catch(() => undefined);
    await h.close();
  }
}

/** Polls until `count` messages arrived (or throws after `timeoutMs`). */
export async function pollUntil(
  c: LitePullConsumer,
  count: number,
  timeoutMs = 10_000,
): Promise<ConsumerMessage[]> {
  const out: ConsumerMessage[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    if (Date.now() > deadline) throw new Error(`timed out with ${out.length} of ${count} messages`);
    out.push(...(await c.poll(200)));
  }
  return out;
}
