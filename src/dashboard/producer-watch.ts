/**
 * Producers of this process the dashboard shows (the demo registers its own): their fault
 * strategy's broker states (`producer.brokerHealth()`) and a timeline of isolation events, kept
 * from the moment they are watched.
 */
import type { BrokerHealth } from '../producer/fault/latency-fault-tolerance.js';
import type { Producer } from '../producer/producer.js';

export interface IsolationEvent {
  at: number;
  producer: string;
  brokerName: string;
  kind: 'isolated' | 'recovered';
  reason?: string | undefined;
  untilMs?: number | undefined;
}

/** What the dashboard needs of a producer (a Producer fits). */
export type WatchedProducer = Pick<Producer, 'brokerHealth' | 'on' | 'off'>;

/** Events kept, oldest dropped first. */
const MAX_EVENTS = 500;

export class ProducerWatch {
  private readonly watched = new Map<string, WatchedProducer>();
  private readonly unwatchers = new Map<string, () => void>();
  readonly events: IsolationEvent[] = [];

  /** Shows `producer` under `label` until the returned function (or `unwatch(label)`) is called. */
  watch(producer: WatchedProducer, label: string): () => void {
    this.unwatch(label);
    const onIsolated = (e: { brokerName: string; reason: string; untilMs: number }): void =>
      this.record({ at: Date.now(), producer: label, kind: 'isolated', ...e });
    const onRecovered = (e: { brokerName: string }): void =>
      this.record({ at: Date.now(), producer: label, kind: 'recovered', brokerName: e.brokerName });
    producer.on('brokerIsolated', onIsolated);
    producer.on('brokerRecovered', onRecovered);
    this.watched.set(label, producer);
    const off = (): void => {
      if (this.watched.get(label) !== producer) return;
      producer.off('brokerIsolated', onIsolated);
      producer.off('brokerRecovered', onRecovered);
      this.watched.delete(label);
      this.unwatchers.delete(label);
    };
    this.unwatchers.set(label, off);
    return off;
  }

  unwatch(label: string): void {
    this.unwatchers.get(label)?.();
  }

  unwatchAll(): void {
    for (const off of [...this.unwatchers.values()]) off();
  }

  /** label → broker states; a producer that throws (shut down) shows no broker. */
  health(): Array<{ label: string; brokers: BrokerHealth[] }> {
    return [...this.watched].map(([label, p]) => {
      try {
        return { label, brokers: p.brokerHealth() };
      } catch {
        return { label, brokers: [] };
      }
    });
  }

  get size(): number {
    return this.watched.size;
  }

  private record(e: IsolationEvent): void {
    this.events.push(e);
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }
}
