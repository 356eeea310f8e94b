/**
 * Java 5.1.4+ `MQFaultStrategy` + `LatencyFaultToleranceImpl`:
 * - thresholds {50,100,550,1800,3000,5000,15000} ms → isolation {0,0,2000,5000,6000,10000,30000} ms;
 * - a failure counts as 10000 ms → 10 s isolation; isolation is only ever extended, never shortened;
 * - every retry resets the round-robin index to a random position;
 * - selection: available and not the last broker, then reachable and not the last broker, then any;
 * - transport and broker failures mark the broker unreachable; a detector (every 3 s, each item at
 *   most every `detectInterval`) probes those brokers and marks them reachable again when they
 *   answer, and drops items of brokers no route names any more.
 * Java runs the detector only with `startDetectorEnable`; this strategy always runs it.
 */
import type { MessageQueue } from '../../client/route.js';
import type { TopicPublishInfo } from '../../client/topic-publish-info.js';
import type {
  BrokerHealth,
  FailureKind,
  FaultStrategyHost,
  LatencyFaultStrategy,
} from './latency-fault-tolerance.js';
import { computeNotAvailableDuration } from './latency-fault-tolerance.js';

export const JAVA_5_LATENCY_MAX: readonly number[] = Object.freeze([50, 100, 550, 1800, 3000, 5000, 15000]);
export const JAVA_5_NOT_AVAILABLE_DURATION: readonly number[] = Object.freeze([
  0, 0, 2000, 5000, 6000, 10000, 30000,
]);
export const JAVA_5_FAILURE_LATENCY = 10000;
/** Java's fixed detector period. */
export const JAVA_5_DETECT_PERIOD = 3000;

export class FaultItem5 {
  currentLatency = 0;
  startTimestamp = 0;
  checkStamp = 0;
  reachable = false;
  constructor(readonly name: string) {}
  isAvailable(now: number): boolean {
    return now >= this.startTimestamp;
  }
}

export interface Java5Settings {
  latencyMax?: readonly number[] | undefined;
  notAvailableDuration?: readonly number[] | undefined;
  /** @default 2000 */
  detectInterval?: number | undefined;
  /** @default 200 */
  detectTimeout?: number | undefined;
}

export class Java5FaultStrategy implements LatencyFaultStrategy {
  readonly name = 'java-5';
  readonly items = new Map<string, FaultItem5>();
  readonly latencyMax: readonly number[];
  readonly notAvailableDuration: readonly number[];
  private readonly detectInterval: number;
  private readonly detectTimeout: number;
  private timer: NodeJS.Timeout | undefined;
  private detecting = false;

  constructor(
    private readonly host: FaultStrategyHost,
    settings: Java5Settings = {},
  ) {
    this.latencyMax = settings.latencyMax ?? JAVA_5_LATENCY_MAX;
    this.notAvailableDuration = settings.notAvailableDuration ?? JAVA_5_NOT_AVAILABLE_DURATION;
    this.detectInterval = settings.detectInterval ?? 2000;
    this.detectTimeout = settings.detectTimeout ?? 200;
  }

  isAvailable(brokerName: string): boolean {
    const item = this.items.get(brokerName);
    return item === undefined || item.isAvailable(this.host.now());
  }

  isReachable(brokerName: string): boolean {
    const item = this.items.get(brokerName);
    return item === undefined || item.reachable;
  }

  select(tp: TopicPublishInfo, lastBrokerName: string | undefined, attempt: number): MessageQueue {
    if (attempt > 0) tp.sendWhichQueue.reset();
    const notLast = (mq: MessageQueue): boolean =>
      lastBrokerName === undefined || mq.brokerName !== lastBrokerName;
    return (
      tp.selectFiltered((mq) => this.isAvailable(mq.brokerName), notLast) ??
      tp.selectFiltered((mq) => this.isReachable(mq.brokerName), notLast) ??
      tp.selectOne()
    );
  }

  private update(brokerName: string, latency: number, isolation: boolean, reachable: boolean): void {
    const now = this.host.now();
    const duration = computeNotAvailableDuration(
      isolation ? JAVA_5_FAILURE_LATENCY : latency,
      this.latencyMax,
      this.notAvailableDuration,
    );
    let item = this.items.get(brokerName);
    if (item === undefined) {
      item = new FaultItem5(brokerName);
      this.items.set(brokerName, item);
    }
    const wasAvailable = item.isAvailable(now);
    item.currentLatency = latency;
    if (duration > 0 && now + duration > item.startTimestamp) {
      item.startTimestamp = now + duration;
      if (wasAvailable) {
        this.host.onIsolated({
          brokerName,
          reason: isolation ? 'send failed' : `latency ${latency} ms`,
          untilMs: item.startTimestamp,
        });
      }
    }
    item.reachable = reachable;
  }

  onSuccess(brokerName: string, latencyMs: number): void {
    this.update(brokerName, latencyMs, false, true);
  }

  onFailure(brokerName: string, latencyMs: number, kind: FailureKind): void {
    // MQClientException: no isolation; RemotingException (detector on) and MQBrokerException: isolate + unreachable.
    if (kind === 'client') this.update(brokerName, latencyMs, false, true);
    else this.update(brokerName, latencyMs, true, false);
  }

  /** Java `detectByOneRound`, awaitable for tests. */
  async detectByOneRound(): Promise<void> {
    const probes: Promise<void>[] = [];
    for (const [name, item] of this.items) {
      const now = this.host.now();
      if (now - item.checkStamp < 0) continue;
      item.checkStamp = now + this.detectInterval;
      if (!this.host.brokerKnown(name)) {
        this.items.delete(name);
        continue;
      }
      probes.push(
        this.host.probe(name, this.detectTimeout).then(
          (ok) => {
            if (ok && !item.reachable) {
              item.reachable = true;
              this.host.logger.info('broker reachable again', { brokerName: name });
              this.host.onRecovered({ brokerName: name });
            }
          },
          () => undefined,
        ),
      );
    }
    await Promise.all(probes);
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
        failures: it.reachable ? 0 : 1,
        reachable: it.reachable,
      };
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.detecting) return;
      this.detecting = true;
      this.detectByOneRound().finally(() => {
        this.detecting = false;
      });
    }, JAVA_5_DETECT_PERIOD);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
