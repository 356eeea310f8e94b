/**
 * Java's `SendMessageTraceHookImpl`: a `Pub` record per message of every successful send
 * (none for oneway sends, failed sends, or when the broker answered TRACE_ON=false), handed to
 * the dispatcher. A batch gives one record per inner message.
 */
import { decodeBatch } from '../../protocol/message/batch.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { TraceMessageType, type PubTrace } from '../../protocol/trace/trace-data.js';
import type { PreparedMessage } from '../message.js';
import type { SendResult } from '../send-result.js';
import type { TraceDispatcher } from './dispatcher.js';

/** Java's `MessageType` choice of the trace hook: half, delay (level or timer) or normal. */
function messageTypeOf(props: Record<string, string>): number {
  if (props[PropertyKey.TRAN_MSG] === 'true') return TraceMessageType.Trans_Msg_Half;
  if (
    props[PropertyKey.DELAY] !== undefined ||
    props[PropertyKey.START_DELIVER_TIME] !== undefined ||
    props[PropertyKey.TIMER_DELIVER_MS] !== undefined ||
    props[PropertyKey.TIMER_DELAY_MS] !== undefined ||
    props[PropertyKey.TIMER_DELAY_SEC] !== undefined
  )
    return TraceMessageType.Delay_Msg;
  return TraceMessageType.Normal_Msg;
}

export class SendTracer {
  constructor(
    private readonly dispatcher: TraceDispatcher,
    /** Producer group without namespace (Java). */
    private readonly groupName: string,
    /** Address of the broker that stored a result. */
    private readonly storeHostOf: (brokerName: string) => string | undefined,
  ) {}

  /** Whether a send to `topic` (wire name) is traced: never the trace topic itself. */
  traces(topic: string): boolean {
    return topic !== this.dispatcher.traceTopic;
  }

  /** Records the Pub traces of a send that started at `startedAt` and resolved with `result`. */
  onSent(p: PreparedMessage, result: SendResult | undefined, startedAt: number): void {
    if (result === undefined || !result.traceOn) return;
    const costTime = Date.now() - startedAt;
    const storeHost = this.storeHostOf(result.messageQueue.brokerName) ?? '';
    const entries = p.batch
      ? decodeBatch(p.body).map((e) => ({ props: decodeProperties(e.properties), bodyLength: e.body.length }))
      : [{ props: decodeProperties(p.properties), bodyLength: p.body.length }];
    const msgIds = result.msgId.split(',');
    const offsetIds = result.offsetMsgId.split(',');
    entries.forEach((e, i) => {
      const trace: PubTrace = {
        type: 'Pub',
        timeStamp: startedAt,
        regionId: result.regionId,
        groupName: this.groupName,
        topic: result.messageQueue.topic,
        msgId: msgIds[i] ?? e.props[PropertyKey.UNIQ_KEY] ?? '',
        tags: e.props[PropertyKey.TAGS],
        keys: e.props[PropertyKey.KEYS],
        storeHost,
        bodyLength: e.bodyLength,
        costTime,
        msgType: messageTypeOf(e.props),
        offsetMsgId: offsetIds[i] ?? '',
        success: true,
      };
      this.dispatcher.append(trace);
    });
  }
}
