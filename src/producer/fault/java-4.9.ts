/**
 * Java 4.9 `MQFaultStrategy` + `LatencyFaultToleranceImpl`, reproduced from the 4.9.x source:
 * - thresholds {50,100,550,1000,2000,3000,15000} ms → isolation {0,0,30000,60000,120000,180000,600000} ms;
 * - every success updates the broker with its latency; a failure counts as 30000 ms → 600000 ms;
 * - selection: round robin over available brokers, **ignoring lastBrokerName** (a Java 4.9
 *   quirk; the send loop adds the avoid-last guard on top); if none is available, a broker from
 *   the better half of the fault items (`pickOneAtLeast`) with a queue id from the shared
 *   counter; if that broker is gone from the route, its fault item is removed and plain round
 *   robin is used.
 * Unlike Java we never mutate the shared queue object (Java's `mq.setBrokerName` does).
 */
import type { MessageQueue } from '../../client/route.js';
import type { TopicPublishInfo } from '../../client/topic-publish-info.js';
import { SendWhichQueue } from '../../client/topic-publish-info.js';
import type { FailureKind, FaultStrategyHost, LatencyFaultStrategy } from './latency-fault-tolerance.js';
import { FaultItem, JavaFaultItems } from './java-fault-items.js';

export const JAVA_49_LATENCY_MAX: readonly number[] = Object.freeze([50, 100, 550, 1000, 2000, 3000, 15000]);
export const JAVA_49_NOT_AVAILABLE_DURATION: readonly number[] = Object.freeze([
  0, 0, 30000, 60000, 120000, 180000, 600000,
]);
/** The latency a failed send is counted as. */
export const JAVA_49_FAILURE_LATENCY = 30000;

/** Java's int `Math.abs`: abs(MIN_VALUE) stays negative. */
function javaAbs(x: number): number {
  return x === -2147483648 ? x : Math.abs(x);
}

/** Java `FaultItem.compareTo`: available first, then lower latency, then earlier startTimestamp. */
export function compareFaultItems(a: FaultItem, b: FaultItem, now: number): number {
  const aa = a.isAvailable(now);
  const ba = b.isAvailable(now);
  if (aa !== ba) return aa ? -1 : 1;
  if (a.currentLatency !== b.currentLatency) return a.currentLatency < b.currentLatency ? -1 : 1;
  if (a.startTimestamp !== b.startTimestamp) return a.startTimestamp < b.startTimestamp ? -1 : 1;
  return 0;
}

export class Java49FaultStrategy extends JavaFaultItems implements LatencyFaultStrategy {
  readonly name = 'java-4.9';
  private readonly whichItemWorst: SendWhichQueue;

  constructor(
    host: FaultStrategyHost,
    latencyMax: readonly number[] = JAVA_49_LATENCY_MAX,
    notAvailableDuration: readonly number[] = JAVA_49_NOT_AVAILABLE_DURATION,
  ) {
    super(host, {
      latencyMax,
      notAvailableDuration,
      failureLatency: JAVA_49_FAILURE_LATENCY,
      extendOnly: false,
    });
    this.whichItemWorst = new SendWhichQueue(host.random);
  }

  /** `pickOneAtLeast`: sort all fault items, pick round robin within the better half. */
  pickOneAtLeast(): string | undefined {
    const now = this.host.now();
    const list = [...this.items.values()].sort((a, b) => compareFaultItems(a, b, now));
    if (list.length === 0) return undefined;
    const half = Math.floor(list.length / 2);
    if (half <= 0) return list[0]?.name;
    return list[this.whichItemWorst.incrementAndGet() % half]?.name;
  }

  select(tp: TopicPublishInfo): MessageQueue {
    const queues = tp.queues;
    const n = queues.length;
    let index = tp.sendWhichQueue.incrementAndGet();
    for (let i = 0; i < n; i++) {
      let pos = javaAbs(index) % n;
      index = (index + 1) | 0;
      if (pos < 0) pos = 0;
      const mq = queues[pos] as MessageQueue;
      if (this.isAvailable(mq.brokerName)) return mq;
    }
    const notBestBroker = this.pickOneAtLeast();
    const writeQueueNums = tp.writeQueueNumsOf(notBestBroker);
    if (writeQueueNums > 0) {
      const mq = tp.selectOne();
      if (notBestBroker !== undefined) {
        return {
          topic: mq.topic,
          brokerName: notBestBroker,
          queueId: tp.sendWhichQueue.incrementAndGet() % writeQueueNums,
        };
      }
      return mq;
    }
    if (notBestBroker !== undefined) this.items.delete(notBestBroker);
    return tp.selectOne();
  }

  onSuccess(brokerName: string, latencyMs: number): void {
    this.updateItem(brokerName, latencyMs, false);
  }

  /** Java 4.9 isolates on every RemotingException, MQClientException and MQBrokerException. */
  onFailure(brokerName: string, latencyMs: number, _kind: FailureKind): void {
    this.updateItem(brokerName, latencyMs, true);
  }

  /** Java 4.9 has no reachability: a broker is reachable when not isolated. */
  protected reachable(_item: FaultItem, isolated: boolean): boolean {
    return !isolated;
  }

  start(): void {}
  stop(): void {}
}
