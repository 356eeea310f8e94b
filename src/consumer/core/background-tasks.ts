/**
 * The consumer's timers and background work, in one place so shutdown can stop all of it:
 * periodic tasks (rebalance, offset persistence, lock renewal), delayed tasks (local re-consume,
 * delayed unlock, OFFSET_ILLEGAL removal), sleeps of the pull loops (cut short at shutdown) and
 * the consume tasks shutdown waits for.
 */
export class BackgroundTasks {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sleepers = new Set<() => void>();
  /** Consume tasks (handler call + send-back + offset update) not yet finished. */
  private readonly tasks = new Set<Promise<void>>();
  /**
   * Consume calls counted with `taskBegun` / `taskEnded`: the concurrent service makes one per
   * message, and a promise per call (plus its `finally` and a Set entry) was garbage per message.
   */
  private busy = 0;
  private idleWaiters: Array<() => void> = [];
  private stopped = false;
  private keepAlive: NodeJS.Timeout | undefined;

  /**
   * Holds the process open until `stop()`, as Java's consumer threads hold the JVM. Every other
   * timer here is unref'd, so without this a consumer that has no connection at the moment (its
   * NameServer down at start, every broker gone) would let the process exit with code 0.
   */
  keepProcessAlive(): void {
    if (this.stopped || this.keepAlive !== undefined) return;
    this.keepAlive = setInterval(() => {}, 3_600_000);
  }

  /** Runs `fn` every `ms` until `stop()`. */
  every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Runs `fn` after `ms` unless `stop()` comes first. */
  later(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Resolves after `ms`, or at once when `stop()` is called (or was). */
  sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(t);
        this.sleepers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  track(task: Promise<void>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /** Cancels every timer and wakes every sleeper; later calls do nothing. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const wake of [...this.sleepers]) wake();
  }

  /** A counted consume task began (see `busy`). */
  taskBegun(): void {
    this.busy++;
  }

  /** A counted consume task ended. */
  taskEnded(): void {
    if (--this.busy > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves true once every tracked and counted task finished, false after `timeoutMs`. */
  async whenTasksDone(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.tasks.size > 0 || this.busy > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const idle = this.busy === 0 ? undefined : new Promise<void>((r) => this.idleWaiters.push(r));
      await Promise.race([
        Promise.allSettled([...this.tasks, ...(idle === undefined ? [] : [idle])]),
        new Promise<void>((r) => (timer = setTimeout(r, left))),
      ]);
      clearTimeout(timer);
    }
    return true;
  }
}
