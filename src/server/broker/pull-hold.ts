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

function key(topic: string, queueId: number): string {
  return `${topic}@${queueId}`;
}

export class PullHoldService {
  private readonly held = new Map<string, Set<HeldPull>>();
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
      const k = key(topic, queueId);
      let set = this.held.get(k);
      if (!set) this.held.set(k, (set = new Set()));
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
        const s = this.held.get(k);
        s?.delete(entry);
        if (s?.size === 0) this.held.delete(k);
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
    const set = this.held.get(key(topic, queueId));
    if (!set) return;
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
    for (const s of this.held.values()) n += s.size;
    return n;
  }

  /** Accepts holds again (after a restart). */
  start(): void {
    this.stopped = false;
  }

  /** Wakes every held pull (they answer with what they find) and refuses new holds. */
  stop(): void {
    this.stopped = true;
    for (const set of [...this.held.values()]) for (const entry of [...set]) entry.wake();
  }
}
