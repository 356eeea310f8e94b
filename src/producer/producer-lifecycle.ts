/**
 * The producer's start and shutdown sequence (the states themselves are client/lifecycle.ts's),
 * and the count of sends in flight that shutdown waits for.
 *
 * Start: the compressor, the shared client instance, the group in its heartbeat (one producer
 * per group per client), the instance's events, the fault strategy, the trace producer.
 * Shutdown (also after a failed or cancelled start, so each step checks what was opened):
 * flush the batcher, wait for sends in flight, stop the strategy and the tracer, unregister and
 * release the instance.
 */
import { IllegalStateError } from '../errors.js';
import type { ClientInstance } from '../client/client-instance.js';
import { clientInstanceConfig } from '../client/client-options.js';
import { acquireClientInstance, releaseClientInstance } from '../client/instance-registry.js';
import type { HeartbeatContributor } from '../client/heartbeat.js';
import { forwardInstanceEvents, type InstanceEventTarget } from '../client/instance-events.js';
import type { StartStep } from '../client/lifecycle.js';
import { loadCompressor } from '../protocol/message/compression.js';
import type { Logger } from '../observability/logger.js';
import type { LatencyFaultStrategy } from './fault/latency-fault-tolerance.js';
import type { ResolvedProducerOptions } from './options.js';
import type { TraceDispatcher } from './trace/dispatcher.js';

/** Sends not settled yet, and who waits for the count to reach 0. */
export class InFlightSends {
  private count = 0;
  private readonly idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  begun(): void {
    this.count++;
  }

  /** A send settled (a bound function: it is passed as a `then` callback per send). */
  readonly settled = (): void => {
    if (--this.count === 0 && this.idleWaiters.length > 0)
      for (const wake of this.idleWaiters.splice(0)) wake();
  };

  /** Resolves when none is in flight, or after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<void> {
    if (this.count === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}

/** What the start opens and the shutdown closes, held by the producer. */
export interface ProducerSession {
  instance: ClientInstance | undefined;
  stopForwarding: (() => void) | undefined;
  strategyStarted: boolean;
}

export interface ProducerParts {
  readonly options: Readonly<ResolvedProducerOptions>;
  readonly clientId: string;
  readonly logger: Logger;
  readonly membership: HeartbeatContributor;
  readonly strategy: LatencyFaultStrategy;
  readonly trace: TraceDispatcher | undefined;
  readonly events: InstanceEventTarget;
  readonly session: ProducerSession;
  readonly sends: InFlightSends;
  /** Sends what the batcher holds at once. */
  flushBatches(): void;
}

export async function openProducer(p: ProducerParts, step: StartStep): Promise<void> {
  const o = p.options;
  await step(loadCompressor(o.compressType));
  const instance = acquireClientInstance(clientInstanceConfig(o, p.clientId, o));
  if (!instance.heartbeat.register(p.membership)) {
    await releaseClientInstance(instance);
    throw new IllegalStateError(
      `producer group ${o.producerGroup} is already started in client ${p.clientId}; use another group or instanceName`,
    );
  }
  p.session.instance = instance;
  if (instance.config.logger !== o.logger) {
    p.logger.info(
      'sharing a client instance created by another producer: its route, heartbeat and connection logs go to that producer’s logger',
      { clientId: p.clientId, group: o.producerGroup },
    );
  }
  p.session.stopForwarding = forwardInstanceEvents(instance, p.events, o.namespace);
  p.strategy.start();
  p.session.strategyStarted = true;
  if (p.trace !== undefined) {
    // As Java: a trace producer that cannot start costs the traces, not the producer.
    await step(
      p.trace.start().catch((err: unknown) =>
        p.logger.warn('message trace producer did not start; sends are not traced', {
          error: err instanceof Error ? err.message : String(err),
        }),
      ),
    );
  }
  p.logger.info('producer started', {
    group: o.producerGroup,
    clientId: p.clientId,
    strategy: p.strategy.name,
  });
}

/** Waits for in-flight sends at most sendMsgTimeout + 500 ms. */
export async function closeProducer(p: ProducerParts): Promise<void> {
  const s = p.session;
  p.flushBatches();
  await p.sends.idle(p.options.sendMsgTimeout + 500);
  if (s.strategyStarted) p.strategy.stop();
  s.strategyStarted = false;
  await p.trace?.shutdown();
  const instance = s.instance;
  s.instance = undefined;
  if (instance !== undefined) {
    await instance.heartbeat.unregister(p.membership);
    await releaseClientInstance(instance);
  }
  // After the release: the closing connections' 'disconnect' events still reach the application.
  s.stopForwarding?.();
  s.stopForwarding = undefined;
  if (instance !== undefined) p.logger.info('producer shut down', { group: p.options.producerGroup });
}
