/**
 * Java's message trace records (`TraceDataEncoder#encoderFromContextBean`, docs/protocol.md and
 * docs/operations.md §2.1): fields separated by CONTENT_SPLITOR `\u0001`, each record ended by
 * FIELD_SPLITOR `\u0002`, values written as Java's `StringBuilder.append` does (absent → `null`).
 * A trace message's body is the concatenation of records; its KEYS are the msgIds and user keys,
 * so `queryMsgTraceById` and rocketmq-dashboard find it by msgId.
 */

export const CONTENT_SPLITOR = '\u0001';
export const FIELD_SPLITOR = '\u0002';
/** Trace topic when `customizedTraceTopic` is blank (Java `TopicValidator.RMQ_SYS_TRACE_TOPIC`). */
export const DEFAULT_TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';

/** Java `MessageType` ordinals. */
export const TraceMessageType = {
  Normal_Msg: 0,
  Trans_Msg_Half: 1,
  Trans_msg_Commit: 2,
  Delay_Msg: 3,
} as const;

/** Java `ConsumeReturnType` ordinals (SubAfter contextCode). */
export const ConsumeReturnType = { SUCCESS: 0, TIME_OUT: 1, EXCEPTION: 2, RETURNNULL: 3, FAILED: 4 } as const;

/** A `Pub` record: one successful send of one message. */
export interface PubTrace {
  type: 'Pub';
  /** Epoch ms when the send started. */
  timeStamp: number;
  regionId: string;
  /** Producer group, without namespace. */
  groupName: string;
  topic: string;
  msgId: string;
  tags: string | undefined;
  /** The KEYS property (space-separated), undefined when none. */
  keys: string | undefined;
  /** Broker address that stored it. */
  storeHost: string;
  bodyLength: number;
  costTime: number;
  msgType: number;
  offsetMsgId: string;
  success: boolean;
}

/** One consumed message in a SubBefore/SubAfter pair. */
export interface SubTraceBean {
  msgId: string;
  keys: string | undefined;
  retryTimes: number;
}

/** `SubBefore`: one record per message, written before the handler runs. */
export interface SubBeforeTrace {
  type: 'SubBefore';
  timeStamp: number;
  regionId: string;
  groupName: string;
  /** Pairs this call's SubBefore and SubAfter records. */
  requestId: string;
  beans: SubTraceBean[];
}

/** `SubAfter`: one record per message, written when the handler settled. */
export interface SubAfterTrace {
  type: 'SubAfter';
  requestId: string;
  /** Handler time divided by the message count (Java). */
  costTime: number;
  success: boolean;
  contextCode: number;
  timeStamp: number;
  groupName: string;
  beans: SubTraceBean[];
}

export type TraceContext = PubTrace | SubBeforeTrace | SubAfterTrace;

/** Encoded records of one context and the keys its trace message must be found by. */
export interface TraceTransfer {
  data: string;
  keys: string[];
}

const str = (v: string | undefined): string => (v === undefined ? 'null' : v);

/** One record: its fields joined by CONTENT_SPLITOR, ended by FIELD_SPLITOR. */
const record = (fields: ReadonlyArray<string | number | boolean>): string =>
  fields.join(CONTENT_SPLITOR) + FIELD_SPLITOR;

/** The fields of one record per consumed message (SubBefore, SubAfter). */
function subFields(ctx: SubBeforeTrace | SubAfterTrace, b: SubTraceBean): Array<string | number | boolean> {
  return ctx.type === 'SubBefore'
    ? [
        'SubBefore',
        ctx.timeStamp,
        ctx.regionId,
        ctx.groupName,
        ctx.requestId,
        b.msgId,
        b.retryTimes,
        str(b.keys),
      ]
    : [
        'SubAfter',
        ctx.requestId,
        b.msgId,
        ctx.costTime,
        ctx.success,
        str(b.keys),
        ctx.contextCode,
        ctx.timeStamp,
        ctx.groupName,
      ];
}

/** Java `TraceDataEncoder.encoderFromContextBean`. */
export function encodeTraceContext(ctx: TraceContext): TraceTransfer {
  let data: string;
  let beans: ReadonlyArray<{ msgId: string; keys: string | undefined }>;
  if (ctx.type === 'Pub') {
    data = record([
      'Pub',
      ctx.timeStamp,
      ctx.regionId,
      ctx.groupName,
      ctx.topic,
      ctx.msgId,
      str(ctx.tags),
      str(ctx.keys),
      ctx.storeHost,
      ctx.bodyLength,
      ctx.costTime,
      ctx.msgType,
      ctx.offsetMsgId,
      ctx.success,
    ]);
    beans = [ctx];
  } else {
    data = ctx.beans.map((b) => record(subFields(ctx, b))).join('');
    beans = ctx.beans;
  }
  const keys: string[] = [];
  for (const b of beans) {
    keys.push(b.msgId);
    if (b.keys !== undefined && b.keys.length > 0) keys.push(b.keys);
  }
  return { data, keys };
}
