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

/** One call in flight; settles once (ok, failed, or timed out by the sweep). */
class Running {
  readonly started = Date.now();
  private settled = false;
  constructor(
    private readonly pool: HandlerPool,
    private readonly done: (outcome: ConsumeOutcome) => void,
  ) {}
  settle(outcome: ConsumeOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.pool.finished(this);
    this.done(outcome);
  }
  // Bound once per call: the handler's promise settles through these.
  readonly ok = (): void => this.settle(OK);
  readonly fail = (error: unknown): void => this.settle({ ok: false, error, timedOut: false });
}

const OK: ConsumeOutcome = Object.freeze({ ok: true });

interface Waiting {
  call: () => unknown;
  trace: () => ConsumeTraceContext;
  done: (outcome: ConsumeOutcome) => void;
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
  private readonly waiting: Waiting[] = [];
  private waitingHead = 0;
  private draining = false;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly timeoutMs: number,
  ) {}

  get inFlight(): number {
    return this.running.size;
  }

  get queued(): number {
    return this.waiting.length - this.waitingHead;
  }

  /**
   * Runs `call` once a slot is free; resolves with its outcome, never rejects. `trace` builds the
   * span context, only when someone listens on `rocketmq:consume`.
   */
  run(call: () => unknown, trace: () => ConsumeTraceContext): Promise<ConsumeOutcome> {
    return new Promise<ConsumeOutcome>((resolve) => this.submit(call, trace, resolve));
  }

  /**
   * `run` without promises of its own: `done` gets the outcome. The concurrent service calls this
   * once per message, so nothing is allocated here that a synchronous handler does not need.
   */
  submit(
    call: () => unknown,
    trace: () => ConsumeTraceContext,
    done: (outcome: ConsumeOutcome) => void,
  ): void {
    if (this.running.size < this.limit) this.start(call, trace, done);
    else this.waiting.push({ call, trace, done });
  }

  private start(
    call: () => unknown,
    trace: () => ConsumeTraceContext,
    done: (outcome: ConsumeOutcome) => void,
  ): void {
    const entry = new Running(this, done);
    this.running.add(entry);
    this.armSweep();
    let result: unknown;
    try {
      result = tracingHasSubscribers(consumeChannel)
        ? consumeChannel.tracePromise(async () => call(), trace())
        : call();
    } catch (error) {
      entry.fail(error);
      return;
    }
    // Only a thenable is awaited: a synchronous handler settles here, without a promise.
    if (
      result !== null &&
      typeof result === 'object' &&
      typeof (result as Promise<unknown>).then === 'function'
    ) {
      (result as Promise<unknown>).then(entry.ok, entry.fail);
    } else entry.ok();
  }

  /** @internal A call settled: its slot goes to the next waiting call. */
  finished(entry: Running): void {
    if (!this.running.delete(entry)) return;
    // A synchronous handler settles inside start(): the loop below (already on the stack) starts
    // the next call, so a long queue of synchronous calls never recurses.
    if (this.draining) return;
    this.draining = true;
    while (this.running.size < this.limit && this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined as unknown as Waiting;
      this.start(next.call, next.trace, next.done);
    }
    if (this.waitingHead === this.waiting.length) {
      this.waiting.length = 0;
      this.waitingHead = 0;
    } else if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
    this.draining = false;
    if (this.running.size === 0) this.close();
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
