/**
 * The POP receipt handle (Java `ExtraInfoUtil`, docs/protocol.md §13.1): the `extraInfo` string the
 * broker's checkpoint is named by, and the per-queue lists of a POP_MESSAGE response header.
 *
 * extraInfo = `ckQueueOffset popTime invisibleTime reviveQid retryFlag brokerName queueId msgQueueOffset`
 * (space-separated; the gRPC form appends the commit-log offset as a ninth field, which parses too).
 * Pure: no I/O.
 */
import { ProtocolError } from '../../errors.js';
import { POP_ORDER_REVIVE_QUEUE } from '../headers/pop.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../validation.js';

/** `0` normal topic, `1` retry topic V1 `%RETRY%<group>_<topic>`, `2` retry topic V2 `%RETRY%<group>+<topic>`. */
export type RetryFlag = '0' | '1' | '2';

export interface ExtraInfo {
  /** Start offset of the checkpoint the message belongs to. */
  ckQueueOffset: number;
  popTime: number;
  invisibleTime: number;
  reviveQid: number;
  retryFlag: RetryFlag;
  brokerName: string;
  queueId: number;
  /** The message's own queue offset. */
  msgQueueOffset: number;
  /** Ninth field of the gRPC receipt handle, when present. */
  commitLogOffset?: number;
}

const SEP = ' ';

/** Retry flag of a topic name (`ExtraInfoUtil.buildExtraInfo`: any `%RETRY%` topic is 1, V2 names 2). */
export function retryFlagOf(topic: string): RetryFlag {
  if (!topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return '0';
  return topic.includes('+') ? '2' : '1';
}

/** `KeyBuilder.buildPopRetryTopic` (V1, the 5.x default): `%RETRY%<group>_<topic>`. */
export function popRetryTopicV1(topic: string, group: string): string {
  return `${RETRY_GROUP_TOPIC_PREFIX}${group}_${topic}`;
}

/** V2 name (`enableRetryTopicV2`): `%RETRY%<group>+<topic>`. */
export function popRetryTopicV2(topic: string, group: string): string {
  return `${RETRY_GROUP_TOPIC_PREFIX}${group}+${topic}`;
}

/** The topic an ACK / CHANGE_INVISIBLE_TIME names (`ExtraInfoUtil.getRealTopic`). */
export function realTopic(info: Pick<ExtraInfo, 'retryFlag'>, topic: string, group: string): string {
  if (info.retryFlag === '1') return popRetryTopicV1(topic, group);
  if (info.retryFlag === '2') return popRetryTopicV2(topic, group);
  return topic;
}

export function isOrderly(info: Pick<ExtraInfo, 'reviveQid'>): boolean {
  return info.reviveQid === POP_ORDER_REVIVE_QUEUE;
}

export function buildExtraInfo(info: ExtraInfo): string {
  const text = extraInfoPrefix(info) + String(info.msgQueueOffset);
  return info.commitLogOffset === undefined ? text : `${text}${SEP}${info.commitLogOffset}`;
}

/**
 * The first seven fields of an extraInfo and the separator after them: the same for every
 * message of one queue in one POP response, so a response builds it once per queue and each
 * message's handle is this plus its own offset.
 */
export function extraInfoPrefix(info: Omit<ExtraInfo, 'msgQueueOffset'>): string {
  return `${info.ckQueueOffset}${SEP}${info.popTime}${SEP}${info.invisibleTime}${SEP}${info.reviveQid}${SEP}${info.retryFlag}${SEP}${info.brokerName}${SEP}${info.queueId}${SEP}`;
}

function int(raw: string | undefined, field: string, text: string): number {
  if (raw === undefined || !isDecimal(raw))
    throw new ProtocolError(`extraInfo ${JSON.stringify(text)}: ${field} is not a number`);
  const v = Number(raw);
  if (!Number.isSafeInteger(v))
    throw new ProtocolError(`extraInfo ${JSON.stringify(text)}: ${field} out of range`);
  return v;
}

/** Parses an 8-field extraInfo or a 9-field gRPC receipt handle; ProtocolError otherwise. */
export function parseExtraInfo(text: string): ExtraInfo {
  const f = text.split(SEP);
  if (f.length !== 8 && f.length !== 9)
    throw new ProtocolError(`extraInfo ${JSON.stringify(text)}: expected 8 or 9 fields, got ${f.length}`);
  const retryFlag = f[4];
  if (retryFlag !== '0' && retryFlag !== '1' && retryFlag !== '2')
    throw new ProtocolError(`extraInfo ${JSON.stringify(text)}: bad retry flag ${String(retryFlag)}`);
  const brokerName = f[5] ?? '';
  if (brokerName === '') throw new ProtocolError(`extraInfo ${JSON.stringify(text)}: empty broker name`);
  const out: ExtraInfo = {
    ckQueueOffset: int(f[0], 'ckQueueOffset', text),
    popTime: int(f[1], 'popTime', text),
    invisibleTime: int(f[2], 'invisibleTime', text),
    reviveQid: int(f[3], 'reviveQid', text),
    retryFlag,
    brokerName,
    queueId: int(f[6], 'queueId', text),
    msgQueueOffset: int(f[7], 'msgQueueOffset', text),
  };
  if (f.length === 9) out.commitLogOffset = int(f[8], 'commitLogOffset', text);
  return out;
}

/** Key of the per-queue maps: `retryFlag@queueId` (Java `getStartOffsetInfoMapKey`). */
export function queueKey(retryFlag: RetryFlag, queueId: number): string {
  return `${retryFlag}@${queueId}`;
}

/** Key of a per-offset order count: `retryFlag@qo<queueId>%<offset>` (Java `getQueueOffsetMapKey`). */
export function queueOffsetKey(retryFlag: RetryFlag, queueId: number, offset: number): string {
  return `${retryFlag}@${orderOffsetField(queueId, offset)}`;
}

/** The queue field of a per-offset orderCountInfo entry: `qo<queueId>%<offset>`. */
export function orderOffsetField(queueId: number, offset: number): string {
  return `qo${queueId}%${offset}`;
}

/** One entry of startOffsetInfo / msgOffsetInfo / orderCountInfo. */
export interface QueueInfoEntry<V> {
  retryFlag: RetryFlag;
  /** A queue id, or `qo<queueId>%<offset>` in orderCountInfo. */
  queue: string;
  value: V;
}

function buildList<V>(entries: ReadonlyArray<QueueInfoEntry<V>>, show: (v: V) => string): string {
  return entries.map((e) => `${e.retryFlag}${SEP}${e.queue}${SEP}${show(e.value)}`).join(';');
}

function parseList<V>(text: string | undefined, what: string, read: (raw: string) => V): Map<string, V> {
  const out = new Map<string, V>();
  if (text === undefined || text === '') return out;
  for (const one of text.split(';')) {
    const f = one.split(SEP);
    if (f.length !== 3)
      throw new ProtocolError(`${what} ${JSON.stringify(text)}: bad entry ${JSON.stringify(one)}`);
    const key = `${f[0]}@${f[1]}`;
    if (out.has(key)) throw new ProtocolError(`${what} ${JSON.stringify(text)}: duplicate ${key}`);
    out.set(key, read(f[2] ?? ''));
  }
  return out;
}

/** `^-?\d{1,19}$` without a regular expression: a POP response has one per message. */
function isDecimal(raw: string): boolean {
  const start = raw.charCodeAt(0) === 45 ? 1 : 0; // '-'
  const digits = raw.length - start;
  if (digits < 1 || digits > 19) return false;
  for (let i = start; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const num = (what: string) => (raw: string) => {
  if (!isDecimal(raw)) throw new ProtocolError(`${what}: ${JSON.stringify(raw)} is not a number`);
  return Number(raw);
};

/** `buildStartOffsetInfo`: `retryFlag queueId startOffset` per queue. */
export function buildStartOffsetInfo(entries: ReadonlyArray<QueueInfoEntry<number>>): string {
  return buildList(entries, String);
}

/** `buildMsgOffsetInfo`: `retryFlag queueId o1,o2,…` per queue. */
export function buildMsgOffsetInfo(entries: ReadonlyArray<QueueInfoEntry<readonly number[]>>): string {
  return buildList(entries, (v) => v.join(','));
}

/** orderCountInfo: per offset (`qo<qid>%<offset>`) and per queue. */
export function buildOrderCountInfo(entries: ReadonlyArray<QueueInfoEntry<number>>): string {
  return buildList(entries, String);
}

/** `parseStartOffsetInfo`: `retryFlag@queueId` → start offset (empty map when absent). */
export function parseStartOffsetInfo(text: string | undefined): Map<string, number> {
  return parseList(text, 'startOffsetInfo', num('startOffsetInfo'));
}

/** `parseMsgOffsetInfo`: `retryFlag@queueId` → message offsets in delivery order. */
export function parseMsgOffsetInfo(text: string | undefined): Map<string, number[]> {
  return parseList(text, 'msgOffsetInfo', (raw) => raw.split(',').map(num('msgOffsetInfo')));
}

/** `parseOrderCountInfo`: `retryFlag@queueId` or `retryFlag@qo<qid>%<offset>` → count. */
export function parseOrderCountInfo(text: string | undefined): Map<string, number> {
  return parseList(text, 'orderCountInfo', num('orderCountInfo'));
}
