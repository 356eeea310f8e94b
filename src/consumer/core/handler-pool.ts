/**
 * Where user handlers run: at most `limit` calls in flight (Java's consume thread pool,
 * `consumeThreadMax`), each traced on `rocketmq:consume`, each with a budget (`consumeTimeout`).
 * A call that throws synchronously, rejects or outlives its budget becomes a failed outcome; it
 * never rejects the caller and never holds a slot past its budget, so one bad handler cannot stop
 * the other queues. Budgets are checked by one sweep timer, not a timer per call. With
 * OpenTelemetry on (consume-telemetry.ts) each call runs inside its `process <topic>` span, the
 * one place every push consumer's handler calls pass (docs/observability.md §1.1).
 */
import { HandlerTimeoutError } from '../../errors.js';
import { consumeChannel, tracingHasSubscribers } from '../../observability/channels.js';
import type { ConsumeTelemetry } from './consume-telemetry.js';
import type { ConsumerMessage } from './message-view.js';

const NO_MESSAGES: readonly ConsumerMessage[] = Object.freeze([]);

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

/**
 * One handler call: what to run, its span context, and where its outcome goes. The concurrent
 * service makes one per message, so the call is one object carrying its own state instead of a
 * bundle of closures; the pool's bookkeeping fields ride on it too.
 */
export abstract class HandlerCall {
  /** @internal When it started (the consumeTimeout sweep reads it). */
  started = 0;
  /** @internal Settled once: ok, failed, or timed out by the sweep. */
  settled = false;
  /** @internal Neighbours in the pool's list of running calls. */
  prevRunning: HandlerCall | undefined = undefined;
  /** @internal */
  nextRunning: HandlerCall | undefined = undefined;
  /** @internal Set by `call()` when it did not run the handler: no span, no figures. */
  skipped = false;
  /** @internal With telemetry: performance.now() when handed to the pool, and when started. */
  queuedAt = 0;
  /** @internal */
  startedPrecise = 0;
  /** @internal With telemetry: the process span (an OpenTelemetry `Span`, kept opaque here). */
  span: unknown = undefined;
  /** Runs the handler; a thenable result is awaited. */
  abstract call(): unknown;
  /** The messages of this call (telemetry reads them); none: the call gets no span. */
  batch(): readonly ConsumerMessage[] {
    return NO_MESSAGES;
  }
  /** The `rocketmq:consume` span context (built only when someone listens). */
  abstract trace(): ConsumeTraceContext;
  /** Gets the outcome, once. */
  abstract done(outcome: ConsumeOutcome): void;
}

/** A call made of three functions (`HandlerPool.run`). */
class FunctionCall extends HandlerCall {
  constructor(
    private readonly fn: () => unknown,
    private readonly traceFn: () => ConsumeTraceContext,
    private readonly settle: (outcome: ConsumeOutcome) => void,
  ) {
    super();
  }
  call(): unknown {
    return this.fn();
  }
  trace(): ConsumeTraceContext {
    return this.traceFn();
  }
  done(outcome: ConsumeOutcome): void {
    this.settle(outcome);
  }
}

const OK: ConsumeOutcome = Object.freeze({ ok: true });

export class HandlerPool {
  /**
   * The running calls, a list threaded through the calls themselves: a Set with one add and one
   * delete per message rehashed its table every few messages (allocation per message).
   */
  private runningHead: HandlerCall | undefined = undefined;
  private runningCount = 0;
  private readonly waiting: HandlerCall[] = [];
  private waitingHead = 0;
  private draining = false;
  private sweepTimer: NodeJS.Timeout | undefined;

  /** OpenTelemetry of the consumer; undefined when off (one field test per call). */
  private telemetry: ConsumeTelemetry | undefined = undefined;

  constructor(
    private readonly limit: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * @internal Runs every call from now on in its process span (consume-telemetry.ts). A method
   * rather than a constructor argument, so no OpenTelemetry type reaches the declarations.
   */
  instrument(telemetry: ConsumeTelemetry): void {
    this.telemetry = telemetry;
  }

  get inFlight(): number {
    return this.runningCount;
  }

  get queued(): number {
    return this.waiting.length - this.waitingHead;
  }

  /**
   * Runs `call` once a slot is free; resolves with its outcome, never rejects. `trace` builds the
   * span context, only when someone listens on `rocketmq:consume`.
   */
  run(call: () => unknown, trace: () => ConsumeTraceContext): Promise<ConsumeOutcome> {
    return new Promise<ConsumeOutcome>((resolve) => this.submit(new FunctionCall(call, trace, resolve)));
  }

  /** `run` without promises of its own: the call's `done` gets the outcome. */
  submit(job: HandlerCall): void {
    if (this.telemetry !== undefined) this.handedOver(job, this.telemetry);
    if (this.runningCount < this.limit) this.start(job);
    else this.waiting.push(job);
  }

  private start(job: HandlerCall): void {
    job.started = Date.now();
    this.link(job);
    this.armSweep();
    let result: unknown;
    try {
      result = this.telemetry === undefined ? this.invoke(job) : this.invokeInSpan(job, this.telemetry);
    } catch (error) {
      this.settle(job, { ok: false, error, timedOut: false });
      return;
    }
    // Only a thenable is awaited: a synchronous handler settles here, without a promise.
    if (
      result !== null &&
      typeof result === 'object' &&
      typeof (result as Promise<unknown>).then === 'function'
    ) {
      (result as Promise<unknown>).then(
        () => this.settle(job, OK),
        (error: unknown) => this.settle(job, { ok: false, error, timedOut: false }),
      );
    } else this.settle(job, OK);
  }

  private invoke(job: HandlerCall): unknown {
    return tracingHasSubscribers(consumeChannel)
      ? consumeChannel.tracePromise(async () => job.call(), job.trace())
      : job.call();
  }

  private handedOver(job: HandlerCall, telemetry: ConsumeTelemetry): void {
    job.queuedAt = performance.now();
    telemetry.delivered(job.batch(), Date.now());
  }

  /** The call inside its process span, so the application's spans in the handler are children. */
  private invokeInSpan(job: HandlerCall, telemetry: ConsumeTelemetry): unknown {
    const messages = job.batch();
    if (messages.length === 0) return this.invoke(job);
    job.startedPrecise = performance.now();
    const [span, context] = telemetry.startProcess(messages, job.queuedAt, job.startedPrecise);
    job.span = span;
    return telemetry.within(context, this.invoke, this, job);
  }

  private settle(job: HandlerCall, outcome: ConsumeOutcome): void {
    if (job.settled) return;
    job.settled = true;
    // A skipped call's span is never ended, so never exported.
    if (job.span !== undefined && !job.skipped)
      this.telemetry?.endProcess(
        job.span,
        job.batch(),
        job.startedPrecise,
        outcome.ok ? undefined : outcome.error,
        !outcome.ok,
      );
    job.span = undefined;
    this.finished(job);
    job.done(outcome);
  }

  /** A call settled: its slot goes to the next waiting call. */
  private finished(job: HandlerCall): void {
    if (!this.unlink(job)) return;
    // A synchronous handler settles inside start(): the loop below (already on the stack) starts
    // the next call, so a long queue of synchronous calls never recurses.
    if (this.draining) return;
    this.draining = true;
    while (this.runningCount < this.limit && this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined as unknown as HandlerCall;
      this.start(next);
    }
    if (this.waitingHead === this.waiting.length) {
      this.waiting.length = 0;
      this.waitingHead = 0;
    } else if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
    this.draining = false;
  }

  private armSweep(): void {
    if (this.sweepTimer !== undefined) return;
    const period = Math.min(5000, Math.max(20, Math.floor(this.timeoutMs / 4)));
    this.sweepTimer = setInterval(() => this.sweep(), period);
    this.sweepTimer.unref();
  }

  private sweep(): void {
    // The timer stops on the first sweep that finds the pool idle, not when the last call
    // settles: at a steady low rate the pool empties after nearly every message, and a timer
    // created and cleared per message was a tenth of the consumer's allocations.
    if (this.runningCount === 0) return this.close();
    const expired = Date.now() - this.timeoutMs;
    const overdue: HandlerCall[] = [];
    for (let r = this.runningHead; r !== undefined; r = r.nextRunning)
      if (r.started <= expired) overdue.push(r);
    for (const r of overdue)
      this.settle(r, { ok: false, error: new HandlerTimeoutError(this.timeoutMs), timedOut: true });
  }

  private link(job: HandlerCall): void {
    job.prevRunning = undefined;
    job.nextRunning = this.runningHead;
    if (this.runningHead !== undefined) this.runningHead.prevRunning = job;
    this.runningHead = job;
    this.runningCount++;
  }

  /** Takes `job` off the running list; false when it was not on it. */
  private unlink(job: HandlerCall): boolean {
    const { prevRunning: prev, nextRunning: next } = job;
    if (prev === undefined && this.runningHead !== job) return false;
    if (prev !== undefined) prev.nextRunning = next;
    else this.runningHead = next;
    if (next !== undefined) next.prevRunning = prev;
    job.prevRunning = undefined;
    job.nextRunning = undefined;
    this.runningCount--;
    return true;
  }

  /** Stops the sweep timer (shutdown). */
  close(): void {
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }
}
