/**
 * Where user handlers run: at most `limit` calls in flight (Java's consume thread pool,
 * `consumeThreadMax`), each traced on `rocketmq:consume`, each with a budget (`consumeTimeout`).
 * A call that throws synchronously, rejects or outlives its budget becomes a failed outcome; it
 * never rejects the caller and never holds a slot past its budget, so one bad handler cannot stop
 * the other queues. Budgets are checked by one sweep timer, not a timer per call.
 */
import { RocketMQError } from '../errors.js';
import { consumeChannel, tracingHasSubscribers } from '../observability/channels.js';

export type ConsumeOutcome = { ok: true } | { ok: false; error: unknown; timedOut: boolean };

/** Context published on `rocketmq:consume` (one span per handler call). */
export interface ConsumeTraceContext {
  consumerGroup: string;
  topic: string;
  brokerName: string;
  queueId: number;
  /** Queue offsets of the messages in this call. */
  offsets: number[];
  msgIds: string[];
  error?: unknown;
}

interface Running {
  started: number;
  settle: (outcome: ConsumeOutcome) => void;
}

/** A handler call outlived consumeTimeout; its messages are retried. */
export class HandlerTimeoutError extends RocketMQError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super('ERR_CONSUME_TIMEOUT', `handler did not settle within consumeTimeout (${timeoutMs} ms)`, {
      retriable: true,
    });
    this.timeoutMs = timeoutMs;
  }
}

export class HandlerPool {
  private readonly running = new Set<Running>();
  private readonly waiting: Array<() => void> = [];
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly timeoutMs: number,
  ) {}

  get inFlight(): number {
    return this.running.size;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `call` once a slot is free; resolves with its outcome, never rejects. `trace` builds the
   * span context, only when someone listens on `rocketmq:consume`.
   */
  run(call: () => unknown, trace: () => ConsumeTraceContext): Promise<ConsumeOutcome> {
    if (this.running.size < this.limit) return this.start(call, trace);
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.start(call, trace));
  }

  private start(call: () => unknown, trace: () => ConsumeTraceContext): Promise<ConsumeOutcome> {
    return new Promise<ConsumeOutcome>((resolve) => {
      const entry: Running = {
        started: Date.now(),
        settle: (outcome) => {
          if (!this.running.delete(entry)) return;
          this.release();
          resolve(outcome);
        },
      };
      this.running.add(entry);
      this.armSweep();
      let result: unknown;
      try {
        result = tracingHasSubscribers(consumeChannel)
          ? consumeChannel.tracePromise(async () => call(), trace())
          : call();
      } catch (error) {
        entry.settle({ ok: false, error, timedOut: false });
        return;
      }
      if (
        result !== null &&
        typeof result === 'object' &&
        typeof (result as Promise<unknown>).then === 'function'
      ) {
        (result as Promise<unknown>).then(
          () => entry.settle({ ok: true }),
          (error: unknown) => entry.settle({ ok: false, error, timedOut: false }),
        );
      } else entry.settle({ ok: true });
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else if (this.running.size === 0) this.close();
  }

  private armSweep(): void {
    if (this.sweepTimer !== undefined) return;
    const period = Math.min(5000, Math.max(20, Math.floor(this.timeoutMs / 4)));
    this.sweepTimer = setInterval(() => this.sweep(), period);
    this.sweepTimer.unref();
  }

  private sweep(): void {
    const expired = Date.now() - this.timeoutMs;
    for (const r of [...this.running])
      if (r.started <= expired)
        r.settle({ ok: false, error: new HandlerTimeoutError(this.timeoutMs), timedOut: true });
  }

  /** Stops the sweep timer (shutdown). */
  close(): void {
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }
}
