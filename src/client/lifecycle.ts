/**
 * The one lifecycle of every public client (Producer, TransactionProducer, PushConsumer,
 * LitePullConsumer, SimpleConsumer, Admin): CREATED → STARTING → RUNNING → STOPPING → STOPPED.
 *
 * - `start()` while STARTING returns the pending promise; while RUNNING it resolves at once;
 *   once STOPPING or STOPPED it rejects with IllegalStateError (a client is not restarted:
 *   Java's `ServiceState.SHUTDOWN_ALREADY`).
 * - A `start()` that fails runs the class's `stop` (so nothing it opened stays open) and goes
 *   back to CREATED, so the application may retry (Java moves to START_FAILED and refuses; a
 *   retry after, say, a NameServer outage is the more useful behaviour for a library).
 * - `shutdown()` during `start()` aborts the start's `AbortSignal`: the start work stops at its
 *   next `step()` (an await point), `stop` closes what it opened, and the pending `start()`
 *   rejects with StartCancelledError. `shutdown()` resolves once that is done.
 * - Every `shutdown()` after the first returns the first one's promise; `shutdown()` on a client
 *   never started resolves at once and leaves it STOPPED.
 *
 * The class supplies `start(signal)` and `stop()`; `stop` must undo a partial start too, since it
 * also runs after a failed or cancelled one.
 */
import { IllegalStateError } from '../errors.js';
import { StartCancelledError } from '../errors/lifecycle.js';

export type LifecycleState = 'CREATED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED';

export interface LifecycleHooks {
  /** Opens the client. Call `step` after each await so a shutdown meanwhile stops it there. */
  start(step: StartStep): Promise<void>;
  /** Closes whatever `start` opened, all of it or part of it. */
  stop(): Promise<void>;
}

/**
 * Passed to the start work: `await step(p)` is `await p`, then a StartCancelledError when
 * shutdown() came meanwhile; `step()` alone checks without waiting. `signal` is for calls that
 * take one.
 */
export interface StartStep {
  <T>(work: Promise<T> | T): Promise<T>;
  (): Promise<void>;
  readonly signal: AbortSignal;
}

export class Lifecycle {
  private current: LifecycleState = 'CREATED';
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private work: Promise<void> | undefined;

  /** `what` names the client in errors: `producer`, `push consumer`, … */
  constructor(
    private readonly what: string,
    private readonly hooks: LifecycleHooks,
  ) {}

  get state(): LifecycleState {
    return this.current;
  }

  /** RUNNING: what public calls require. */
  get running(): boolean {
    return this.current === 'RUNNING';
  }

  /**
   * STARTING or RUNNING: what background work (pull loops, timers) checks, since a start may
   * already run some of it before it finishes.
   */
  get active(): boolean {
    return this.current === 'STARTING' || this.current === 'RUNNING';
  }

  /** STOPPING or STOPPED. */
  get closed(): boolean {
    return this.current === 'STOPPING' || this.current === 'STOPPED';
  }

  /** IllegalStateError unless RUNNING, phrased for `what` (e.g. `poll()`). */
  requireRunning(what?: string): void {
    if (this.current === 'RUNNING') return;
    throw new IllegalStateError(
      this.closed
        ? `${this.what} is shut down${what === undefined ? '' : `: ${what} is not possible`}`
        : `${what ?? 'this call'} needs a started ${this.what} (state ${this.current}); call start() first`,
    );
  }

  start(): Promise<void> {
    switch (this.current) {
      case 'RUNNING':
        return Promise.resolve();
      case 'STARTING':
        return this.starting!;
      case 'STOPPING':
      case 'STOPPED':
        return Promise.reject(
          new IllegalStateError(`${this.what} is shut down; create a new one to start again`),
        );
      case 'CREATED':
        break;
    }
    this.current = 'STARTING';
    const abort = new AbortController();
    this.abort = abort;
    this.starting = this.runStart(abort.signal);
    return this.starting;
  }

  private async runStart(signal: AbortSignal): Promise<void> {
    const step = makeStep(signal);
    let failed: { error: unknown } | undefined;
    // Settles (never rejects) once the start work and, after a failure, its cleanup are over:
    // shutdown() waits for it, so its own stop() sees everything the start opened.
    const work = (async () => {
      try {
        // One turn first: a shutdown() in the same tick as start() finds nothing opened.
        await step();
        await this.hooks.start(step);
        signal.throwIfAborted();
      } catch (err) {
        if (signal.aborted) return;
        failed = { error: err };
        await this.hooks.stop().catch(() => undefined);
      }
    })();
    this.work = work;
    await work;
    this.work = undefined;
    if (signal.aborted) {
      // Rejects only once shutdown() has closed what the start opened.
      await this.stopping?.catch(() => undefined);
      throw failed?.error ?? new StartCancelledError(this.what);
    }
    this.starting = undefined;
    if (failed !== undefined) {
      this.current = 'CREATED';
      throw failed.error;
    }
    this.current = 'RUNNING';
  }

  shutdown(): Promise<void> {
    if (this.stopping !== undefined) return this.stopping;
    const was = this.current;
    this.current = was === 'CREATED' ? 'STOPPED' : 'STOPPING';
    if (was === 'CREATED') {
      this.stopping = Promise.resolve();
      return this.stopping;
    }
    const work = this.work;
    if (was === 'STARTING') this.abort?.abort(new StartCancelledError(this.what));
    this.stopping = (async () => {
      // The start work stops at its next step; only then is everything it opened known.
      if (work !== undefined) await work;
      try {
        await this.hooks.stop();
      } finally {
        this.current = 'STOPPED';
      }
    })();
    return this.stopping;
  }
}

function makeStep(signal: AbortSignal): StartStep {
  const step = async <T>(work?: Promise<T> | T): Promise<T | undefined> => {
    const value = await work;
    signal.throwIfAborted();
    return value;
  };
  return Object.assign(step, { signal }) as StartStep;
}
