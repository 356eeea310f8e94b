/**
 * The publish view of one topic and its round-robin queue choice (Java `TopicPublishInfo`).
 * `sendWhichQueue` is Java's ThreadLocalIndex: one counter with a random start; in an event
 * loop "per thread" is simply "per topic".
 */
import type { MessageQueue, RouteData } from './route.js';
import { publishQueues } from './route.js';

/** Java `ThreadLocalIndex`: an int32 counter starting at a random value, read as non-negative. */
export class SendWhichQueue {
  private value: number;
  constructor(
    private readonly random: () => number = Math.random,
    start?: number,
  ) {
    this.value = start ?? Math.floor(this.random() * 0x7fffffff);
  }
  /** Next index, always in [0, 2^31). */
  incrementAndGet(): number {
    this.value = (this.value + 1) | 0;
    return this.value & 0x7fffffff;
  }
  /** Java 5 `resetIndex()`: jump to a fresh random position. */
  reset(): void {
    this.value = Math.floor(this.random() * 0x7fffffff);
  }
}

export type QueueFilter = (mq: MessageQueue) => boolean;

/** Queues not on `brokerName` (every queue when undefined). */
export function notOn(brokerName: string | undefined): QueueFilter {
  return (mq) => mq.brokerName !== brokerName;
}

export class TopicPublishInfo {
  readonly queues: readonly MessageQueue[];
  /** Broker names in route order, each once. */
  readonly brokerNames: readonly string[];
  /** Index in `brokerNames` of each queue's broker (per-send strategies avoid string lookups). */
  readonly queueBroker: readonly number[];

  constructor(
    readonly topic: string,
    readonly route: RouteData,
    /** True when built from the `createTopicKey` (TBW102) route. */
    readonly fromDefaultTopic = false,
    readonly sendWhichQueue: SendWhichQueue = new SendWhichQueue(),
  ) {
    this.queues = Object.freeze(publishQueues(topic, route));
    this.brokerNames = Object.freeze([...new Set(this.queues.map((q) => q.brokerName))]);
    this.queueBroker = Object.freeze(this.queues.map((q) => this.brokerNames.indexOf(q.brokerName)));
  }

  ok(): boolean {
    return this.queues.length > 0;
  }

  /** Plain round robin (Java `selectOneMessageQueue()`). */
  selectOne(): MessageQueue {
    const n = this.queues.length;
    return this.queues[this.sendWhichQueue.incrementAndGet() % n] as MessageQueue;
  }

  /**
   * Java `selectOneMessageQueue(lastBrokerName)`: round robin, skipping queues of `avoid`; if
   * every queue is on that broker, plain round robin. With `available`, queues of available
   * brokers other than `avoid` come first, then any broker but `avoid`.
   */
  selectAvoiding(avoid: string | undefined, available?: (brokerName: string) => boolean): MessageQueue {
    if (avoid === undefined) return this.selectOne();
    const other = notOn(avoid);
    if (available !== undefined) {
      const mq = this.selectFiltered(other, (q) => available(q.brokerName));
      if (mq !== undefined) return mq;
    }
    return this.selectFiltered(other) ?? this.selectOne();
  }

  /** Java 5 `selectOneMessageQueue(filters...)`: the first queue in round-robin order passing every filter. */
  selectFiltered(...filters: QueueFilter[]): MessageQueue | undefined {
    const n = this.queues.length;
    for (let i = 0; i < n; i++) {
      const mq = this.queues[this.sendWhichQueue.incrementAndGet() % n] as MessageQueue;
      if (filters.every((f) => f(mq))) return mq;
    }
    return undefined;
  }

  /** Write queue count of `brokerName` in the route, -1 when absent (Java `getQueueIdByBroker`). */
  writeQueueNumsOf(brokerName: string | undefined): number {
    if (brokerName === undefined) return -1;
    for (const qd of this.route.queueDatas) if (qd.brokerName === brokerName) return qd.writeQueueNums;
    return -1;
  }

  /** A new view over a new route that keeps the round-robin position. */
  withRoute(route: RouteData, fromDefaultTopic: boolean): TopicPublishInfo {
    return new TopicPublishInfo(this.topic, route, fromDefaultTopic, this.sendWhichQueue);
  }
}
