/**
 * [5.x] Send backpressure (`backPressureForAsyncSendNum` / `backPressureForAsyncSendSize`,
 * docs/producer.md §4.2): at most N sends and S body bytes in flight per producer. A send beyond
 * either limit waits, first come first served, for room until its timeout, then rejects with
 * BackpressureError, so a caller that produces faster than the brokers take never queues without
 * bound. Java applies it to callback sends only and only with `enableBackpressureForAsyncMode`;
 * every send here is asynchronous, so it applies to every send (deviation, docs/producer.md §4.2).
 */
import { BackpressureError } from '../errors.js';
import { whenAborted } from '../remoting/abort.js';

interface Waiter {
  bytes: number;
  grant: () => void;
  timer: NodeJS.Timeout;
  /** Removes the listener on the caller's signal; undefined without one. */
  dispose: (() => void) | undefined;
}

export class SendPermits {
  private count = 0;
  private bytes = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly maxCount: number,
    private readonly maxBytes: number,
  ) {}

  /** In-flight sends and bytes (for tests and stats). */
  get inFlight(): { count: number; bytes: number } {
    return { count: this.count, bytes: this.bytes };
  }

  /** Sends waiting for room (for tests and stats). */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Takes room for one send of `bytes` (at least 1, as Java counts an empty body): undefined
   * when taken at once, else a promise that settles when taken or rejects after `timeoutMs`, or
   * with AbortError when `signal` aborts first (the waiter leaves the line, nothing is taken).
   * The caller checks an already aborted signal before.
   */
  acquire(bytes: number, timeoutMs: number, signal?: AbortSignal): Promise<void> | undefined {
    const size = Math.max(1, bytes);
    if (this.waiters.length === 0 && this.fits(size)) {
      this.take(size);
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: size,
        grant: resolve,
        dispose: undefined,
        timer: setTimeout(() => {
          const err = new BackpressureError(
            `send waited ${timeoutMs} ms for room: ${this.count} sends / ${this.bytes} bytes in flight ` +
              `(backPressureForAsyncSendNum ${this.maxCount}, backPressureForAsyncSendSize ${this.maxBytes})`,
          );
          this.leave(waiter);
          reject(err);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
      if (signal !== undefined)
        waiter.dispose = whenAborted(
          signal,
          (err) => {
            clearTimeout(waiter.timer);
            this.leave(waiter);
            reject(err);
          },
          'the send',
        );
    });
  }

  /** `w` gave up waiting (timeout or abort). */
  private leave(w: Waiter): void {
    w.dispose?.();
    const i = this.waiters.indexOf(w);
    if (i >= 0) this.waiters.splice(i, 1);
    // A waiter that gave up may have been what blocked the ones behind it.
    this.drain();
  }

  release(bytes: number): void {
    this.count--;
    this.bytes -= Math.max(1, bytes);
    this.drain();
  }

  /** A single send larger than the byte limit still goes alone once nothing else is in flight. */
  private fits(size: number): boolean {
    return this.count < this.maxCount && (this.bytes + size <= this.maxBytes || this.count === 0);
  }

  private take(size: number): void {
    this.count++;
    this.bytes += size;
  }

  private drain(): void {
    for (let w = this.waiters[0]; w !== undefined && this.fits(w.bytes); w = this.waiters[0]) {
      this.waiters.shift();
      clearTimeout(w.timer);
      w.dispose?.();
      this.take(w.bytes);
      w.grant();
    }
  }
}
