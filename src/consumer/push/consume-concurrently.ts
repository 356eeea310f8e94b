/**
 * Concurrent consumption (Java `ConsumeMessageConcurrentlyService`, docs/consumers.md §1.6): pulled
 * messages are cut into calls of consumeMessageBatchMaxSize and run in the handler pool. A call
 * that resolves finishes its messages; one that throws, rejects or times out sends them back
 * (clustering) so the broker redelivers them through `%RETRY%<group>`, or drops them
 * (broadcasting, as Java). Either way they leave the ProcessQueue and the committed offset moves
 * to the smallest offset still in flight. A message the broker would not take back stays cached
 * and is consumed again here after 5 s, so it is never lost.
 */
import type { ConsumeTracer } from '../core/msg-trace.js';
import type { SubBeforeTrace } from '../../protocol/trace/trace-data.js';
import type { Logger } from '../../observability/logger.js';
import type { MessageQueue } from '../../client/route.js';
import {
  HandlerCall,
  type ConsumeOutcome,
  type ConsumeTraceContext,
  type HandlerPool,
} from '../core/handler-pool.js';
import { markConsumeStart, type ConsumerMessage } from '../core/message-view.js';
import type { QueueEntry } from '../core/pull-loop.js';
import type { SendBack } from '../core/send-back.js';

/** Java: a message neither sent back nor re-sent is consumed again after 5 s. */
export const LOCAL_RETRY_DELAY_MS = 5000;

export interface ConsumeContext {
  readonly pool: HandlerPool;
  readonly sendBack: SendBack;
  readonly logger: Logger;
  readonly clustering: boolean;
  readonly batchMaxSize: number;
  /** False once shutdown began: calls not yet started are skipped, their messages stay cached. */
  isRunning(): boolean;
  /** Calls the user's handler with one message or a batch. */
  invoke(messages: ConsumerMessage[]): unknown;
  /** Statistics of one handler call. */
  record(entry: QueueEntry, count: number, ok: boolean, rtMs: number): void;
  trace(entry: QueueEntry, messages: ConsumerMessage[]): ConsumeTraceContext;
  /** Java message trace (`enableMsgTrace`); undefined when off. */
  readonly msgTrace?: ConsumeTracer | undefined;
  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void;
  handlerFailed(
    entry: QueueEntry,
    messages: ConsumerMessage[],
    outcome: ConsumeOutcome & { ok: false },
  ): void;
  /** Runs `fn` after `ms` unless the consumer shuts down first. */
  later(ms: number, fn: () => void): void;
  /** Registers a consume task; shutdown waits for the tasks so their offsets get committed. */
  track(task: Promise<void>): void;
  /** `track` without a promise: a consume call began / ended (one pair per concurrent call). */
  taskBegun(): void;
  taskEnded(): void;
}

/**
 * One handler call for `messages` of `entry`, with its statistics and failure report. `finished`
 * gets undefined when the call was skipped (queue dropped, or shutdown began before a slot was
 * free) or the queue was dropped meanwhile, so its result no longer counts. One object per call,
 * no promise of its own: the concurrent service makes one call per message.
 */
abstract class ConsumeCall extends HandlerCall {
  /** Java message trace's SubBefore record of this call (when tracing is on). */
  private traced: SubBeforeTrace | undefined;
  constructor(
    protected readonly ctx: ConsumeContext,
    protected readonly entry: QueueEntry,
    protected readonly messages: ConsumerMessage[],
  ) {
    super();
  }

  protected abstract finished(outcome: ConsumeOutcome | undefined): void;

  call(): unknown {
    if (this.entry.pq.dropped || !this.ctx.isRunning()) {
      this.skipped = true;
      return undefined;
    }
    // The pool stamped `started` just before this call.
    markConsumeStart(this.messages, this.started);
    this.traced = this.ctx.msgTrace?.before(this.messages);
    return this.ctx.invoke(this.messages);
  }

  override batch(): readonly ConsumerMessage[] {
    return this.messages;
  }

  trace(): ConsumeTraceContext {
    return this.ctx.trace(this.entry, this.messages);
  }

  done(outcome: ConsumeOutcome): void {
    const { ctx, entry, messages } = this;
    if (this.traced !== undefined) ctx.msgTrace?.after(this.traced, outcome);
    if (entry.pq.dropped || this.skipped) return this.finished(undefined);
    ctx.record(entry, messages.length, outcome.ok, Date.now() - this.started);
    if (!outcome.ok) ctx.handlerFailed(entry, messages, outcome);
    this.finished(outcome);
  }
}

class AwaitedCall extends ConsumeCall {
  constructor(
    ctx: ConsumeContext,
    entry: QueueEntry,
    messages: ConsumerMessage[],
    private readonly resolve: (outcome: ConsumeOutcome | undefined) => void,
  ) {
    super(ctx, entry, messages);
  }
  protected finished(outcome: ConsumeOutcome | undefined): void {
    this.resolve(outcome);
  }
}

/** One handler call as a promise (the orderly service awaits each call); see `ConsumeCall`. */
export function callHandler(
  ctx: ConsumeContext,
  entry: QueueEntry,
  messages: ConsumerMessage[],
): Promise<ConsumeOutcome | undefined> {
  return new Promise((resolve) => ctx.pool.submit(new AwaitedCall(ctx, entry, messages, resolve)));
}

class ConcurrentCall extends ConsumeCall {
  constructor(
    ctx: ConsumeContext,
    entry: QueueEntry,
    messages: ConsumerMessage[],
    private readonly service: ConcurrentConsumeService,
  ) {
    super(ctx, entry, messages);
  }
  protected finished(outcome: ConsumeOutcome | undefined): void {
    this.service.afterCall(this.entry, this.messages, outcome);
  }
}

export class ConcurrentConsumeService {
  constructor(private readonly ctx: ConsumeContext) {}

  /**
   * Hands pulled messages to the pool. `messages` becomes the service's: a one-message pull (the
   * usual case at a low rate) is passed to its call as it is, without a copy.
   */
  submit(entry: QueueEntry, messages: ConsumerMessage[]): void {
    if (entry.pq.dropped || messages.length === 0) return;
    const n = this.ctx.batchMaxSize;
    if (messages.length === 1) this.consume(entry, messages);
    else if (n === 1) for (const m of messages) this.consume(entry, [m]);
    else for (let i = 0; i < messages.length; i += n) this.consume(entry, messages.slice(i, i + n));
  }

  private consume(entry: QueueEntry, messages: ConsumerMessage[]): void {
    if (entry.pq.dropped) return;
    // Shutdown waits for every call begun here, so the offsets of what finished get committed.
    this.ctx.taskBegun();
    this.ctx.pool.submit(new ConcurrentCall(this.ctx, entry, messages, this));
  }

  /** @internal A call finished (see ConcurrentCall). */
  afterCall(entry: QueueEntry, messages: ConsumerMessage[], outcome: ConsumeOutcome | undefined): void {
    const ctx = this.ctx;
    // Skipped, or the queue was dropped: it belongs to another consumer now (Java).
    if (outcome === undefined) return ctx.taskEnded();
    // Broadcasting drops failures (Java): every member has its own copy of the queue.
    if (outcome.ok || !ctx.clustering) {
      this.finish(entry, messages, []);
      return ctx.taskEnded();
    }
    void this.sendBack(entry, messages).finally(() => ctx.taskEnded());
  }

  private async sendBack(entry: QueueEntry, messages: ConsumerMessage[]): Promise<void> {
    const stored = await Promise.all(messages.map((m) => this.ctx.sendBack.sendBack(m)));
    this.finish(
      entry,
      messages,
      messages.filter((_, i) => !stored[i]),
    );
  }

  /** The messages leave the ProcessQueue (but `retryHere`, consumed again here in 5 s). */
  private finish(entry: QueueEntry, messages: ConsumerMessage[], retryHere: ConsumerMessage[]): void {
    const { pq, mq } = entry;
    const ctx = this.ctx;
    const done = retryHere.length === 0 ? messages : messages.filter((m) => !retryHere.includes(m));
    const offset = pq.removeMessages(done);
    if (offset >= 0 && !pq.dropped) ctx.updateOffset(mq, offset, true);
    if (retryHere.length > 0) {
      ctx.logger.warn('message could not be given back to the broker; consuming it again here in 5 s', {
        mq,
        msgIds: retryHere.map((m) => m.msgId),
      });
      for (const m of retryHere) m.reconsumeTimes++;
      ctx.later(LOCAL_RETRY_DELAY_MS, () => this.submit(entry, retryHere));
    }
  }
}
