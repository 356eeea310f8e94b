/**
 * Concurrent consumption (Java `ConsumeMessageConcurrentlyService`, consumer.md §2.6): pulled
 * messages are cut into calls of consumeMessageBatchMaxSize and run in the handler pool. A call
 * that resolves finishes its messages; one that throws, rejects or times out sends them back
 * (clustering) so the broker redelivers them through `%RETRY%<group>`, or drops them
 * (broadcasting, as Java). Either way they leave the ProcessQueue and the committed offset moves
 * to the smallest offset still in flight. A message the broker would not take back stays cached
 * and is consumed again here after 5 s, so it is never lost.
 */
import type { ConsumeTracer } from './msg-trace.js';
import type { SubBeforeTrace } from '../protocol/trace/trace-data.js';
import type { Logger } from '../observability/logger.js';
import { PropertyKey } from '../protocol/message/properties.js';
import type { MessageQueue } from '../client/route.js';
import type { ConsumeOutcome, ConsumeTraceContext, HandlerPool } from './handler-pool.js';
import type { ConsumerMessage } from './message-view.js';
import type { QueueEntry } from './pull-loop.js';
import type { SendBack } from './send-back.js';

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
}

/**
 * One handler call for `messages` of `entry`, with its statistics and failure report; undefined
 * when it was skipped (queue dropped, or shutdown began before a slot was free) or the queue was
 * dropped meanwhile, so its result no longer counts.
 */
export async function callHandler(
  ctx: ConsumeContext,
  entry: QueueEntry,
  messages: ConsumerMessage[],
): Promise<ConsumeOutcome | undefined> {
  const { pq } = entry;
  let skipped = false;
  const started = Date.now();
  let traced: SubBeforeTrace | undefined;
  const outcome = await ctx.pool.run(
    () => {
      if (pq.dropped || !ctx.isRunning()) {
        skipped = true;
        return undefined;
      }
      const now = String(started);
      for (const m of messages) m.systemProperties[PropertyKey.CONSUME_START_TIME] = now;
      traced = ctx.msgTrace?.before(messages);
      return ctx.invoke(messages);
    },
    () => ctx.trace(entry, messages),
  );
  if (traced !== undefined) ctx.msgTrace?.after(traced, outcome);
  if (pq.dropped || skipped) return undefined;
  ctx.record(entry, messages.length, outcome.ok, Date.now() - started);
  if (!outcome.ok) ctx.handlerFailed(entry, messages, outcome);
  return outcome;
}

export class ConcurrentConsumeService {
  constructor(private readonly ctx: ConsumeContext) {}

  submit(entry: QueueEntry, messages: readonly ConsumerMessage[]): void {
    const n = this.ctx.batchMaxSize;
    if (messages.length <= n) this.ctx.track(this.consume(entry, messages as ConsumerMessage[]));
    else
      for (let i = 0; i < messages.length; i += n)
        this.ctx.track(this.consume(entry, messages.slice(i, i + n)));
  }

  private async consume(entry: QueueEntry, messages: ConsumerMessage[]): Promise<void> {
    const { pq, mq } = entry;
    if (pq.dropped) return;
    const ctx = this.ctx;
    const outcome = await callHandler(ctx, entry, messages);
    // Skipped, or the queue was dropped: it belongs to another consumer now (Java).
    if (outcome === undefined) return;
    let retryHere: ConsumerMessage[] = [];
    // Broadcasting drops failures (Java): every member has its own copy of the queue.
    if (!outcome.ok && ctx.clustering) {
      const stored = await Promise.all(messages.map((m) => ctx.sendBack.sendBack(m)));
      retryHere = messages.filter((_, i) => !stored[i]);
    }
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
