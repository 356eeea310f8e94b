/**
 * Bodies a consumer answers broker→client admin requests with (docs/protocol.md §10.4), written as
 * fastjson writes them (fields in alphabetical order, `Map<MessageQueue,…>` keys as bare objects):
 * ConsumerRunningInfo (GET_CONSUMER_RUNNING_INFO, read by `mqadmin consumerStatus`),
 * GetConsumerStatusBody (GET_CONSUMER_STATUS_FROM_CLIENT) and ConsumeMessageDirectlyResult.
 */
import { parseFastjson, parseFastjsonBytes } from '../fastjson.js';
import { expectArray, expectObject, jsonBool, jsonNumber, jsonString } from '../headers/fields.js';
import { parseSubscription, type SubscriptionData } from '../headers/heartbeat.js';
import { decodeMessageQueueMap, encodeMessageQueueMap, type MessageQueueData } from './message-queue-map.js';

/** Java `ConsumerRunningInfo` property names `mqadmin` reads. */
export const RunningInfoProperty = {
  PROP_NAMESERVER_ADDR: 'PROP_NAMESERVER_ADDR',
  PROP_THREADPOOL_CORE_SIZE: 'PROP_THREADPOOL_CORE_SIZE',
  PROP_CONSUME_ORDERLY: 'PROP_CONSUMEORDERLY',
  PROP_CONSUME_TYPE: 'PROP_CONSUME_TYPE',
  PROP_CLIENT_VERSION: 'PROP_CLIENT_VERSION',
  PROP_CONSUMER_START_TIMESTAMP: 'PROP_CONSUMER_START_TIMESTAMP',
} as const;

/** Java `ProcessQueueInfo`. */
export interface ProcessQueueInfoData {
  commitOffset: number;
  cachedMsgMinOffset: number;
  cachedMsgMaxOffset: number;
  cachedMsgCount: number;
  cachedMsgSizeInMiB: number;
  transactionMsgMinOffset: number;
  transactionMsgMaxOffset: number;
  transactionMsgCount: number;
  locked: boolean;
  tryUnlockTimes: number;
  lastLockTimestamp: number;
  droped: boolean;
  lastPullTimestamp: number;
  lastConsumeTimestamp: number;
}

/** Java `PopProcessQueueInfo`: a POP consumer's queue (its received, un-acked messages). */
export interface PopProcessQueueInfoData {
  waitAckCount: number;
  droped: boolean;
  lastPopTimestamp: number;
}

/** Java `ConsumeStatus` (per topic). */
export interface ConsumeStatusData {
  pullRT: number;
  pullTPS: number;
  consumeRT: number;
  consumeOKTPS: number;
  consumeFailedTPS: number;
  consumeFailedMsgs: number;
}

export interface ConsumerRunningInfoData {
  properties: Record<string, string>;
  subscriptionSet: SubscriptionData[];
  mqTable: Array<[MessageQueueData, ProcessQueueInfoData]>;
  /** [5.x] POP consumers' queues (Java `mqPopTable`); absent when empty. */
  mqPopTable?: Array<[MessageQueueData, PopProcessQueueInfoData]> | undefined;
  statusTable: Record<string, ConsumeStatusData>;
  jstack?: string | undefined;
}

/** JSON text of an object with its keys sorted, as fastjson writes beans. */
function sortedJson(o: object): string {
  const entries = Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

export function encodeConsumerRunningInfo(info: ConsumerRunningInfoData): Buffer {
  const parts: string[] = [];
  if (info.jstack !== undefined) parts.push(`"jstack":${JSON.stringify(info.jstack)}`);
  if (info.mqPopTable !== undefined && info.mqPopTable.length > 0)
    parts.push(`"mqPopTable":${encodeMessageQueueMap(info.mqPopTable, sortedJson)}`);
  parts.push(`"mqTable":${encodeMessageQueueMap(info.mqTable, sortedJson)}`);
  parts.push(`"properties":${sortedJson(info.properties)}`);
  const status = Object.keys(info.statusTable)
    .sort()
    .map((t) => `${JSON.stringify(t)}:${sortedJson(info.statusTable[t]!)}`);
  parts.push(`"statusTable":{${status.join(',')}}`);
  const subs = [...info.subscriptionSet].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
  parts.push(`"subscriptionSet":[${subs.map((s) => sortedJson(s)).join(',')}]`);
  return Buffer.from(`{${parts.join(',')}}`, 'utf8');
}

/** `GetConsumerStatusBody`: `{"consumerTable":{},"messageQueueTable":{{mq}:offset}}`. */
export function encodeGetConsumerStatusBody(offsets: Array<[MessageQueueData, number]>): Buffer {
  return Buffer.from(`{"consumerTable":{},"messageQueueTable":${encodeMessageQueueMap(offsets)}}`, 'utf8');
}

export type ConsumeMessageDirectlyResultCode =
  'CR_SUCCESS' | 'CR_LATER' | 'CR_ROLLBACK' | 'CR_COMMIT' | 'CR_THROW_EXCEPTION' | 'CR_RETURN_NULL';

export function encodeConsumeMessageDirectlyResult(r: {
  order: boolean;
  autoCommit: boolean;
  consumeResult: ConsumeMessageDirectlyResultCode;
  remark?: string | undefined;
  spentTimeMills: number;
}): Buffer {
  return Buffer.from(sortedJson(r), 'utf8');
}

function parseBody(body: Uint8Array | string, what: string): Record<string, unknown> {
  return expectObject(typeof body === 'string' ? parseFastjson(body) : parseFastjsonBytes(body), what);
}

const PROCESS_QUEUE_NUMBERS = [
  'commitOffset',
  'cachedMsgMinOffset',
  'cachedMsgMaxOffset',
  'cachedMsgCount',
  'cachedMsgSizeInMiB',
  'transactionMsgMinOffset',
  'transactionMsgMaxOffset',
  'transactionMsgCount',
  'tryUnlockTimes',
  'lastLockTimestamp',
  'lastPullTimestamp',
  'lastConsumeTimestamp',
] as const;
const STATUS_NUMBERS = [
  'pullRT',
  'pullTPS',
  'consumeRT',
  'consumeOKTPS',
  'consumeFailedTPS',
  'consumeFailedMsgs',
] as const;

/** A client's `ConsumerRunningInfo` (Java's or ours); missing numbers read as 0. */
export function parseConsumerRunningInfo(body: Uint8Array | string): ConsumerRunningInfoData {
  const o = parseBody(body, 'ConsumerRunningInfo');
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(expectObject(o.properties ?? {}, 'properties')))
    properties[k] = typeof v === 'string' ? v : JSON.stringify(v);
  const mqTable = [
    ...decodeMessageQueueMap(
      o.mqTable,
      (v, what) => {
        const q = expectObject(v, what);
        const out = {
          locked: jsonBool(q.locked, `${what}.locked`, false),
          droped: jsonBool(q.droped, `${what}.droped`, false),
        };
        for (const k of PROCESS_QUEUE_NUMBERS)
          (out as Record<string, unknown>)[k] = jsonNumber(q[k], `${what}.${k}`, 0);
        return out as ProcessQueueInfoData;
      },
      'mqTable',
    ).values(),
  ].map((e): [MessageQueueData, ProcessQueueInfoData] => [e.mq, e.value]);
  const statusTable: Record<string, ConsumeStatusData> = {};
  for (const [topic, v] of Object.entries(expectObject(o.statusTable ?? {}, 'statusTable'))) {
    const st = expectObject(v, `statusTable[${topic}]`);
    const out: Record<string, number> = {};
    for (const k of STATUS_NUMBERS) out[k] = jsonNumber(st[k], `statusTable[${topic}].${k}`, 0);
    statusTable[topic] = out as unknown as ConsumeStatusData;
  }
  const info: ConsumerRunningInfoData = {
    properties,
    subscriptionSet: expectArray(o.subscriptionSet ?? [], 'subscriptionSet').map(parseSubscription),
    mqTable,
    statusTable,
  };
  if (o.mqPopTable !== undefined && o.mqPopTable !== null)
    info.mqPopTable = [
      ...decodeMessageQueueMap(
        o.mqPopTable,
        (v, what) => {
          const q = expectObject(v, what);
          return {
            waitAckCount: jsonNumber(q.waitAckCount, `${what}.waitAckCount`, 0),
            droped: jsonBool(q.droped, `${what}.droped`, false),
            lastPopTimestamp: jsonNumber(q.lastPopTimestamp, `${what}.lastPopTimestamp`, 0),
          };
        },
        'mqPopTable',
      ).values(),
    ].map((e): [MessageQueueData, PopProcessQueueInfoData] => [e.mq, e.value]);
  if (typeof o.jstack === 'string') info.jstack = o.jstack;
  return info;
}

export interface ConsumeMessageDirectlyResultData {
  order: boolean;
  autoCommit: boolean;
  consumeResult: string;
  remark: string | undefined;
  spentTimeMills: number;
}

export function parseConsumeMessageDirectlyResult(
  body: Uint8Array | string,
): ConsumeMessageDirectlyResultData {
  const o = parseBody(body, 'ConsumeMessageDirectlyResult');
  return {
    order: jsonBool(o.order, 'order', false),
    autoCommit: jsonBool(o.autoCommit, 'autoCommit', true),
    consumeResult: jsonString(o.consumeResult, 'consumeResult', ''),
    remark: typeof o.remark === 'string' ? o.remark : undefined,
    spentTimeMills: jsonNumber(o.spentTimeMills, 'spentTimeMills', 0),
  };
}
