/**
 * Message properties string (docs/protocol.md §4.1): `name U+0001 value U+0002 name U+0001 value …`.
 */

export const NAME_VALUE_SEPARATOR = '\u0001';
export const PROPERTY_SEPARATOR = '\u0002';

const NAME_VALUE_CODE = 1;
const PROPERTY_CODE = 2;

/** Well-known property keys (Java `MessageConst`, docs/protocol.md §4.2). */
export const PropertyKey = {
  KEYS: 'KEYS',
  TAGS: 'TAGS',
  WAIT: 'WAIT',
  DELAY: 'DELAY',
  RETRY_TOPIC: 'RETRY_TOPIC',
  REAL_TOPIC: 'REAL_TOPIC',
  REAL_QID: 'REAL_QID',
  TRAN_MSG: 'TRAN_MSG',
  PGROUP: 'PGROUP',
  MIN_OFFSET: 'MIN_OFFSET',
  MAX_OFFSET: 'MAX_OFFSET',
  BUYER_ID: 'BUYER_ID',
  ORIGIN_MESSAGE_ID: 'ORIGIN_MESSAGE_ID',
  TRANSFER_FLAG: 'TRANSFER_FLAG',
  CORRECTION_FLAG: 'CORRECTION_FLAG',
  MQ2_FLAG: 'MQ2_FLAG',
  RECONSUME_TIME: 'RECONSUME_TIME',
  MSG_REGION: 'MSG_REGION',
  TRACE_ON: 'TRACE_ON',
  UNIQ_KEY: 'UNIQ_KEY',
  MAX_RECONSUME_TIMES: 'MAX_RECONSUME_TIMES',
  CONSUME_START_TIME: 'CONSUME_START_TIME',
  TRAN_PREPARED_QUEUE_OFFSET: 'TRAN_PREPARED_QUEUE_OFFSET',
  TRANSACTION_CHECK_TIMES: 'TRANSACTION_CHECK_TIMES',
  CHECK_IMMUNITY_TIME_IN_SECONDS: 'CHECK_IMMUNITY_TIME_IN_SECONDS',
  INSTANCE_ID: 'INSTANCE_ID',
  CORRELATION_ID: 'CORRELATION_ID',
  REPLY_TO_CLIENT: 'REPLY_TO_CLIENT',
  TTL: 'TTL',
  ARRIVE_TIME: 'ARRIVE_TIME',
  PUSH_REPLY_TIME: 'PUSH_REPLY_TIME',
  CLUSTER: 'CLUSTER',
  MSG_TYPE: 'MSG_TYPE',
  INNER_MULTI_DISPATCH: 'INNER_MULTI_DISPATCH',
  INNER_MULTI_QUEUE_OFFSET: 'INNER_MULTI_QUEUE_OFFSET',
  /** User property set by the transactional producer when the broker returned a transaction id. */
  TRANSACTION_ID: '__transactionId__',
  /** Only inspected by a client hook. */
  START_DELIVER_TIME: '__STARTDELIVERTIME',
  // [5.x]
  EXTEND_UNIQ_INFO: 'EXTEND_UNIQ_INFO',
  INNER_NUM: 'INNER_NUM',
  INNER_BASE: 'INNER_BASE',
  DUP_INFO: 'DUP_INFO',
  POP_CK: 'POP_CK',
  POP_CK_OFFSET: 'POP_CK_OFFSET',
  FIRST_POP_TIME: '1ST_POP_TIME',
  /** [5.x] The message group of a FIFO message (the gRPC clients' `messageGroup`). */
  SHARDING_KEY: '__SHARDINGKEY',
  /** [5.4+] Priority of a message on a PRIORITY topic (integer ≥ 0). */
  PRIORITY: '_SYS_MSG_PRIORITY_',
  /** [5.5+] Lite topic of a message on a LITE topic. */
  LITE_TOPIC: '__LITE_TOPIC',
  FORWARD_QUEUE_ID: 'PROPERTY_FORWARD_QUEUE_ID',
  REDIRECT: 'REDIRECT',
  TRACE_CONTEXT: 'TRACE_CONTEXT',
  TIMER_DELAY_SEC: 'TIMER_DELAY_SEC',
  TIMER_DELIVER_MS: 'TIMER_DELIVER_MS',
  TIMER_DELAY_MS: 'TIMER_DELAY_MS',
  TIMER_ENQUEUE_MS: 'TIMER_ENQUEUE_MS',
  TIMER_DEQUEUE_MS: 'TIMER_DEQUEUE_MS',
  TIMER_ROLL_TIMES: 'TIMER_ROLL_TIMES',
  TIMER_OUT_MS: 'TIMER_OUT_MS',
  TIMER_DEL_UNIQKEY: 'TIMER_DEL_UNIQKEY',
  TIMER_DELAY_LEVEL: 'TIMER_DELAY_LEVEL',
  BORN_HOST: '__BORNHOST',
  BORN_TIMESTAMP: 'BORN_TIMESTAMP',
  CRC32: '__CRC32#',
  DLQ_ORIGIN_TOPIC: 'DLQ_ORIGIN_TOPIC',
  DLQ_ORIGIN_MESSAGE_ID: 'DLQ_ORIGIN_MESSAGE_ID',
} as const;
export type PropertyKeyName = keyof typeof PropertyKey;

/** `encoded` with one more `name U+0001 value` pair, separated 4.9.7 style (no trailing U+0002). */
export function appendProperty(encoded: string, name: string, value: string): string {
  return (encoded.length > 0 ? encoded + PROPERTY_SEPARATOR : encoded) + name + NAME_VALUE_SEPARATOR + value;
}

/**
 * 4.9.7 style: no trailing separator. Entries whose value is null/undefined are skipped, as Java
 * skips null values, and so is the key `skip` (the broker drops WAIT this way without a
 * `delete` that would slow the object down). Callers are responsible for names/values free of
 * U+0001/U+0002 (see `validation.ts`).
 */
export function encodeProperties(props: Readonly<Record<string, string>>, skip?: string): string {
  let out = '';
  for (const key in props) {
    if (key === skip) continue;
    const value = props[key];
    if (value === undefined || value === null) continue;
    out = appendProperty(out, key, value);
  }
  return out;
}

/**
 * Java `MessageDecoder.string2messageProperties`: split on U+0002, skip segments shorter than
 * 3 chars, key = text before the first U+0001, drop empty keys/values, the last duplicate wins.
 * Tolerates 5.x's trailing separator.
 */
export function decodeProperties(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  const n = s.length;
  for (let start = 0; start < n; start = segmentEnd + 1) {
    const sep = splitSegment(s, start, n);
    if (sep >= 0) out[s.slice(start, sep)] = s.slice(sep + 1, segmentEnd);
  }
  return out;
}

/** End of the segment `splitSegment` looked at last (module scratch: no tuple per segment). */
let segmentEnd = 0;

/**
 * The U+0001 of the segment starting at `start` when it holds a non-empty name and value (the
 * `string2messageProperties` rule), else -1; sets `segmentEnd`.
 */
function splitSegment(s: string, start: number, n: number): number {
  let end = s.indexOf(PROPERTY_SEPARATOR, start);
  if (end < 0) end = n;
  segmentEnd = end;
  if (end - start < 3) return -1;
  const sep = s.indexOf(NAME_VALUE_SEPARATOR, start);
  return sep > start && sep < end - 1 ? sep : -1;
}

/**
 * The values of several properties in one walk, as `decodeProperties` would give them (last
 * occurrence wins), without building the map: `out[i]` is the value of `names[i]` or undefined.
 * A name may be listed twice.
 */
export function lookUpProperties(s: string, names: readonly string[], out: (string | undefined)[]): void {
  for (let i = 0; i < names.length; i++) out[i] = undefined;
  const n = s.length;
  for (let start = 0; start < n; start = segmentEnd + 1) {
    const sep = splitSegment(s, start, n);
    if (sep < 0) continue;
    const len = sep - start;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      if (name.length === len && s.startsWith(name, start)) out[i] = s.slice(sep + 1, segmentEnd);
    }
  }
}

/**
 * Looks up one property without building the whole map: the hot path for UNIQ_KEY / KEYS / TAGS
 * on the broker. Returns the last occurrence, as `decodeProperties` would.
 */
export function getProperty(s: string, name: string): string | undefined {
  let found: string | undefined;
  const n = s.length;
  let start = 0;
  while (start < n) {
    let end = s.indexOf(PROPERTY_SEPARATOR, start);
    if (end < 0) end = n;
    if (
      end - start >= 3 &&
      end - start > name.length + 1 &&
      s.charCodeAt(start + name.length) === NAME_VALUE_CODE &&
      s.startsWith(name, start) &&
      name.length > 0
    ) {
      found = s.slice(start + name.length + 1, end);
    }
    start = end + 1;
  }
  return found;
}

/** True when `s` contains either separator character. */
export function containsSeparator(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === NAME_VALUE_CODE || c === PROPERTY_CODE) return true;
  }
  return false;
}
