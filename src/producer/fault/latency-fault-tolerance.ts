/**
 * The contract between the send loop and a latency fault strategy, and the factory that builds
 * the configured one. A strategy picks a queue for each attempt and learns from each outcome.
 *
 * - `java-4.9`: Java 4.9's `MQFaultStrategy` + `LatencyFaultToleranceImpl`, quirks included.
 * - `java-5`: 5.1.4+ (filters, 10 s failure isolation, reachability detector).
 * - `adaptive` (default): even spread over admissible brokers, one strike per incident, short
 *   isolation ended by a half-open trial or a probe, one-send-at-a-time sampling of slow brokers.
 */
import type { Logger } from '../../observability/logger.js';
import type { MessageQueue } from '../../client/route.js';
import type { TopicPublishInfo } from '../../client/topic-publish-info.js';

/** Why an attempt failed, as far as broker health is concerned. */
export type FailureKind =
  /** connect refused, connection closed, backpressure: the broker (or the path to it) is down */
  | 'transport'
  /** the attempt hit its timeout */
  | 'timeout'
  /** the broker answered a code in retryResponseCodes (busy, not available, ...) */
  | 'broker'
  /** the broker answered a code that is about the message, not the broker (no retry) */
  | 'rejected'
  /** a client-side problem before any I/O (e.g. no address for the broker) */
  | 'client';

export interface BrokerHealth {
  brokerName: string;
  /** True while the strategy keeps traffic away from the broker. */
  isolated: boolean;
  /** Epoch ms when the isolation ends (absent when not isolated). */
  isolatedUntil?: number;
  /** Latency estimate in ms (adaptive: EWMA; java-*: last latency). */
  latencyMs: number;
  /** Strikes of the current incident (adaptive) or 0/1 for the java strategies' last outcome. */
  failures: number;
  /** java-5 reachability flag; the others report `!isolated`. */
  reachable: boolean;
  /** Share of its fair traffic the broker gets, 0..1 (adaptive only; 0 while isolated). */
  share?: number;
  /**
   * Recent fraction of this producer's sends that went to the broker, 0..1 (adaptive only):
   * the weights least-outstanding selection and the floor produce.
   */
  weight?: number;
  /**
   * The floor of `weight` (adaptive only): `minBrokerShare / n`, n the brokers this producer
   * sends to; an answering broker below it gets the next send.
   */
  floor?: number;
}

export interface BrokerIsolatedEvent {
  brokerName: string;
  reason: string;
  untilMs: number;
}
export interface BrokerRecoveredEvent {
  brokerName: string;
}

/** What a strategy may ask of its surroundings; tests pass a fake. */
export interface FaultStrategyHost {
  now(): number;
  random(): number;
  /** A cheap request to the broker's master; resolves true when it answered. */
  probe(brokerName: string, timeoutMs: number): Promise<boolean>;
  /** Whether any route still names the broker (java-5 drops fault items of unknown brokers). */
  brokerKnown(brokerName: string): boolean;
  onIsolated(event: BrokerIsolatedEvent): void;
  onRecovered(event: BrokerRecoveredEvent): void;
  logger: Logger;
}

export interface LatencyFaultStrategy {
  readonly name: string;
  /**
   * Picks the queue for attempt `attempt` (0-based). `avoid` is the broker this attempt should
   * not use (see `brokerToAvoid`: the previous attempt's, only when the topic has another);
   * undefined when nothing is to be avoided. Callers go through `chooseQueue`, which enforces
   * it whatever the strategy picks (java-4.9 ignores it, as Java 4.9 does).
   */
  select(tp: TopicPublishInfo, avoid: string | undefined, attempt: number): MessageQueue;
  /**
   * Whether the strategy would send to the broker now (not isolated). `chooseQueue` uses it when
   * it overrides the strategy's choice to avoid the last broker. Absent: every broker is.
   */
  isAvailable?(brokerName: string): boolean;
  onSuccess(brokerName: string, latencyMs: number): void;
  onFailure(brokerName: string, latencyMs: number, kind: FailureKind, error?: unknown): void;
  /**
   * An attempt on the broker, started `overdueMs` ago, is still unanswered long past its recent
   * latency (hedged sends): stop choosing the broker now rather than at the attempt's timeout.
   * The attempt still ends with `onSuccess`/`onFailure`. Absent: the strategy learns at the end.
   */
  onOverdue?(brokerName: string, overdueMs: number): void;
  health(): BrokerHealth[];
  /** Starts background work (probes, detectors); timers are unref'd. */
  start(): void;
  stop(): void;
}

/**
 * The avoid-last-broker rule, in one place: a retry does not go to the broker of the previous
 * attempt when the topic has another broker. Returns the broker to avoid, if any.
 */
export function brokerToAvoid(tp: TopicPublishInfo, lastBrokerName: string | undefined): string | undefined {
  if (lastBrokerName === undefined) return undefined;
  for (const b of tp.brokerNames) if (b !== lastBrokerName) return lastBrokerName;
  return undefined;
}

/**
 * The queue for an attempt: the strategy's choice, unless it is on the broker to avoid; then
 * another broker, preferring those the strategy has not isolated.
 */
export function chooseQueue(
  strategy: LatencyFaultStrategy,
  tp: TopicPublishInfo,
  lastBrokerName: string | undefined,
  attempt: number,
): MessageQueue {
  const avoid = brokerToAvoid(tp, lastBrokerName);
  const mq = strategy.select(tp, avoid, attempt);
  if (avoid === undefined || mq.brokerName !== avoid) return mq;
  return tp.selectAvoiding(avoid, strategy.isAvailable?.bind(strategy));
}

/** Java `computeNotAvailableDuration`: the duration of the highest threshold the latency reaches. */
export function computeNotAvailableDuration(
  latencyMs: number,
  latencyMax: readonly number[],
  notAvailableDuration: readonly number[],
): number {
  for (let i = latencyMax.length - 1; i >= 0; i--) {
    if (latencyMs >= (latencyMax[i] as number)) return notAvailableDuration[i] ?? 0;
  }
  return 0;
}

/** Fault tolerance off (`sendLatencyFaultEnable: false`): round robin avoiding the last broker. */
export class NoFaultStrategy implements LatencyFaultStrategy {
  readonly name = 'none';
  select(tp: TopicPublishInfo, avoid: string | undefined): MessageQueue {
    return tp.selectAvoiding(avoid);
  }
  onSuccess(): void {}
  onFailure(): void {}
  health(): BrokerHealth[] {
    return [];
  }
  start(): void {}
  stop(): void {}
}
