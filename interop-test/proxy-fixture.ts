/**
 * What the proxy-*.test.ts files share: a 5.5.0 cluster with the 5.x Proxy in front (one broker,
 * timer wheel and recall on, quick transaction checks), typed topics created at the broker, a
 * counter of the requests our clients send, and a collector for what consumers receive.
 */
import * as assert from 'node:assert/strict';
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import { ResponseCode, RequestCode } from '../src/protocol/codes.js';
import { UpdateAndCreateTopic } from '../src/protocol/headers/admin.js';
import { MESSAGE_TYPE_ATTRIBUTE, type TopicMessageType } from '../src/protocol/message/message-type.js';
import type { RequestTraceContext } from '../src/observability/channels.js';
import { rawRequest } from './raw-remoting.js';
import { RealCluster, type RealClusterOptions } from './real-cluster.js';

/**
 * Broker settings every Proxy file needs: the timer wheel (deliverAfterMs, recall, POP revive),
 * recall (`recallMessageEnable`, off by default), and transaction checks every second.
 */
export const PROXY_BROKER_CONFIG: Readonly<Record<string, string | number | boolean>> = Object.freeze({
  timerWheelEnable: true,
  recallMessageEnable: true,
  transactionCheckInterval: 1000,
  transactionTimeOut: 1000,
});

/**
 * The Proxy registers a transaction producer group with the brokers only on its own heartbeat
 * (`transactionHeartbeatPeriodSecond`, 20 s); until then a broker's check-back finds no channel
 * and counts a failed check, and with 1 s checks `transactionCheckMax` (15) runs out first.
 */
export const PROXY_CONFIG: Readonly<Record<string, number>> = Object.freeze({
  transactionHeartbeatPeriodSecond: 2,
});

/** RocketMQ 5.5.0, one broker (`broker-a`), the Proxy in front with its type check on. */
export function startProxyCluster(options: Partial<RealClusterOptions> = {}): Promise<RealCluster> {
  return RealCluster.start({
    version: '5.5.0',
    brokers: ['broker-a'],
    proxy: { config: PROXY_CONFIG },
    // Five JVMs' worth of start-up on a shared 2-core machine can take minutes.
    startTimeoutMs: 300_000,
    ...options,
    brokerConfig: { ...PROXY_BROKER_CONFIG, ...options.brokerConfig },
  });
}

/** The one cluster a test file shares among the test modules it runs (proxy-cluster.test.ts). */
export class ProxyEnv {
  private current: RealCluster | undefined;
  get cluster(): RealCluster {
    if (this.current === undefined) throw new Error('the Proxy cluster is not started (before hook)');
    return this.current;
  }
  async start(options: Partial<RealClusterOptions> = {}): Promise<void> {
    this.current = await startProxyCluster(options);
  }
  async stop(): Promise<void> {
    await this.current?.stop();
  }
}

export async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * UPDATE_AND_CREATE_TOPIC with `+message.type=<type>` at every broker (a FIFO topic also
 * `order=true`, as mqadmin's `updateTopic -o true`), then waits until the route the Proxy serves
 * has it. The Proxy itself serves no admin codes, so topics are made at the brokers.
 */
export async function createTypedTopic(
  cluster: RealCluster,
  topic: string,
  type: TopicMessageType,
  queues = 4,
): Promise<void> {
  for (const b of cluster.brokers) {
    const r = await rawRequest(
      b.addr,
      UpdateAndCreateTopic.code,
      UpdateAndCreateTopic.encode({
        topic,
        defaultTopic: 'TBW102',
        readQueueNums: queues,
        writeQueueNums: queues,
        perm: 6,
        topicFilterType: 'SINGLE_TAG',
        order: type === 'FIFO',
        attributes: `+${MESSAGE_TYPE_ATTRIBUTE}=${type}`,
      }),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  }
  await waitForProxyRoute(cluster, topic);
}

/** Until the Proxy answers a route for `topic` (it asks the NameServer, which the broker told). */
export async function waitForProxyRoute(cluster: RealCluster, topic: string): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await rawRequest(cluster.proxyAddr, RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic });
    if (r.code === ResponseCode.SUCCESS) return;
    if (Date.now() > end) throw new Error(`the Proxy has no route for ${topic}: ${r.code} ${r.remark}`);
    await sleep(250);
  }
}

/**
 * Counts the requests with one of `codes` our clients write from now until `stop()`, from the
 * `rocketmq:request` tracing channel.
 */
export function countRequests(codes: Iterable<number>): { count(): number; stop(): void } {
  const wanted = new Set(codes);
  let n = 0;
  const onStart = (message: unknown): void => {
    if (wanted.has((message as RequestTraceContext).code)) n++;
  };
  diagnosticsChannel.subscribe('tracing:rocketmq:request:start', onStart);
  return {
    count: () => n,
    stop: () => diagnosticsChannel.unsubscribe('tracing:rocketmq:request:start', onStart),
  };
}

/**
 * The send requests (SEND_MESSAGE, _V2, SEND_BATCH) our clients write while `fn` runs: one
 * request means the producer did not retry.
 */
export async function countSends<T>(
  fn: () => Promise<T>,
): Promise<{ sends: number; result: PromiseSettledResult<T> }> {
  const counter = countRequests([
    RequestCode.SEND_MESSAGE,
    RequestCode.SEND_MESSAGE_V2,
    RequestCode.SEND_BATCH_MESSAGE,
  ]);
  try {
    const [result] = await Promise.allSettled([fn()]);
    return { sends: counter.count(), result: result! };
  } finally {
    counter.stop();
  }
}
