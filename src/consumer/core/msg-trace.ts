/**
 * Java's `ConsumeMessageTraceHookImpl` (`enableMsgTrace` on the consumer): a `SubBefore` record
 * per message when its handler call starts and a `SubAfter` record per message when it settles,
 * paired by a request id, handed to the trace dispatcher (producer/trace/dispatcher.ts).
 * Messages the broker marked TRACE_ON=false are not traced.
 */
import { PropertyKey } from '../../protocol/message/properties.js';
import { UniqIdGenerator } from '../../protocol/message/message-id.js';
import {
  ConsumeReturnType,
  type SubBeforeTrace,
  type SubTraceBean,
} from '../../protocol/trace/trace-data.js';
import type { TraceDispatcher } from '../../producer/trace/dispatcher.js';
import type { ConsumeOutcome } from './handler-pool.js';
import type { ConsumerMessage } from './message-view.js';

export class ConsumeTracer {
  private readonly ids = new UniqIdGenerator();

  constructor(
    private readonly dispatcher: TraceDispatcher,
    /** Consumer group without namespace (Java). */
    private readonly groupName: string,
  ) {}

  /** Records SubBefore for the traced messages of a call; undefined when none is traced. */
  before(messages: readonly ConsumerMessage[]): SubBeforeTrace | undefined {
    const beans: SubTraceBean[] = [];
    let regionId = '';
    for (const m of messages) {
      if (m.systemProperties[PropertyKey.TRACE_ON] === 'false') continue;
      regionId ||= m.systemProperties[PropertyKey.MSG_REGION] ?? '';
      beans.push({
        msgId: m.msgId,
        keys: m.keys.length > 0 ? m.keys.join(' ') : undefined,
        retryTimes: m.reconsumeTimes,
      });
    }
    if (beans.length === 0) return undefined;
    const ctx: SubBeforeTrace = {
      type: 'SubBefore',
      timeStamp: Date.now(),
      regionId,
      groupName: this.groupName,
      requestId: this.ids.next(),
      beans,
    };
    this.dispatcher.append(ctx);
    return ctx;
  }

  /** Records SubAfter for the call `before` started. */
  after(before: SubBeforeTrace, outcome: ConsumeOutcome): void {
    const now = Date.now();
    this.dispatcher.append({
      type: 'SubAfter',
      requestId: before.requestId,
      // Java: the call's time shared out over its messages.
      costTime: Math.floor((now - before.timeStamp) / before.beans.length),
      success: outcome.ok,
      contextCode: outcome.ok
        ? ConsumeReturnType.SUCCESS
        : outcome.timedOut
          ? ConsumeReturnType.TIME_OUT
          : ConsumeReturnType.EXCEPTION,
      timeStamp: now,
      groupName: this.groupName,
      beans: before.beans,
    });
  }
}
