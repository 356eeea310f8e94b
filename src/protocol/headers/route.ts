/**
 * GET_ROUTEINFO_BY_TOPIC (105) and the TopicRouteData body (docs/protocol.md §7.2).
 * Bodies are read with `parseFastjson` (a pre-4.9.4 namesrv writes `brokerAddrs` keys unquoted)
 * and written as standard JSON in fastjson's alphabetical field order.
 */
import { RequestCode } from '../codes.js';
import { ProtocolError } from '../../errors.js';
import { parseFastjson } from '../fastjson.js';
import {
  F,
  declareRequest,
  expectArray,
  expectObject,
  jsonBool,
  jsonNumber,
  jsonString,
  type HeaderOf,
} from './fields.js';

export const GetRouteInfoByTopic = declareRequest(
  RequestCode.GET_ROUTEINFO_BY_TOPIC,
  'GET_ROUTEINFO_BY_TOPIC',
  {
    topic: F.string.required(),
    /** Since 4.9.4; asks for quoted keys regardless of version. Java 4.9.7 clients do not send it. */
    acceptStandardJsonOnly: F.bool.optional(),
  },
);
export type GetRouteInfoRequestHeader = HeaderOf<typeof GetRouteInfoByTopic.spec>;

export interface QueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicSysFlag: number;
}

export interface BrokerData {
  cluster: string;
  brokerName: string;
  /** brokerId (decimal string; "0" = master) → "host:port". */
  brokerAddrs: Record<string, string>;
  /** [5.x] */
  zoneName?: string;
  /** [5.x] */
  enableActingMaster?: boolean;
}

export interface TopicRouteData {
  orderTopicConf?: string;
  queueDatas: QueueData[];
  brokerDatas: BrokerData[];
  /** Always `{}` from Java namesrvs. */
  filterServerTable: Record<string, string[]>;
  /** [5.x] kept as parsed JSON; we do not interpret it. */
  topicQueueMappingByBroker?: Record<string, unknown>;
}

/** Master broker id in `brokerAddrs`. */
export const MASTER_ID = '0';

export function masterAddress(bd: BrokerData): string | undefined {
  return bd.brokerAddrs[MASTER_ID];
}

function parseStringMap(value: unknown, what: string): Record<string, string> {
  const obj = expectObject(value ?? {}, what);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined) continue;
    out[k] = jsonString(v, `${what}[${k}]`);
  }
  return out;
}

/**
 * Most queues a route may give one broker. Java sets no cap, but clients build one object (and a
 * consumer one pull loop) per queue: a corrupt or hostile answer of 2^31 queues froze the client
 * (found by the clients fuzzer). Real topics have at most a few thousand.
 */
export const MAX_ROUTE_QUEUE_NUMS = 65535;

function queueNums(value: unknown, what: string): number {
  const n = jsonNumber(value, what, 0);
  if (!Number.isInteger(n) || n < 0 || n > MAX_ROUTE_QUEUE_NUMS)
    throw new ProtocolError(`${what} ${n} is not an integer in [0, ${MAX_ROUTE_QUEUE_NUMS}]`);
  return n;
}

export function parseQueueData(value: unknown): QueueData {
  const o = expectObject(value, 'QueueData');
  return {
    brokerName: jsonString(o.brokerName, 'QueueData.brokerName'),
    readQueueNums: queueNums(o.readQueueNums, 'QueueData.readQueueNums'),
    writeQueueNums: queueNums(o.writeQueueNums, 'QueueData.writeQueueNums'),
    perm: jsonNumber(o.perm, 'QueueData.perm', 0),
    topicSysFlag: jsonNumber(o.topicSysFlag, 'QueueData.topicSysFlag', 0),
  };
}

export function parseBrokerData(value: unknown): BrokerData {
  const o = expectObject(value, 'BrokerData');
  const bd: BrokerData = {
    cluster: jsonString(o.cluster, 'BrokerData.cluster', ''),
    brokerName: jsonString(o.brokerName, 'BrokerData.brokerName'),
    brokerAddrs: parseStringMap(o.brokerAddrs, 'BrokerData.brokerAddrs'),
  };
  if (typeof o.zoneName === 'string') bd.zoneName = o.zoneName;
  if (o.enableActingMaster !== undefined && o.enableActingMaster !== null) {
    bd.enableActingMaster = jsonBool(o.enableActingMaster, 'BrokerData.enableActingMaster');
  }
  return bd;
}

/** Parses a route body (either key form). Unknown fields are ignored. ProtocolError when malformed. */
export function parseTopicRouteData(body: Uint8Array | string): TopicRouteData {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'TopicRouteData');
  const route: TopicRouteData = {
    queueDatas: expectArray(o.queueDatas ?? [], 'TopicRouteData.queueDatas').map(parseQueueData),
    brokerDatas: expectArray(o.brokerDatas ?? [], 'TopicRouteData.brokerDatas').map(parseBrokerData),
    filterServerTable: {},
  };
  if (typeof o.orderTopicConf === 'string') route.orderTopicConf = o.orderTopicConf;
  if (o.filterServerTable !== undefined && o.filterServerTable !== null) {
    const fst = expectObject(o.filterServerTable, 'TopicRouteData.filterServerTable');
    for (const [k, v] of Object.entries(fst)) {
      route.filterServerTable[k] = expectArray(v, `filterServerTable[${k}]`).map((x) =>
        jsonString(x, 'filter server'),
      );
    }
  }
  if (o.topicQueueMappingByBroker !== undefined && o.topicQueueMappingByBroker !== null) {
    route.topicQueueMappingByBroker = expectObject(o.topicQueueMappingByBroker, 'topicQueueMappingByBroker');
  }
  return route;
}

/** fastjson field order for BrokerData; brokerAddrs keys in numeric order (MapSortField). */
export function brokerDataJson(bd: BrokerData): Record<string, unknown> {
  const addrs: Record<string, string> = {};
  const ids = Object.keys(bd.brokerAddrs).sort((a, b) => Number(a) - Number(b));
  for (const id of ids) addrs[id] = bd.brokerAddrs[id]!;
  const out: Record<string, unknown> = { brokerAddrs: addrs, brokerName: bd.brokerName, cluster: bd.cluster };
  if (bd.enableActingMaster !== undefined) out.enableActingMaster = bd.enableActingMaster;
  if (bd.zoneName !== undefined) out.zoneName = bd.zoneName;
  return out;
}

function queueDataJson(q: QueueData): Record<string, unknown> {
  return {
    brokerName: q.brokerName,
    perm: q.perm,
    readQueueNums: q.readQueueNums,
    topicSysFlag: q.topicSysFlag,
    writeQueueNums: q.writeQueueNums,
  };
}

/**
 * Standard JSON with quoted keys, as a 4.9.4+ namesrv answers clients with version ≥ 401.
 * Java clients of every version parse it.
 */
export function encodeTopicRouteData(data: TopicRouteData): Buffer {
  const out: Record<string, unknown> = {
    brokerDatas: data.brokerDatas.map(brokerDataJson),
    filterServerTable: data.filterServerTable ?? {},
  };
  if (data.orderTopicConf !== undefined) out.orderTopicConf = data.orderTopicConf;
  out.queueDatas = data.queueDatas.map(queueDataJson);
  if (data.topicQueueMappingByBroker !== undefined)
    out.topicQueueMappingByBroker = data.topicQueueMappingByBroker;
  return Buffer.from(JSON.stringify(out), 'utf8');
}

/** GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206): no header; body `TopicList`. */
export const GetAllTopicListFromNameserver = declareRequest(
  RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
  'GET_ALL_TOPIC_LIST_FROM_NAMESERVER',
  {},
);

export interface TopicList {
  topicList: string[];
  brokerAddr?: string;
}

export function encodeTopicList(list: TopicList): Buffer {
  const out: Record<string, unknown> = {};
  if (list.brokerAddr !== undefined) out.brokerAddr = list.brokerAddr;
  out.topicList = list.topicList;
  return Buffer.from(JSON.stringify(out), 'utf8');
}

export function parseTopicList(body: Uint8Array | string): TopicList {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'TopicList');
  const list: TopicList = {
    topicList: expectArray(o.topicList ?? [], 'topicList').map((t) => jsonString(t, 'topic')),
  };
  if (typeof o.brokerAddr === 'string') list.brokerAddr = o.brokerAddr;
  return list;
}
