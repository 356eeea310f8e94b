/**
 * JSON bodies exchanged between brokers, the NameServer and clients (protocol.md §7), seen from
 * the server side: what a broker registers and what the NameServer answers. We always write
 * standard JSON with quoted map keys (Java clients accept it) and read fastjson's unquoted keys too.
 */
import { inflateSync } from 'node:zlib';
import { parseFastjsonBytes } from '../../protocol/fastjson.js';
import { BadRequestError } from './request-fields.js';

export interface DataVersion {
  counter: number;
  timestamp: number;
  /** [5.x] */
  stateVersion?: number;
}

/** Broker-side topic configuration, Java `TopicConfig`. */
export interface TopicConfig {
  topicName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicFilterType: 'SINGLE_TAG' | 'MULTI_TAG';
  topicSysFlag: number;
  order: boolean;
}

export interface TopicConfigWrapper {
  dataVersion: DataVersion;
  topicConfigTable: Record<string, TopicConfig>;
}

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
  /** brokerId → "host:port" */
  brokerAddrs: Record<string, string>;
}

export interface TopicRouteData {
  brokerDatas: BrokerData[];
  queueDatas: QueueData[];
  orderTopicConf?: string;
}

export interface ClusterInfo {
  brokerAddrTable: Record<string, BrokerData>;
  clusterAddrTable: Record<string, string[]>;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as T;
  return out;
}

function brokerDataJson(b: BrokerData): object {
  return { brokerAddrs: sortKeys(b.brokerAddrs), brokerName: b.brokerName, cluster: b.cluster };
}

/** TopicRouteData as fastjson writes it with MapSortField, keys alphabetical, `filterServerTable: {}`. */
export function encodeTopicRouteData(route: TopicRouteData): Buffer {
  const json: Record<string, unknown> = {
    brokerDatas: route.brokerDatas.map(brokerDataJson),
    filterServerTable: {},
  };
  if (route.orderTopicConf !== undefined) json.orderTopicConf = route.orderTopicConf;
  json.queueDatas = route.queueDatas.map((q) => ({
    brokerName: q.brokerName,
    perm: q.perm,
    readQueueNums: q.readQueueNums,
    topicSysFlag: q.topicSysFlag,
    writeQueueNums: q.writeQueueNums,
  }));
  return Buffer.from(JSON.stringify(json));
}

export function encodeClusterInfo(info: ClusterInfo): Buffer {
  const brokerAddrTable: Record<string, object> = {};
  for (const [name, b] of Object.entries(sortKeys(info.brokerAddrTable)))
    brokerAddrTable[name] = brokerDataJson(b);
  return Buffer.from(JSON.stringify({ brokerAddrTable, clusterAddrTable: sortKeys(info.clusterAddrTable) }));
}

function topicConfigJson(t: TopicConfig): object {
  return {
    order: t.order,
    perm: t.perm,
    readQueueNums: t.readQueueNums,
    topicFilterType: t.topicFilterType,
    topicName: t.topicName,
    topicSysFlag: t.topicSysFlag,
    writeQueueNums: t.writeQueueNums,
  };
}

export function topicConfigWrapperJson(wrapper: TopicConfigWrapper): object {
  const table: Record<string, object> = {};
  for (const [name, t] of Object.entries(wrapper.topicConfigTable)) table[name] = topicConfigJson(t);
  return { dataVersion: dataVersionJson(wrapper.dataVersion), topicConfigTable: table };
}

export function dataVersionJson(v: DataVersion): object {
  return v.stateVersion === undefined
    ? { counter: v.counter, timestamp: v.timestamp }
    : { counter: v.counter, stateVersion: v.stateVersion, timestamp: v.timestamp };
}

/** RegisterBrokerBody, uncompressed form (what a 4.9.7 broker sends by default). */
export function encodeRegisterBrokerBody(wrapper: TopicConfigWrapper): Buffer {
  return Buffer.from(
    JSON.stringify({ filterServerList: [], topicConfigSerializeWrapper: topicConfigWrapperJson(wrapper) }),
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown, fallback: number, what: string): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new BadRequestError(`${what} is not a number`);
  return n;
}

export function parseDataVersion(v: unknown): DataVersion {
  if (!isObject(v)) throw new BadRequestError('dataVersion is not an object');
  const out: DataVersion = {
    counter: num(v.counter, 0, 'dataVersion.counter'),
    timestamp: num(v.timestamp, 0, 'dataVersion.timestamp'),
  };
  if (v.stateVersion !== undefined) out.stateVersion = num(v.stateVersion, 0, 'dataVersion.stateVersion');
  return out;
}

export function parseTopicConfig(name: string, v: unknown): TopicConfig {
  if (!isObject(v)) throw new BadRequestError(`topic config ${name} is not an object`);
  return {
    topicName: typeof v.topicName === 'string' ? v.topicName : name,
    readQueueNums: num(v.readQueueNums, 16, 'readQueueNums'),
    writeQueueNums: num(v.writeQueueNums, 16, 'writeQueueNums'),
    perm: num(v.perm, 6, 'perm'),
    topicFilterType: v.topicFilterType === 'MULTI_TAG' ? 'MULTI_TAG' : 'SINGLE_TAG',
    topicSysFlag: num(v.topicSysFlag, 0, 'topicSysFlag'),
    order: v.order === true || v.order === 'true',
  };
}

export function parseTopicConfigWrapper(v: unknown): TopicConfigWrapper {
  if (!isObject(v)) throw new BadRequestError('topicConfigSerializeWrapper is not an object');
  const table: Record<string, TopicConfig> = {};
  const raw = v.topicConfigTable ?? {};
  if (!isObject(raw)) throw new BadRequestError('topicConfigTable is not an object');
  for (const [name, t] of Object.entries(raw)) table[name] = parseTopicConfig(name, t);
  return {
    dataVersion: v.dataVersion === undefined ? { counter: 0, timestamp: 0 } : parseDataVersion(v.dataVersion),
    topicConfigTable: table,
  };
}

function parseJsonBody(body: Uint8Array, what: string): unknown {
  try {
    return parseFastjsonBytes(body);
  } catch (err) {
    throw new BadRequestError(`${what}: body is not valid JSON (${(err as Error).message})`);
  }
}

/** Compressed RegisterBrokerBody (protocol.md §7.1): zlib of length-prefixed pieces. */
function decodeCompressedRegisterBody(body: Uint8Array): TopicConfigWrapper {
  let buf: Buffer;
  try {
    buf = inflateSync(body);
  } catch (err) {
    throw new BadRequestError(`register body: cannot inflate (${(err as Error).message})`);
  }
  let pos = 0;
  const int = (): number => {
    if (pos + 4 > buf.length) throw new BadRequestError('register body: truncated');
    const v = buf.readInt32BE(pos);
    pos += 4;
    return v;
  };
  const text = (): string => {
    const len = int();
    if (len < 0 || pos + len > buf.length) throw new BadRequestError('register body: bad length');
    const s = buf.toString('utf8', pos, pos + len);
    pos += len;
    return s;
  };
  const dataVersion = parseDataVersion(JSON.parse(text()));
  const count = int();
  const table: Record<string, TopicConfig> = {};
  for (let i = 0; i < count; i++) {
    const parts = text().split(' ');
    const [name, r, w, perm, filter] = parts;
    if (name === undefined || r === undefined || w === undefined || perm === undefined) {
      throw new BadRequestError('register body: bad topic config');
    }
    table[name] = {
      topicName: name,
      readQueueNums: Number(r),
      writeQueueNums: Number(w),
      perm: Number(perm),
      topicFilterType: filter === 'MULTI_TAG' ? 'MULTI_TAG' : 'SINGLE_TAG',
      topicSysFlag: 0,
      order: false,
    };
  }
  return { dataVersion, topicConfigTable: table };
}

/**
 * The topic table a broker registers. `version >= 37` (V3_0_11) means a RegisterBrokerBody,
 * otherwise the bare wrapper; `compressed` selects the zlib form.
 */
export function decodeRegisterBrokerBody(
  body: Uint8Array | undefined,
  version: number,
  compressed: boolean,
): TopicConfigWrapper {
  if (body === undefined || body.length === 0)
    return { dataVersion: { counter: 0, timestamp: 0 }, topicConfigTable: {} };
  if (compressed) return decodeCompressedRegisterBody(body);
  const json = parseJsonBody(body, 'register body');
  if (version >= 37) {
    if (!isObject(json)) throw new BadRequestError('register body is not an object');
    return parseTopicConfigWrapper(json.topicConfigSerializeWrapper ?? {});
  }
  return parseTopicConfigWrapper(json);
}

export function decodeDataVersionBody(body: Uint8Array | undefined): DataVersion | undefined {
  if (body === undefined || body.length === 0) return undefined;
  return parseDataVersion(parseJsonBody(body, 'data version'));
}

export function dataVersionEquals(a: DataVersion | undefined, b: DataVersion | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return (
    a.counter === b.counter && a.timestamp === b.timestamp && (a.stateVersion ?? 0) === (b.stateVersion ?? 0)
  );
}
