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

export class HeldMessages {
  /** Message → when it becomes visible again (ms). */
  private readonly until = new Map<PoppedMessage, number>();
  /** Per queue key: the queue and when a receive last brought one of its messages. */
  private readonly lastPop = new Map<string, { mq: MessageQueue; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  add(messages: readonly PoppedMessage[], invisibleMs: number): void {
    if (messages.length === 0) return;
    const at = this.now();
    // A response's messages of one queue share one queue object: its key is built once per run.
    let queue: PoppedMessage['queue'] | undefined;
    for (const m of messages) {
      this.until.set(m, at + invisibleMs);
      if (m.queue === queue) continue;
      queue = m.queue;
      this.lastPop.set(heldQueueKey(m), { mq: m.queue, at });
    }
  }

  /** A new invisible duration from now (changeInvisibleDuration). */
  extend(m: PoppedMessage, invisibleMs: number): void {
    if (this.until.has(m)) this.until.set(m, this.now() + invisibleMs);
  }

  settle(m: PoppedMessage): void {
    this.until.delete(m);
  }

  clear(): void {
    this.until.clear();
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
    for (const [m, until] of this.until) {
      if (until <= now) {
        this.until.delete(m);
        continue;
      }
      const key = heldQueueKey(m);
      out.set(key, (out.get(key) ?? 0) + 1);
    }
    return out;
  }
}
