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

const text = (v: string | undefined): string | undefined => (v === undefined || v === 'null' ? undefined : v);
const int = (v: string | undefined): number => {
  const n = Number(v);
  return v === undefined || v === '' || !Number.isFinite(n) ? 0 : n;
};

/**
 * Java `TraceDataEncoder.decoderFromTraceDataString`: the records of a trace message's body,
 * one context per record (a SubBefore/SubAfter context holds the one message its record names).
 * Records of other types (EndTransaction, Recall) and records too short for their type are
 * skipped. Fields Java added over the versions (Pub's offsetMsgId and success, SubAfter's
 * contextCode, timeStamp and groupName) default as Java's decoder leaves them.
 */
export function decodeTraceRecords(data: string): TraceContext[] {
  const out: TraceContext[] = [];
  for (const raw of data.split(FIELD_SPLITOR)) {
    const f = raw.split(CONTENT_SPLITOR);
    if (f[0] === 'Pub' && f.length >= 12)
      out.push({
        type: 'Pub',
        timeStamp: int(f[1]),
        regionId: f[2] ?? '',
        groupName: f[3] ?? '',
        topic: f[4] ?? '',
        msgId: f[5] ?? '',
        tags: text(f[6]),
        keys: text(f[7]),
        storeHost: f[8] ?? '',
        bodyLength: int(f[9]),
        costTime: int(f[10]),
        msgType: int(f[11]),
        offsetMsgId: f[12] ?? '',
        success: f.length < 14 || f[13] === 'true',
      });
    else if (f[0] === 'SubBefore' && f.length >= 8)
      out.push({
        type: 'SubBefore',
        timeStamp: int(f[1]),
        regionId: f[2] ?? '',
        groupName: f[3] ?? '',
        requestId: f[4] ?? '',
        beans: [{ msgId: f[5] ?? '', retryTimes: int(f[6]), keys: text(f[7]) }],
      });
    else if (f[0] === 'SubAfter' && f.length >= 6)
      out.push({
        type: 'SubAfter',
        requestId: f[1] ?? '',
        costTime: int(f[3]),
        success: f[4] === 'true',
        contextCode: int(f[6]),
        timeStamp: int(f[7]),
        groupName: f[8] ?? '',
        beans: [{ msgId: f[2] ?? '', retryTimes: 0, keys: text(f[5]) }],
      });
  }
  return out;
}
