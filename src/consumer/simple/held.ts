/**
 * The messages a SimpleConsumer received and has not settled (acked or given a new invisible
 * duration that ended): its own in-flight figure per queue, for `lag()` against a broker that
 * reports no POP in-flight count (a Java broker) and for GET_CONSUMER_RUNNING_INFO
 * (docs/consumers.md §3.6). Entries leave on ack, or when their invisible time is over (the
 * broker then hands them to anyone again).
 */
import type { MessageQueue } from '../../client/route.js';
import type { PoppedMessage } from './pop-response.js';

/** One queue's held messages (Java `PopProcessQueueInfo`'s figures). */
export interface HeldQueue {
  mq: MessageQueue;
  waitAckCount: number;
  /** When a receive last brought a message of this queue (ms). */
  lastPopTimestamp: number;
}

/** `topic@brokerName@queueId` of a received message (its wire topic). */
export function heldQueueKey(m: { queue: { topic: string; brokerName: string; queueId: number } }): string {
  return `${m.queue.topic}@${m.queue.brokerName}@${m.queue.queueId}`;
}

/** The batch a held message came in; the message names it until it is settled. */
const HELD = Symbol('held');

/** One `add`: its messages share one visibility deadline and one record. */
interface HeldBatch {
  readonly messages: readonly PoppedMessage[];
  /** When they become visible again (ms), unless `extend` moved one. */
  readonly until: number;
  /** Messages of the batch still held. */
  open: number;
}

type Held = PoppedMessage & { [HELD]?: HeldBatch | undefined };

export class HeldMessages {
  /**
   * The batches with messages still held. A record per receive and a field on each message, not a
   * map entry per message: a drain's add and delete per message showed in its profile and GC.
   */
  private readonly batches = new Set<HeldBatch>();
  /** Message → its deadline, for the few whose invisible duration was changed. */
  private readonly extended = new Map<PoppedMessage, number>();
  /** Per queue key: the queue and when a receive last brought one of its messages. */
  private readonly lastPop = new Map<string, { mq: MessageQueue; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  add(messages: readonly PoppedMessage[], invisibleMs: number): void {
    if (messages.length === 0) return;
    const at = this.now();
    // A copy: the array itself goes to the application, which may change it.
    const batch: HeldBatch = { messages: messages.slice(), until: at + invisibleMs, open: 0 };
    // A response's messages of one queue share one queue object: its key is built once per run.
    let queue: PoppedMessage['queue'] | undefined;
    for (const m of messages) {
      const held = m as Held;
      // Held already (a message given back and received again): it moves to this batch.
      if (held[HELD] !== undefined) this.settle(m);
      held[HELD] = batch;
      batch.open++;
      if (m.queue === queue) continue;
      queue = m.queue;
      this.lastPop.set(heldQueueKey(m), { mq: m.queue, at });
    }
    this.batches.add(batch);
  }

  /** A new invisible duration from now (changeInvisibleDuration). */
  extend(m: PoppedMessage, invisibleMs: number): void {
    if ((m as Held)[HELD] !== undefined) this.extended.set(m, this.now() + invisibleMs);
  }

  settle(m: PoppedMessage): void {
    const held = m as Held;
    const batch = held[HELD];
    if (batch === undefined) return;
    held[HELD] = undefined;
    if (--batch.open === 0) this.batches.delete(batch);
    if (this.extended.size > 0) this.extended.delete(m);
  }

  clear(): void {
    for (const batch of this.batches) for (const m of batch.messages) (m as Held)[HELD] = undefined;
    this.batches.clear();
    this.extended.clear();
    this.lastPop.clear();
  }

  /** Every queue a receive brought messages of, with its held (still invisible) count. */
  queues(): HeldQueue[] {
    const counts = this.byQueue();
    return [...this.lastPop].map(([key, { mq, at }]) => ({
      mq,
      waitAckCount: counts.get(key) ?? 0,
      lastPopTimestamp: at,
    }));
  }

  /** Held messages still invisible, per queue key (heldQueueKey); expired ones are dropped. */
  byQueue(): Map<string, number> {
    const now = this.now();
    const out = new Map<string, number>();
    for (const batch of [...this.batches])
      for (const m of batch.messages) {
        if ((m as Held)[HELD] !== batch) continue;
        const until = this.extended.get(m) ?? batch.until;
        if (until <= now) {
          this.settle(m);
          continue;
        }
        const key = heldQueueKey(m);
        out.set(key, (out.get(key) ?? 0) + 1);
      }
    return out;
  }
}
