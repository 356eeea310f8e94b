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
import type {
  BrokerHealth,
  FailureKind,
  FaultStrategyHost,
  LatencyFaultStrategy,
} from './latency-fault-tolerance.js';
import { computeNotAvailableDuration } from './latency-fault-tolerance.js';

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

export class FaultItem49 {
  currentLatency = 0;
  startTimestamp = 0;
  constructor(readonly name: string) {}
  isAvailable(now: number): boolean {
    return now - this.startTimestamp >= 0;
  }
}

/** Java `FaultItem.compareTo`: available first, then lower latency, then earlier startTimestamp. */
export function compareFaultItems(a: FaultItem49, b: FaultItem49, now: number): number {
  const aa = a.isAvailable(now);
  const ba = b.isAvailable(now);
  if (aa !== ba) return aa ? -1 : 1;
  if (a.currentLatency !== b.currentLatency) return a.currentLatency < b.currentLatency ? -1 : 1;
  if (a.startTimestamp !== b.startTimestamp) return a.startTimestamp < b.startTimestamp ? -1 : 1;
  return 0;
}

export class Java49FaultStrategy implements LatencyFaultStrategy {
  readonly name = 'java-4.9';
  readonly items = new Map<string, FaultItem49>();
  private readonly whichItemWorst: SendWhichQueue;

  constructor(
    private readonly host: FaultStrategyHost,
    readonly latencyMax: readonly number[] = JAVA_49_LATENCY_MAX,
    readonly notAvailableDuration: readonly number[] = JAVA_49_NOT_AVAILABLE_DURATION,
  ) {
    this.whichItemWorst = new SendWhichQueue(host.random);
  }

  isAvailable(brokerName: string): boolean {
    const item = this.items.get(brokerName);
    return item === undefined || item.isAvailable(this.host.now());
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

  private update(brokerName: string, latency: number, isolation: boolean): void {
    const duration = computeNotAvailableDuration(
      isolation ? JAVA_49_FAILURE_LATENCY : latency,
      this.latencyMax,
      this.notAvailableDuration,
    );
    let item = this.items.get(brokerName);
    if (item === undefined) {
      item = new FaultItem49(brokerName);
      this.items.set(brokerName, item);
    }
    const wasAvailable = item.isAvailable(this.host.now());
    item.currentLatency = latency;
    item.startTimestamp = this.host.now() + duration;
    if (duration > 0 && wasAvailable) {
      this.host.onIsolated({
        brokerName,
        reason: isolation ? 'send failed' : `latency ${latency} ms`,
        untilMs: item.startTimestamp,
      });
    } else if (duration === 0 && !wasAvailable) {
      this.host.onRecovered({ brokerName });
    }
  }

  onSuccess(brokerName: string, latencyMs: number): void {
    this.update(brokerName, latencyMs, false);
  }

  /** Java 4.9 isolates on every RemotingException, MQClientException and MQBrokerException. */
  onFailure(brokerName: string, latencyMs: number, _kind: FailureKind): void {
    this.update(brokerName, latencyMs, true);
  }

  health(): BrokerHealth[] {
    const now = this.host.now();
    return [...this.items.values()].map((it) => {
      const isolated = !it.isAvailable(now);
      return {
        brokerName: it.name,
        isolated,
        ...(isolated ? { isolatedUntil: it.startTimestamp } : {}),
        latencyMs: it.currentLatency,
        failures: isolated ? 1 : 0,
        reachable: !isolated,
      };
    });
  }

  start(): void {}
  stop(): void {}
}
