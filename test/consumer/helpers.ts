/** Shared pieces of the push-consumer scenario tests: a cluster, a producer, waiting. */
import * as assert from 'node:assert/strict';
import { clientInstances } from '../../src/client/instance-registry.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';
import { parseFastjsonBytes } from '../../src/protocol/fastjson.js';
import { TopicReader } from '../topic-reader.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import type { PushConsumerOptions } from '../../src/consumer/push/options.js';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster, type EmbeddedClusterOptions } from '../../src/server/cluster.js';

let seq = 0;
/** A topic or group name unique in this process. */
export function unique(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now() % 100000}_${seq++}`;
}

/** Short intervals so scenarios finish in seconds (never NODE_ENV). */
export const FAST: Partial<PushConsumerOptions> = {
  rebalanceInterval: 500,
  persistConsumerOffsetInterval: 200,
  heartbeatBrokerInterval: 500,
  pollNameServerInterval: 500,
  brokerSuspendMaxTimeMillis: 1000,
  consumerTimeoutMillisWhenSuspend: 5000,
  pullTimeDelayMillsWhenException: 200,
  awaitTerminationMillisWhenShutdown: 5000,
};

export interface Harness {
  cluster: EmbeddedCluster;
  producer: Producer;
  consumers: PushConsumer[];
  consumer(options: Partial<PushConsumerOptions> & { consumerGroup: string }): PushConsumer;
  send(topic: string, count: number, tags?: (i: number) => string | undefined): Promise<string[]>;
  close(): Promise<void>;
}

export async function harness(options: Partial<EmbeddedClusterOptions> = {}): Promise<Harness> {
  const cluster = await EmbeddedCluster.start({ brokers: 2, ...options });
  // No hedged sends: on a loaded machine a hedge may store a message on both brokers (by design,
  // reported as 'hedgedDuplicate'), and these scenarios count every message exactly once.
  const producer = new Producer({
    producerGroup: unique('P'),
    namesrvAddr: cluster.namesrvAddr,
    hedgeSends: false,
  });
  await producer.start();
  const consumers: PushConsumer[] = [];
  let instance = 0;
  return {
    cluster,
    producer,
    consumers,
    consumer(o) {
      const c = new PushConsumer({
        namesrvAddr: cluster.namesrvAddr,
        instanceName: `c${instance++}`,
        ...FAST,
        ...o,
      });
      consumers.push(c);
      return c;
    },
    async send(topic, count, tags) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const r = await producer.send({ topic, body: `m${i}`, tags: tags?.(i) });
        ids.push(r.msgId);
      }
      return ids;
    },
    async close() {
      for (const c of consumers) await c.shutdown().catch(() => undefined);
      await producer.shutdown();
      await cluster.stop();
    },
  };
}

/** Polls `cond` every 20 ms until true; throws with `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Scenario {
  h: Harness;
  /** A fresh topic with the requested queues on every broker. */
  topic: string;
  /** A fresh consumer group. */
  group: string;
}

/** Runs `fn` on a fresh cluster with a fresh topic and group; always cleans up. */
export async function scenario(
  options: Partial<EmbeddedClusterOptions>,
  queues: number,
  fn: (s: Scenario) => Promise<void>,
): Promise<void> {
  const h = await harness(options);
  try {
    const topic = unique('T');
    await h.cluster.createTopic(topic, queues);
    await fn({ h, topic, group: unique('G') });
  } finally {
    await h.close();
  }
}

/** Sends batches of `batch` messages until `stop()`; `sent` grows as they are acknowledged. */
export function stream(h: Harness, topic: string, batch: number): { sent: string[]; stop(): Promise<void> } {
  const sent: string[] = [];
  let sending = true;
  const loop = (async () => {
    while (sending) {
      sent.push(...(await h.send(topic, batch)));
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    sent,
    async stop() {
      sending = false;
      await loop;
    },
  };
}

/** A msgId → delivery count map and a handler that fills it. */
export function deliveries(): { seen: Map<string, number>; count(msgId: string): void } {
  const seen = new Map<string, number>();
  return { seen, count: (id) => void seen.set(id, (seen.get(id) ?? 0) + 1) };
}

/** Bodies of every message in `topic` (e.g. a DLQ), polling until there is one or `timeoutMs`. */
export async function readTopicWhenPresent(
  namesrvAddr: string,
  topic: string,
  timeoutMs = 10_000,
): Promise<string[]> {
  const reader = new TopicReader(namesrvAddr);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const bodies: string[] = [];
      try {
        for await (const m of reader.readTopic(topic)) bodies.push(m.body.toString());
      } catch {
        // the topic's route may not be registered yet
      }
      if (bodies.length > 0 || Date.now() > deadline) return bodies;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await reader.close();
  }
}

/** The statusTable row of `topic` in what the consumer answers a broker's GET_CONSUMER_RUNNING_INFO. */
export async function runningStatus(
  clientId: string,
  group: string,
  topic: string,
): Promise<Record<string, number>> {
  const instance = clientInstances().find((i) => i.clientId === clientId)!;
  const response = await instance.inbound.dispatch(
    createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: group, clientId }),
    { remoteAddress: '127.0.0.1:1' } as never,
  );
  assert.equal(response?.code, ResponseCode.SUCCESS);
  const info = parseFastjsonBytes(response!.body!) as { statusTable: Record<string, Record<string, number>> };
  return info.statusTable[topic]!;
}

/** Calls `fn` with each whole line a child process writes to `stream` (its stdout). */
export function eachLine(stream: NodeJS.ReadableStream, fn: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) fn(line);
  });
}
