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
import { notOn, type TopicPublishInfo } from '../../client/topic-publish-info.js';
import type { FailureKind, FaultStrategyHost, LatencyFaultStrategy } from './latency-fault-tolerance.js';
import { JavaFaultItems, type FaultItem } from './java-fault-items.js';

export const JAVA_5_LATENCY_MAX: readonly number[] = Object.freeze([50, 100, 550, 1800, 3000, 5000, 15000]);
export const JAVA_5_NOT_AVAILABLE_DURATION: readonly number[] = Object.freeze([
  0, 0, 2000, 5000, 6000, 10000, 30000,
]);
export const JAVA_5_FAILURE_LATENCY = 10000;
/** Java's fixed detector period. */
export const JAVA_5_DETECT_PERIOD = 3000;

export interface Java5Settings {
  latencyMax?: readonly number[] | undefined;
  notAvailableDuration?: readonly number[] | undefined;
  /** @default 2000 */
  detectInterval?: number | undefined;
  /** @default 200 */
  detectTimeout?: number | undefined;
}

export class Java5FaultStrategy extends JavaFaultItems implements LatencyFaultStrategy {
  readonly name = 'java-5';
  private readonly detectInterval: number;
  private readonly detectTimeout: number;
  private timer: NodeJS.Timeout | undefined;
  private detecting = false;

  constructor(host: FaultStrategyHost, settings: Java5Settings = {}) {
    super(host, {
      latencyMax: settings.latencyMax ?? JAVA_5_LATENCY_MAX,
      notAvailableDuration: settings.notAvailableDuration ?? JAVA_5_NOT_AVAILABLE_DURATION,
      failureLatency: JAVA_5_FAILURE_LATENCY,
      extendOnly: true,
    });
    this.detectInterval = settings.detectInterval ?? 2000;
    this.detectTimeout = settings.detectTimeout ?? 200;
  }

  isReachable(brokerName: string): boolean {
    const item = this.items.get(brokerName);
    return item === undefined || item.reachable;
  }

  select(tp: TopicPublishInfo, avoid: string | undefined, attempt: number): MessageQueue {
    if (attempt > 0) tp.sendWhichQueue.reset();
    const notLast = notOn(avoid);
    return (
      tp.selectFiltered((mq) => this.isAvailable(mq.brokerName), notLast) ??
      tp.selectFiltered((mq) => this.isReachable(mq.brokerName), notLast) ??
      tp.selectOne()
    );
  }

  private update(brokerName: string, latency: number, isolation: boolean, reachable: boolean): void {
    this.updateItem(brokerName, latency, isolation).reachable = reachable;
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

  protected reachable(item: FaultItem): boolean {
    return item.reachable;
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
