/**
 * Long polling of POP_MESSAGE and NOTIFICATION (Java `PopLongPollingService`): a request that
 * found nothing waits on its topics (the subscribed topic and its retry topic) until a message
 * arrives there, an orderly lock is released, or its poll time ends; then it runs once more.
 *
 * A POP reads its queues asynchronously, so a notify can come between its read finding nothing
 * and its wait beginning. Every notify is therefore counted per topic: the POP takes `mark` of its
 * topics before it reads and hands it to `wait`, which returns at once when the count moved.
 */

/** Java `popPollingSize`: more waiters than this on one topic → POLLING_FULL. */
export const POP_POLLING_SIZE = 1024;

interface Waiter {
  wake: () => void;
}

export class PopWaiters {
  private readonly byTopic = new Map<string, Set<Waiter>>();
  private readonly byOwner = new Map<object, Set<Waiter>>();
  /** Notifies per topic so far (a topic's entry lives as long as the broker: a few numbers). */
  private readonly notifies = new Map<string, number>();
  private stopped = false;

  /** True when `topic` already has the most waiters allowed. */
  full(topic: string): boolean {
    return (this.byTopic.get(topic)?.size ?? 0) >= POP_POLLING_SIZE;
  }

  /** How many notifies `topics` had so far; it only grows, so a changed mark means a notify. */
  mark(topics: readonly string[]): number {
    let n = 0;
    for (const t of topics) n += this.notifies.get(t) ?? 0;
    return n;
  }

  /**
   * Resolves when one of `topics` is notified, `timeoutMs` passes, or `owner` is released; at
   * once when one was notified since `since` (their `mark` before the caller looked for messages).
   */
  wait(topics: readonly string[], timeoutMs: number, owner: object, since: number): Promise<void> {
    if (this.stopped || timeoutMs <= 0 || this.mark(topics) !== since) return Promise.resolve();
    return new Promise((resolve) => {
      let done = false;
      const waiter: Waiter = {
        wake: () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          for (const t of topics) {
            const set = this.byTopic.get(t);
            set?.delete(waiter);
            if (set?.size === 0) this.byTopic.delete(t);
          }
          const mine = this.byOwner.get(owner);
          mine?.delete(waiter);
          if (mine?.size === 0) this.byOwner.delete(owner);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      timer.unref();
      for (const t of topics) {
        let set = this.byTopic.get(t);
        if (!set) this.byTopic.set(t, (set = new Set()));
        set.add(waiter);
      }
      let mine = this.byOwner.get(owner);
      if (!mine) this.byOwner.set(owner, (mine = new Set()));
      mine.add(waiter);
    });
  }

  notify(topic: string): void {
    this.notifies.set(topic, (this.notifies.get(topic) ?? 0) + 1);
    const set = this.byTopic.get(topic);
    if (set) for (const w of [...set]) w.wake();
  }

  releaseOwner(owner: object): void {
    const mine = this.byOwner.get(owner);
    if (mine) for (const w of [...mine]) w.wake();
  }

  get size(): number {
    let n = 0;
    for (const s of this.byOwner.values()) n += s.size;
    return n;
  }

  start(): void {
    this.stopped = false;
  }

  stop(): void {
    this.stopped = true;
    for (const set of [...this.byOwner.values()]) for (const w of [...set]) w.wake();
  }
}
