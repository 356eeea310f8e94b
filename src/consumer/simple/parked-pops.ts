/**
 * What an aborted `receive` leaves behind, kept so that no message is lost to it. A POP already
 * sent cannot be called back: the broker answers it later, and the messages in that answer are
 * already invisible to the whole group. Rather than drop them (they would come back only after
 * their invisible time, 60 s by default, with nobody working on them), the POP is parked:
 * - the next `receive` adopts a parked POP instead of sending another (one long poll, not two);
 * - a parked POP that is answered while nobody waits leaves its messages here, and the next
 *   `receive` returns them first, dropping any whose invisible time ran out meanwhile (the
 *   broker delivers those again by itself);
 * - more messages than a `receive` asked for (an adopted POP asked for more) wait here too.
 * Shutdown forgets all of it: the messages come back after their invisible time, as any
 * received message that is not acked does.
 */
import { parseExtraInfo } from '../../protocol/pop/extra-info.js';
import type { Logger } from '../../observability/logger.js';
import type { PoppedMessage } from './pop-response.js';

export class ParkedPops {
  private readonly parked: Array<Promise<PoppedMessage[]>> = [];
  private leftover: PoppedMessage[] = [];

  constructor(private readonly logger: Logger) {}

  /** POPs parked and messages waiting (for tests and stats). */
  get size(): { parked: number; leftover: number } {
    return { parked: this.parked.length, leftover: this.leftover.length };
  }

  /** A parked POP for the next receive to wait on instead of sending one; undefined when none. */
  adopt(): Promise<PoppedMessage[]> | undefined {
    return this.parked.shift();
  }

  /** The caller of `pop` gave up: its answer, whenever it comes, is kept here. */
  park(pop: Promise<PoppedMessage[]>): void {
    this.parked.push(pop);
    pop.then(
      (messages) => {
        // Adopted meanwhile: the adopter has them.
        if (!this.unpark(pop)) return;
        this.keep(messages);
      },
      (err: unknown) => {
        if (this.unpark(pop)) this.logger.debug('a parked POP failed', { error: err });
      },
    );
  }

  /** Keeps `messages` (not yet returned) for the next receive. */
  keep(messages: readonly PoppedMessage[]): void {
    if (messages.length > 0) this.leftover.push(...messages);
  }

  /** Up to `max` kept messages still invisible to the others (visible ones are dropped: they come back). */
  take(max: number, now = Date.now()): PoppedMessage[] {
    const live = this.leftover.filter((m) => stillInvisible(m, now));
    const out = live.slice(0, max);
    this.leftover = live.slice(max);
    return out;
  }

  /** `messages` cut to `max`; the rest is kept for the next receive. */
  trim(messages: PoppedMessage[], max: number): PoppedMessage[] {
    if (messages.length <= max) return messages;
    this.keep(messages.slice(max));
    return messages.slice(0, max);
  }

  clear(): void {
    this.parked.length = 0;
    this.leftover = [];
  }

  private unpark(pop: Promise<PoppedMessage[]>): boolean {
    const i = this.parked.indexOf(pop);
    if (i < 0) return false;
    this.parked.splice(i, 1);
    return true;
  }
}

function stillInvisible(m: PoppedMessage, now: number): boolean {
  try {
    const info = parseExtraInfo(m.receiptHandle);
    return info.popTime + info.invisibleTime > now;
  } catch {
    return false;
  }
}
