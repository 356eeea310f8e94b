/**
 * Long polling (Java `PullRequestHoldService`): a PULL that found nothing waits here until a
 * message arrives for its queue (the store's 'messageArrived' event) or its suspend time is up,
 * then the pull runs once more and is answered.
 */
export interface HeldPull {
  topic: string;
  queueId: number;
  /** The offset the consumer asked for; any maxOffset above it wakes the pull. */
  offset: number;
  wake: () => void;
  /** Settles the hold without a message (connection closed). */
  cancel: () => void;
}

export class PullHoldService {
  /** Holds by topic, then queue: an arrival looks up its queue's holds without building a key. */
  private readonly held = new Map<string, Map<number, Set<HeldPull>>>();
  /** Holds per connection, so a closed connection releases its holds without per-hold listeners. */
  private readonly byOwner = new Map<object, Set<HeldPull>>();
  private stopped = false;

  /**
   * Waits until a message beyond `offset` arrives or `timeoutMs` passes (or `owner`, the
   * connection, is released with `releaseOwner`). Resolves to true when woken by a message.
   */
  hold(
    topic: string,
    queueId: number,
    offset: number,
    timeoutMs: number,
    currentMaxOffset: () => number,
    owner: object,
  ): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      let queues = this.held.get(topic);
      if (!queues) this.held.set(topic, (queues = new Map()));
      let set = queues.get(queueId);
      if (!set) queues.set(queueId, (set = new Set()));
      const entry: HeldPull = {
        topic,
        queueId,
        offset,
        wake: () => finish(true),
        cancel: () => finish(false),
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      timer.unref();
      let done = false;
      const finish = (arrived: boolean): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const qs = this.held.get(topic);
        const s = qs?.get(queueId);
        s?.delete(entry);
        if (s?.size === 0) {
          qs!.delete(queueId);
          if (qs!.size === 0) this.held.delete(topic);
        }
        const mine = this.byOwner.get(owner);
        mine?.delete(entry);
        if (mine?.size === 0) this.byOwner.delete(owner);
        resolve(arrived);
      };
      set.add(entry);
      let mine = this.byOwner.get(owner);
      if (!mine) this.byOwner.set(owner, (mine = new Set()));
      mine.add(entry);
      // A message may have arrived between the failed read and this registration.
      if (currentMaxOffset() > offset) finish(true);
    });
  }

  /** Store event: the queue's max offset is now `maxOffset`. */
  notifyMessageArriving(topic: string, queueId: number, maxOffset: number): void {
    const set = this.held.get(topic)?.get(queueId);
    if (!set) return;
    // Waking removes the entry from `set`: iterate over a copy.
    for (const entry of [...set]) if (maxOffset > entry.offset) entry.wake();
  }

  /** The connection closed: its held pulls end without an answer. */
  releaseOwner(owner: object): void {
    const mine = this.byOwner.get(owner);
    if (!mine) return;
    for (const entry of [...mine]) entry.cancel();
  }

  get size(): number {
    let n = 0;
    for (const queues of this.held.values()) for (const s of queues.values()) n += s.size;
    return n;
  }

  /** Accepts holds again (after a restart). */
  start(): void {
    this.stopped = false;
  }

  /** Wakes every held pull (they answer with what they find) and refuses new holds. */
  stop(): void {
    this.stopped = true;
    for (const queues of [...this.held.values()])
      for (const set of [...queues.values()]) for (const entry of [...set]) entry.wake();
  }
}
