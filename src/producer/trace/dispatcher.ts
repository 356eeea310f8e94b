/**
 * Java's `AsyncTraceDispatcher`, the part that matters to the application: trace contexts are
 * queued (bounded; a full queue drops and counts), encoded into Java's record format and sent
 * in batches to the trace topic by an internal producer, off the caller's path. A trace send
 * that fails is counted and forgotten: tracing never slows or fails a user send or consume.
 *
 * A batch (one trace message) is cut at `maxBatchChars` (Java 4.9: maxMessageSize − 10 000) or
 * sent `flushIntervalMs` after its first record (Java 4.9 polls in 100 ms windows). Its KEYS are
 * the msgIds and user keys of its records, so `queryMsgTraceById` and the dashboard find it.
 */
import type { Logger } from '../../observability/logger.js';
import { encodeTraceContext, type TraceContext } from '../../protocol/trace/trace-data.js';
import type { Message } from '../message.js';

/** What the dispatcher sends with: an internal producer in production, a fake in tests. */
export interface TraceSender {
  start(): Promise<void>;
  send(message: Message): Promise<unknown>;
  shutdown(): Promise<void>;
}

export interface TraceDispatcherSettings {
  traceTopic: string;
  /** Contexts waiting to be sent before new ones are dropped. @default 10000 */
  queueSize?: number;
  /** Body size (chars) at which a batch is cut. @default 118000 */
  maxBatchChars?: number;
  /** A batch is sent at the latest this long after its first record (ms). @default 100 */
  flushIntervalMs?: number;
  /** Trace messages in flight at once; more wait in the queue. @default 4 */
  maxInFlight?: number;
  logger: Logger;
}

/** Counters of `traceStats()`. */
export interface TraceStats {
  /** Contexts accepted into the queue. */
  queued: number;
  /** Contexts dropped because the queue was full (or the dispatcher stopped). */
  dropped: number;
  /** Trace messages sent. */
  sent: number;
  /** Trace messages whose send failed (their records are lost). */
  failed: number;
}

interface Pending {
  data: string;
  keys: string[];
}

export class TraceDispatcher {
  private readonly queue: Pending[] = [];
  private queuedChars = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private readonly counters: TraceStats = { queued: 0, dropped: 0, sent: 0, failed: 0 };
  private readonly queueSize: number;
  private readonly maxBatchChars: number;
  private readonly flushIntervalMs: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly sender: TraceSender,
    private readonly settings: TraceDispatcherSettings,
  ) {
    this.queueSize = settings.queueSize ?? 10_000;
    this.maxBatchChars = settings.maxBatchChars ?? 118_000;
    this.flushIntervalMs = settings.flushIntervalMs ?? 100;
    this.maxInFlight = settings.maxInFlight ?? 4;
  }

  get traceTopic(): string {
    return this.settings.traceTopic;
  }

  async start(): Promise<void> {
    await this.sender.start();
    this.running = true;
  }

  stats(): TraceStats {
    return { ...this.counters };
  }

  /** Queues a context; false when it was dropped. Never throws, never waits. */
  append(ctx: TraceContext): boolean {
    if (!this.running || this.queue.length >= this.queueSize) {
      this.counters.dropped++;
      return false;
    }
    const { data, keys } = encodeTraceContext(ctx);
    this.queue.push({ data, keys });
    this.queuedChars += data.length;
    this.counters.queued++;
    if (this.queuedChars >= this.maxBatchChars) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
    return true;
  }

  /** Sends queued records, as many batches as the in-flight limit allows. */
  private flush(): void {
    while (this.queue.length > 0 && this.inFlight.size < this.maxInFlight) {
      let chars = 0;
      let n = 0;
      while (n < this.queue.length) {
        const len = (this.queue[n] as Pending).data.length;
        if (n > 0 && chars + len > this.maxBatchChars) break;
        chars += len;
        n++;
      }
      const batch = this.queue.splice(0, n);
      this.queuedChars -= chars;
      this.sendBatch(batch);
    }
    // Left over (in-flight limit reached): retried when a send completes.
  }

  private sendBatch(batch: Pending[]): void {
    const keys = new Set<string>();
    for (const p of batch) for (const k of p.keys) keys.add(k);
    const message: Message = {
      topic: this.settings.traceTopic,
      body: batch.map((p) => p.data).join(''),
      keys: [...keys].join(' '),
    };
    const task = this.sender.send(message).then(
      () => {
        this.counters.sent++;
      },
      (err: unknown) => {
        this.counters.failed++;
        this.settings.logger.warn('trace message not sent; its records are dropped', {
          traceTopic: this.settings.traceTopic,
          records: batch.length,
          error: err instanceof Error ? err.message : String(err),
        });
      },
    );
    this.inFlight.add(task);
    void task.then(() => {
      this.inFlight.delete(task);
      if (this.queue.length > 0 && this.timer === undefined) this.flush();
    });
  }

  /** Sends what is queued, waits for the trace sends in flight, stops the sender. */
  async shutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.flush();
      await Promise.allSettled([...this.inFlight]);
    }
    await this.sender.shutdown();
  }
}
