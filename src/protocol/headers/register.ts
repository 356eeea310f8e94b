/**
 * Broker ↔ NameServer registration (docs/protocol.md §7.1): REGISTER_BROKER (103), UNREGISTER_BROKER
 * (104), QUERY_DATA_VERSION (322), and the GET_BROKER_CLUSTER_INFO (106) body.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { ProtocolError } from '../../errors.js';
import { RequestCode } from '../codes.js';
import { parseFastjson } from '../fastjson.js';
import { PermName } from '../perm.js';
import {
  F,
  declareRequest,
  defineHeader,
  expectArray,
  expectObject,
  jsonBool,
  jsonNumber,
  jsonString,
  type HeaderOf,
} from './fields.js';
import { brokerDataJson, parseBrokerData, type BrokerData } from './route.js';

export const RegisterBroker = declareRequest(RequestCode.REGISTER_BROKER, 'REGISTER_BROKER', {
  brokerName: F.string.required(),
  brokerAddr: F.string.required(),
  clusterName: F.string.required(),
  haServerAddr: F.string.required(),
  brokerId: F.long.required(),
  /** Java primitive: always sent. */
  compressed: F.bool.withDefault(false),
  /** `CRC32(body) & 0x7FFFFFFF`; 0 disables the namesrv's check. */
  bodyCrc32: F.int.withDefault(0),
  /** [5.x] */
  heartbeatTimeoutMillis: F.long.optional(),
  /** [5.x] */
  enableActingMaster: F.bool.optional(),
});
export type RegisterBrokerRequestHeader = HeaderOf<typeof RegisterBroker.spec>;

export const RegisterBrokerResponse = defineHeader('RegisterBrokerResponseHeader', {
  haServerAddr: F.string.optional(),
  masterAddr: F.string.optional(),
});
export type RegisterBrokerResponseHeader = HeaderOf<typeof RegisterBrokerResponse.spec>;

export const UnregisterBroker = declareRequest(RequestCode.UNREGISTER_BROKER, 'UNREGISTER_BROKER', {
  brokerName: F.string.required(),
  brokerAddr: F.string.required(),
  clusterName: F.string.required(),
  brokerId: F.long.required(),
});
export type UnregisterBrokerRequestHeader = HeaderOf<typeof UnregisterBroker.spec>;

export const QueryDataVersion = declareRequest(RequestCode.QUERY_DATA_VERSION, 'QUERY_DATA_VERSION', {
  brokerName: F.string.required(),
  brokerAddr: F.string.required(),
  clusterName: F.string.required(),
  brokerId: F.long.required(),
});
export type QueryDataVersionRequestHeader = HeaderOf<typeof QueryDataVersion.spec>;
export const QueryDataVersionResponse = defineHeader('QueryDataVersionResponseHeader', {
  changed: F.bool.optional(),
});
export type QueryDataVersionResponseHeader = HeaderOf<typeof QueryDataVersionResponse.spec>;

export const TopicFilterType = { SINGLE_TAG: 'SINGLE_TAG', MULTI_TAG: 'MULTI_TAG' } as const;
export type TopicFilterType = (typeof TopicFilterType)[keyof typeof TopicFilterType];

export interface DataVersion {
  counter: number;
  timestamp: number;
  /** [5.x] */
  stateVersion?: number;
}

export interface TopicConfig {
  topicName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicFilterType: TopicFilterType | string;
  topicSysFlag: number;
  order: boolean;
  /** [5.x] */
  attributes?: Record<string, string>;
}

/** Java `TopicConfig` defaults (16 queues, RW). */
export function topicConfig(
  topicName: string,
  overrides: Partial<Omit<TopicConfig, 'topicName'>> = {},
): TopicConfig {
  return {
    topicName,
    readQueueNums: 16,
    writeQueueNums: 16,
    perm: PermName.PERM_READ | PermName.PERM_WRITE,
    topicFilterType: TopicFilterType.SINGLE_TAG,
    topicSysFlag: 0,
    order: false,
    ...overrides,
  };
}

export interface TopicConfigSerializeWrapper {
  dataVersion: DataVersion;
  topicConfigTable: Record<string, TopicConfig>;
}

export interface RegisterBrokerBody {
  topicConfigSerializeWrapper: TopicConfigSerializeWrapper;
  filterServerList: string[];
}

export function dataVersionJson(dv: DataVersion): Record<string, unknown> {
  return dv.stateVersion === undefined
    ? { counter: dv.counter, timestamp: dv.timestamp }
    : { counter: dv.counter, stateVersion: dv.stateVersion, timestamp: dv.timestamp };
}

export function parseDataVersion(value: unknown): DataVersion {
  const o = expectObject(value, 'DataVersion');
  const dv: DataVersion = {
    counter: jsonNumber(o.counter, 'DataVersion.counter', 0),
    timestamp: jsonNumber(o.timestamp, 'DataVersion.timestamp', 0),
  };
  if (o.stateVersion !== undefined && o.stateVersion !== null) {
    dv.stateVersion = jsonNumber(o.stateVersion, 'DataVersion.stateVersion');
  }
  return dv;
}

export function dataVersionEquals(a: DataVersion, b: DataVersion): boolean {
  return (
    a.counter === b.counter && a.timestamp === b.timestamp && (a.stateVersion ?? 0) === (b.stateVersion ?? 0)
  );
}

export function topicConfigJson(tc: TopicConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (tc.attributes !== undefined) out.attributes = tc.attributes;
  out.order = tc.order;
  out.perm = tc.perm;
  out.readQueueNums = tc.readQueueNums;
  out.topicFilterType = tc.topicFilterType;
  out.topicName = tc.topicName;
  out.topicSysFlag = tc.topicSysFlag;
  out.writeQueueNums = tc.writeQueueNums;
  return out;
}

export function parseTopicConfig(value: unknown, nameFallback?: string): TopicConfig {
  const o = expectObject(value, 'TopicConfig');
  const tc = topicConfig(jsonString(o.topicName, 'TopicConfig.topicName', nameFallback), {
    readQueueNums: jsonNumber(o.readQueueNums, 'TopicConfig.readQueueNums', 16),
    writeQueueNums: jsonNumber(o.writeQueueNums, 'TopicConfig.writeQueueNums', 16),
    perm: jsonNumber(o.perm, 'TopicConfig.perm', 6),
    topicFilterType: jsonString(o.topicFilterType, 'TopicConfig.topicFilterType', TopicFilterType.SINGLE_TAG),
    topicSysFlag: jsonNumber(o.topicSysFlag, 'TopicConfig.topicSysFlag', 0),
    order: jsonBool(o.order, 'TopicConfig.order', false),
  });
  if (o.attributes !== undefined && o.attributes !== null) {
    const attrs = expectObject(o.attributes, 'TopicConfig.attributes');
    tc.attributes = {};
    for (const [k, v] of Object.entries(attrs)) tc.attributes[k] = String(v);
  }
  return tc;
}

export function topicConfigSerializeWrapperJson(w: TopicConfigSerializeWrapper): Record<string, unknown> {
  const table: Record<string, unknown> = {};
  for (const [name, tc] of Object.entries(w.topicConfigTable)) table[name] = topicConfigJson(tc);
  return { dataVersion: dataVersionJson(w.dataVersion), topicConfigTable: table };
}

export function parseTopicConfigSerializeWrapper(value: unknown): TopicConfigSerializeWrapper {
  const o = expectObject(value, 'TopicConfigSerializeWrapper');
  const table: Record<string, TopicConfig> = {};
  const raw = expectObject(o.topicConfigTable ?? {}, 'topicConfigTable');
  for (const [name, tc] of Object.entries(raw)) table[name] = parseTopicConfig(tc, name);
  return {
    dataVersion:
      o.dataVersion === undefined || o.dataVersion === null
        ? { counter: 0, timestamp: 0 }
        : parseDataVersion(o.dataVersion),
    topicConfigTable: table,
  };
}

function writeLengthPrefixed(parts: Buffer[], bytes: Buffer): void {
  const len = Buffer.allocUnsafe(4);
  len.writeInt32BE(bytes.length, 0);
  parts.push(len, bytes);
}

/** Java `TopicConfig.encode()`: `"<name> <readQ> <writeQ> <perm> <filterType>[ <attributes JSON>]"`. */
export function encodeTopicConfigText(tc: TopicConfig): string {
  const base = `${tc.topicName} ${tc.readQueueNums} ${tc.writeQueueNums} ${tc.perm} ${tc.topicFilterType}`;
  return tc.attributes === undefined ? base : `${base} ${JSON.stringify(tc.attributes)}`;
}

export function decodeTopicConfigText(text: string): TopicConfig {
  const parts = text.split(' ');
  if (parts.length < 5) throw new ProtocolError(`TopicConfig text has ${parts.length} fields: ${text}`);
  const num = (s: string, what: string): number => {
    if (!/^-?\d+$/.test(s)) throw new ProtocolError(`TopicConfig ${what} is not a number: ${s}`);
    return Number(s);
  };
  const tc = topicConfig(parts[0]!, {
    readQueueNums: num(parts[1]!, 'readQueueNums'),
    writeQueueNums: num(parts[2]!, 'writeQueueNums'),
    perm: num(parts[3]!, 'perm'),
    topicFilterType: parts[4]!,
  });
  if (parts.length >= 6) {
    const attrs = expectObject(parseFastjson(parts.slice(5).join(' ')), 'TopicConfig.attributes');
    tc.attributes = {};
    for (const [k, v] of Object.entries(attrs)) tc.attributes[k] = String(v);
  }
  return tc;
}

/**
 * REGISTER_BROKER body. `compressed=false` (what we send): the JSON of docs/protocol.md §7.1.
 * `compressed=true`: Java's zlib stream of length-prefixed parts, level 9.
 */
export function encodeRegisterBrokerBody(body: RegisterBrokerBody, compressed = false): Buffer {
  if (!compressed) {
    return Buffer.from(
      JSON.stringify({
        filterServerList: body.filterServerList,
        topicConfigSerializeWrapper: topicConfigSerializeWrapperJson(body.topicConfigSerializeWrapper),
      }),
      'utf8',
    );
  }
  const parts: Buffer[] = [];
  const w = body.topicConfigSerializeWrapper;
  writeLengthPrefixed(parts, Buffer.from(JSON.stringify(dataVersionJson(w.dataVersion)), 'utf8'));
  const configs = Object.values(w.topicConfigTable);
  const count = Buffer.allocUnsafe(4);
  count.writeInt32BE(configs.length, 0);
  parts.push(count);
  for (const tc of configs) writeLengthPrefixed(parts, Buffer.from(encodeTopicConfigText(tc), 'utf8'));
  writeLengthPrefixed(parts, Buffer.from(JSON.stringify(body.filterServerList), 'utf8'));
  return deflateSync(Buffer.concat(parts), { level: 9 });
}

function decodeCompressedRegisterBrokerBody(bytes: Uint8Array): RegisterBrokerBody {
  let raw: Buffer;
  try {
    raw = inflateSync(bytes);
  } catch (err) {
    throw new ProtocolError(`cannot inflate RegisterBrokerBody: ${(err as Error).message}`, { cause: err });
  }
  let at = 0;
  const int = (what: string): number => {
    if (raw.length - at < 4) throw new ProtocolError(`RegisterBrokerBody truncated at ${what}`);
    const v = raw.readInt32BE(at);
    at += 4;
    return v;
  };
  const chunk = (what: string): string => {
    const n = int(`${what} length`);
    if (n < 0 || raw.length - at < n)
      throw new ProtocolError(`RegisterBrokerBody ${what} length ${n} overruns`);
    const s = raw.toString('utf8', at, at + n);
    at += n;
    return s;
  };
  const dataVersion = parseDataVersion(parseFastjson(chunk('DataVersion')));
  const topics = int('topic count');
  if (topics < 0) throw new ProtocolError(`RegisterBrokerBody topic count ${topics}`);
  const topicConfigTable: Record<string, TopicConfig> = {};
  for (let i = 0; i < topics; i++) {
    const tc = decodeTopicConfigText(chunk('TopicConfig'));
    topicConfigTable[tc.topicName] = tc;
  }
  const filterServerList = expectArray(parseFastjson(chunk('filterServerList')), 'filterServerList').map(
    (x) => jsonString(x, 'filter server'),
  );
  // [5.x] topic-queue mapping data may follow; a minimal namesrv ignores it.
  return { topicConfigSerializeWrapper: { dataVersion, topicConfigTable }, filterServerList };
}

/**
 * NameServer side. `version < 37` bodies are a bare TopicConfigSerializeWrapper; they are
 * recognised by shape (no `topicConfigSerializeWrapper` key).
 */
export function decodeRegisterBrokerBody(bytes: Uint8Array, compressed = false): RegisterBrokerBody {
  if (compressed) return decodeCompressedRegisterBrokerBody(bytes);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'RegisterBrokerBody');
  if (o.topicConfigSerializeWrapper === undefined && o.topicConfigTable !== undefined) {
    return { topicConfigSerializeWrapper: parseTopicConfigSerializeWrapper(o), filterServerList: [] };
  }
  return {
    topicConfigSerializeWrapper: parseTopicConfigSerializeWrapper(o.topicConfigSerializeWrapper ?? {}),
    filterServerList: expectArray(o.filterServerList ?? [], 'filterServerList').map((x) =>
      jsonString(x, 'filter server'),
    ),
  };
}

/** GET_BROKER_CLUSTER_INFO (106) body. */
export interface ClusterInfo {
  /** brokerName → BrokerData. */
  brokerAddrTable: Record<string, BrokerData>;
  /** clusterName → brokerNames. */
  clusterAddrTable: Record<string, string[]>;
}

export function encodeClusterInfo(info: ClusterInfo): Buffer {
  const brokers: Record<string, unknown> = {};
  for (const [name, bd] of Object.entries(info.brokerAddrTable)) brokers[name] = brokerDataJson(bd);
  return Buffer.from(
    JSON.stringify({ brokerAddrTable: brokers, clusterAddrTable: info.clusterAddrTable }),
    'utf8',
  );
}

/** Java namesrvs always write this body with unquoted integer keys; parseFastjson handles both. */
export function parseClusterInfo(body: Uint8Array | string): ClusterInfo {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'ClusterInfo');
  const brokerAddrTable: Record<string, BrokerData> = {};
  for (const [name, bd] of Object.entries(expectObject(o.brokerAddrTable ?? {}, 'brokerAddrTable'))) {
    brokerAddrTable[name] = parseBrokerData(bd);
  }
  const clusterAddrTable: Record<string, string[]> = {};
  for (const [cluster, names] of Object.entries(expectObject(o.clusterAddrTable ?? {}, 'clusterAddrTable'))) {
    clusterAddrTable[cluster] = expectArray(names, `clusterAddrTable[${cluster}]`).map((x) =>
      jsonString(x, 'brokerName'),
    );
  }
  return { brokerAddrTable, clusterAddrTable };
}

/** GET_BROKER_CLUSTER_INFO (106): no header; body `ClusterInfo`. */
export const GetBrokerClusterInfo = declareRequest(
  RequestCode.GET_BROKER_CLUSTER_INFO,
  'GET_BROKER_CLUSTER_INFO',
  {},
);

/** KV config commands (namesrv). REGISTER_BROKER answers with the `ORDER_TOPIC_CONFIG` table. */
export const PutKVConfig = declareRequest(RequestCode.PUT_KV_CONFIG, 'PUT_KV_CONFIG', {
  namespace: F.string.required(),
  key: F.string.required(),
  value: F.string.required(),
});
export const GetKVConfig = declareRequest(RequestCode.GET_KV_CONFIG, 'GET_KV_CONFIG', {
  namespace: F.string.required(),
  key: F.string.required(),
});
export const GetKVConfigResponse = defineHeader('GetKVConfigResponseHeader', { value: F.string.optional() });
export const DeleteKVConfig = declareRequest(RequestCode.DELETE_KV_CONFIG, 'DELETE_KV_CONFIG', {
  namespace: F.string.required(),
  key: F.string.required(),
});
export const ORDER_TOPIC_CONFIG_NAMESPACE = 'ORDER_TOPIC_CONFIG';

/** `KVTable` body: `{"table":{…}}`. */
export function encodeKVTable(table: Record<string, string>): Buffer {
  return Buffer.from(JSON.stringify({ table }), 'utf8');
}

export function parseKVTable(body: Uint8Array | string): Record<string, string> {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const o = expectObject(parseFastjson(text), 'KVTable');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(expectObject(o.table ?? {}, 'KVTable.table')))
    out[k] = jsonString(v, `table[${k}]`);
  return out;
}

/** GET_KVLIST_BY_NAMESPACE (219): response body `KVTable`. */
export const GetKVListByNamespace = declareRequest(
  RequestCode.GET_KVLIST_BY_NAMESPACE,
  'GET_KVLIST_BY_NAMESPACE',
  { namespace: F.string.required() },
);
