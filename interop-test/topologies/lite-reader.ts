/**
 * Our LitePullConsumer reading a SendTraffic topic back (subscribe mode, from the first offset,
 * a poll loop in the background), plus what the lite-pull slave-read scenario checks at the
 * brokers themselves: whether a broker served this group's pulls (its `GROUP_GET_NUMS` stats
 * item for `topic@group`, which a 4.9 broker creates on the first pull that found messages) and
 * the offsets committed at the master.
 */
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { ViewBrokerStatsData } from '../../src/protocol/headers/broker-admin.js';
import { QueryConsumerOffset } from '../../src/protocol/headers/offset.js';
import { rawRequest } from '../raw-remoting.js';
import { waitUntil } from './topology.js';
import { ReadBack, pullFailureLogger } from './traffic.js';

export class LiteReader extends ReadBack {
  /** Broker address → pulls that failed there. */
  readonly pullFailures = new Map<string, number>();
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  private readonly consumer: LitePullConsumer;

  private constructor(
    namesrvAddr: string,
    readonly topic: string,
    readonly group: string,
  ) {
    super();
    this.consumer = new LitePullConsumer({
      consumerGroup: group,
      namesrvAddr,
      instanceName: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      logger: pullFailureLogger(this.pullFailures),
    });
  }

  static async start(namesrvAddr: string, topic: string, group: string): Promise<LiteReader> {
    const reader = new LiteReader(namesrvAddr, topic, group);
    reader.consumer.subscribe(topic, '*');
    await reader.consumer.start();
    reader.loop = reader.pollLoop();
    return reader;
  }

  private async pollLoop(): Promise<void> {
    while (this.running) {
      const messages = await this.consumer.poll(500).catch(() => []);
      for (const m of messages) this.note(m.body, m.queue.brokerName);
    }
  }

  /** True once the broker at `address` served this group messages of the topic. */
  async servedBy(address: string): Promise<boolean> {
    const header = ViewBrokerStatsData.encode({
      statsName: 'GROUP_GET_NUMS',
      statsKey: `${this.topic}@${this.group}`,
    });
    const res = await rawRequest(address, ViewBrokerStatsData.code, header).catch(() => undefined);
    return res?.code === 0;
  }

  /** Waits until the broker at `address` served this group's pulls. */
  waitForReadsAt(address: string, timeoutMs: number): Promise<void> {
    return waitUntil(
      `${address} serving pulls of ${this.group}`,
      () => this.servedBy(address),
      timeoutMs,
      500,
    );
  }

  /** The group's committed offset of each queue (0..queues-1) at the broker `address`; -1: none. */
  async committedAt(address: string, queues = 4): Promise<number[]> {
    const out: number[] = [];
    for (let queueId = 0; queueId < queues; queueId++) {
      const header = QueryConsumerOffset.encode({ consumerGroup: this.group, topic: this.topic, queueId });
      const res = await rawRequest(address, QueryConsumerOffset.code, header);
      out.push(res.code === 0 ? Number(res.extFields?.['offset'] ?? -1) : -1);
    }
    return out;
  }

  async shutdown(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.consumer.shutdown();
  }
}
