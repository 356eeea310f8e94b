/**
 * Long polling of POP_MESSAGE and NOTIFICATION (Java `PopLongPollingService`): a request that
 * found nothing waits on its topics (the subscribed topic and its retry topic) until a message
 * arrives there, an orderly lock is released, or its poll time ends; then it runs once more.
 */

/** Java `popPollingSize`: more waiters than this on one topic → POLLING_FULL. */
export const POP_POLLING_SIZE = 1024;

interface Waiter {
  wake: () => void;
}

export class PopWaiters {
  private readonly byTopic = new Map<string, Set<Waiter>>();
  private readonly byOwner = new Map<object, Set<Waiter>>();
  private stopped = false;

  /** True when `topic` already has the most waiters allowed. */
  full(topic: string): boolean {
    return (this.byTopic.get(topic)?.size ?? 0) >= POP_POLLING_SIZE;
  }

  /** Resolves when one of `topics` is notified, `timeoutMs` passes, or `owner` is released. */
  wait(topics: readonly string[], timeoutMs: number, owner: object): Promise<void> {
    if (this.stopped || timeoutMs <= 0) return Promise.resolve();
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
