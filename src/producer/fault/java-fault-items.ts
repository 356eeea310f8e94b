/**
 * The fault-item bookkeeping the Java strategies share (Java `LatencyFaultToleranceImpl`): one
 * item per broker with its last latency and the instant it becomes available again, updated
 * from a latency (or, for a failure, the strategy's failure latency) through the
 * latencyMax → notAvailableDuration tables. Java 4.9 overwrites the isolation on every update;
 * Java 5 only ever extends it.
 */
import type { BrokerHealth, FaultStrategyHost } from './latency-fault-tolerance.js';
import { computeNotAvailableDuration } from './latency-fault-tolerance.js';

export class FaultItem {
  currentLatency = 0;
  /** Available again from this instant (host clock). */
  startTimestamp = 0;
  /** Java 5 detector: next probe not before this instant. */
  checkStamp = 0;
  /** Java 5 reachability (the 4.9 strategy does not track it). */
  reachable = true;
  constructor(readonly name: string) {}
  isAvailable(now: number): boolean {
    return now >= this.startTimestamp;
  }
}

export interface FaultTables {
  latencyMax: readonly number[];
  notAvailableDuration: readonly number[];
  /** The latency a failed send is counted as. */
  failureLatency: number;
  /** Java 5: an update never shortens a running isolation (and never ends one). */
  extendOnly: boolean;
}

export abstract class JavaFaultItems {
  readonly items = new Map<string, FaultItem>();
  readonly latencyMax: readonly number[];
  readonly notAvailableDuration: readonly number[];

  protected constructor(
    protected readonly host: FaultStrategyHost,
    private readonly tables: FaultTables,
  ) {
    this.latencyMax = tables.latencyMax;
    this.notAvailableDuration = tables.notAvailableDuration;
  }

  isAvailable(brokerName: string): boolean {
    const item = this.items.get(brokerName);
    return item === undefined || item.isAvailable(this.host.now());
  }

  /** Java `updateFaultItem`: records the latency and isolates per the tables; emits the events. */
  protected updateItem(brokerName: string, latency: number, isolation: boolean): FaultItem {
    const now = this.host.now();
    const duration = computeNotAvailableDuration(
      isolation ? this.tables.failureLatency : latency,
      this.latencyMax,
      this.notAvailableDuration,
    );
    let item = this.items.get(brokerName);
    if (item === undefined) {
      item = new FaultItem(brokerName);
      this.items.set(brokerName, item);
    }
    const wasAvailable = item.isAvailable(now);
    item.currentLatency = latency;
    const until = now + duration;
    if (this.tables.extendOnly && (duration <= 0 || until <= item.startTimestamp)) return item;
    item.startTimestamp = until;
    if (duration > 0 && wasAvailable) {
      this.host.onIsolated({
        brokerName,
        reason: isolation ? 'send failed' : `latency ${latency} ms`,
        untilMs: until,
      });
    } else if (duration === 0 && !wasAvailable) {
      this.host.onRecovered({ brokerName });
    }
    return item;
  }

  /** Whether a broker counts as reachable in `health()`. */
  protected abstract reachable(item: FaultItem, isolated: boolean): boolean;

  health(): BrokerHealth[] {
    const now = this.host.now();
    return [...this.items.values()].map((it) => {
      const isolated = !it.isAvailable(now);
      const reachable = this.reachable(it, isolated);
      return {
        brokerName: it.name,
        isolated,
        ...(isolated ? { isolatedUntil: it.startTimestamp } : {}),
        latencyMs: it.currentLatency,
        failures: reachable ? 0 : 1,
        reachable,
      };
    });
  }
}
