/**
 * Bodies of the broker administration codes (docs/admin-cli.md §1.2), written as fastjson writes
 * them (keys sorted, MessageQueue map keys bare) and read tolerantly: TopicStatsTable (202),
 * GroupList (300), ResetOffsetBody (222), ProducerConnection (204), SubscriptionGroupConfig and
 * its wrapper (200, 201), and the properties text of GET/UPDATE_BROKER_CONFIG (26, 25).
 */
import { parseFastjson, parseFastjsonBytes } from '../fastjson.js';
import { expectArray, expectObject, jsonBool, jsonNumber, jsonString } from '../headers/fields.js';
import { dataVersionJson, parseDataVersion, type DataVersion } from '../headers/register.js';
import { connectionSetJson, parseConnectionSet, type ConsumerConnectionEntry } from './consumer-admin.js';
import {
  decodeLongValue,
  decodeMessageQueueMap,
  encodeMessageQueueMap,
  type MessageQueueData,
  type MessageQueueMapEntry,
} from './message-queue-map.js';

function parseBody(body: Uint8Array | string, what: string): Record<string, unknown> {
  return expectObject(typeof body === 'string' ? parseFastjson(body) : parseFastjsonBytes(body), what);
}

/** Java `TopicOffset`: one queue of GET_TOPIC_STATS_INFO. */
export interface TopicOffset {
  minOffset: number;
  maxOffset: number;
  /** Store time of the message at maxOffset − 1; 0 when the queue is empty. */
  lastUpdateTimestamp: number;
}

export function encodeTopicStatsTable(entries: Iterable<readonly [MessageQueueData, TopicOffset]>): Buffer {
  const table = encodeMessageQueueMap(
    entries,
    (o) =>
      `{"lastUpdateTimestamp":${o.lastUpdateTimestamp},"maxOffset":${o.maxOffset},"minOffset":${o.minOffset}}`,
  );
  return Buffer.from(`{"offsetTable":${table}}`, 'utf8');
}

/** `offsetTable` keyed by `mqKey`. */
export function parseTopicStatsTable(
  body: Uint8Array | string,
): Map<string, MessageQueueMapEntry<TopicOffset>> {
  const o = parseBody(body, 'TopicStatsTable');
  return decodeMessageQueueMap(o.offsetTable, (v, what) => {
    const w = expectObject(v, what);
    return {
      minOffset: jsonNumber(w.minOffset, `${what}.minOffset`, 0),
      maxOffset: jsonNumber(w.maxOffset, `${what}.maxOffset`, 0),
      lastUpdateTimestamp: jsonNumber(w.lastUpdateTimestamp, `${what}.lastUpdateTimestamp`, 0),
    };
  });
}

/** `GroupList`: `{"groupList":[…]}`. */
export function encodeGroupList(groups: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify({ groupList: [...groups] }), 'utf8');
}

export function parseGroupList(body: Uint8Array | string): string[] {
  const o = parseBody(body, 'GroupList');
  return expectArray(o.groupList ?? [], 'groupList').map((g) => jsonString(g, 'group'));
}

/** `ResetOffsetBody`: `{"offsetTable":{{mq}:offset}}`. */
export function encodeResetOffsetBody(entries: Iterable<readonly [MessageQueueData, number]>): Buffer {
  return Buffer.from(`{"offsetTable":${encodeMessageQueueMap(entries)}}`, 'utf8');
}

export function parseResetOffsetBody(body: Uint8Array | string): Map<string, MessageQueueMapEntry<number>> {
  return decodeMessageQueueMap(parseBody(body, 'ResetOffsetBody').offsetTable, decodeLongValue);
}

/** `ProducerConnection`: `{"connectionSet":[…]}`. */
export function encodeProducerConnection(set: readonly ConsumerConnectionEntry[]): Buffer {
  return Buffer.from(JSON.stringify({ connectionSet: connectionSetJson(set) }), 'utf8');
}

export function parseProducerConnection(body: Uint8Array | string): ConsumerConnectionEntry[] {
  return parseConnectionSet(parseBody(body, 'ProducerConnection').connectionSet);
}

/** Groups every broker has from start (Java `SubscriptionGroupManager#init`). */
export const BUILT_IN_SUBSCRIPTION_GROUPS: readonly string[] = Object.freeze([
  'TOOLS_CONSUMER',
  'FILTERSRV_CONSUMER',
  'SELF_TEST_C_GROUP',
  'CID_ONS-HTTP-PROXY',
  'CID_ONSAPI_PULL',
  'CID_ONSAPI_PERMISSION',
  'CID_ONSAPI_OWNER',
]);

/** Java `SubscriptionGroupConfig` (4.9 fields; 5.x adds more, which are ignored). */
export interface SubscriptionGroupConfig {
  groupName: string;
  consumeEnable: boolean;
  consumeFromMinEnable: boolean;
  consumeBroadcastEnable: boolean;
  retryQueueNums: number;
  retryMaxTimes: number;
  brokerId: number;
  whichBrokerWhenConsumeSlowly: number;
  notifyConsumerIdsChangedEnable: boolean;
  /** [5.x] */
  consumeMessageOrderly?: boolean | undefined;
}

/** Java's defaults for a new group. */
export function subscriptionGroupConfig(
  groupName: string,
  overrides: Partial<SubscriptionGroupConfig> = {},
): SubscriptionGroupConfig {
  return {
    groupName,
    consumeEnable: true,
    consumeFromMinEnable: true,
    consumeBroadcastEnable: true,
    retryQueueNums: 1,
    retryMaxTimes: 16,
    brokerId: 0,
    whichBrokerWhenConsumeSlowly: 1,
    notifyConsumerIdsChangedEnable: true,
    ...overrides,
  };
}

/** The JSON object fastjson writes (keys sorted). */
export function subscriptionGroupJson(c: SubscriptionGroupConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {
    brokerId: c.brokerId,
    consumeBroadcastEnable: c.consumeBroadcastEnable,
    consumeEnable: c.consumeEnable,
    consumeFromMinEnable: c.consumeFromMinEnable,
  };
  if (c.consumeMessageOrderly !== undefined) out.consumeMessageOrderly = c.consumeMessageOrderly;
  out.groupName = c.groupName;
  out.notifyConsumerIdsChangedEnable = c.notifyConsumerIdsChangedEnable;
  out.retryMaxTimes = c.retryMaxTimes;
  out.retryQueueNums = c.retryQueueNums;
  out.whichBrokerWhenConsumeSlowly = c.whichBrokerWhenConsumeSlowly;
  return out;
}

export function parseSubscriptionGroupValue(
  value: unknown,
  what = 'SubscriptionGroupConfig',
): SubscriptionGroupConfig {
  const o = expectObject(value, what);
  const d = subscriptionGroupConfig(jsonString(o.groupName, `${what}.groupName`));
  const out: SubscriptionGroupConfig = {
    groupName: d.groupName,
    consumeEnable: jsonBool(o.consumeEnable, `${what}.consumeEnable`, d.consumeEnable),
    consumeFromMinEnable: jsonBool(
      o.consumeFromMinEnable,
      `${what}.consumeFromMinEnable`,
      d.consumeFromMinEnable,
    ),
    consumeBroadcastEnable: jsonBool(
      o.consumeBroadcastEnable,
      `${what}.consumeBroadcastEnable`,
      d.consumeBroadcastEnable,
    ),
    retryQueueNums: jsonNumber(o.retryQueueNums, `${what}.retryQueueNums`, d.retryQueueNums),
    retryMaxTimes: jsonNumber(o.retryMaxTimes, `${what}.retryMaxTimes`, d.retryMaxTimes),
    brokerId: jsonNumber(o.brokerId, `${what}.brokerId`, d.brokerId),
    whichBrokerWhenConsumeSlowly: jsonNumber(
      o.whichBrokerWhenConsumeSlowly,
      `${what}.whichBrokerWhenConsumeSlowly`,
      d.whichBrokerWhenConsumeSlowly,
    ),
    notifyConsumerIdsChangedEnable: jsonBool(
      o.notifyConsumerIdsChangedEnable,
      `${what}.notifyConsumerIdsChangedEnable`,
      d.notifyConsumerIdsChangedEnable,
    ),
  };
  if (typeof o.consumeMessageOrderly === 'boolean') out.consumeMessageOrderly = o.consumeMessageOrderly;
  return out;
}

export function encodeSubscriptionGroupConfig(c: SubscriptionGroupConfig): Buffer {
  return Buffer.from(JSON.stringify(subscriptionGroupJson(c)), 'utf8');
}

export function parseSubscriptionGroupConfig(body: Uint8Array | string): SubscriptionGroupConfig {
  return parseSubscriptionGroupValue(parseBody(body, 'SubscriptionGroupConfig'));
}

/** `SubscriptionGroupWrapper` (GET_ALL_SUBSCRIPTIONGROUP_CONFIG, and the broker's state file). */
export interface SubscriptionGroupWrapper {
  dataVersion: DataVersion;
  subscriptionGroupTable: Record<string, SubscriptionGroupConfig>;
}

export function encodeSubscriptionGroupWrapper(w: SubscriptionGroupWrapper): Buffer {
  const table: Record<string, unknown> = {};
  for (const name of Object.keys(w.subscriptionGroupTable).sort())
    table[name] = subscriptionGroupJson(w.subscriptionGroupTable[name]!);
  return Buffer.from(
    JSON.stringify({ dataVersion: dataVersionJson(w.dataVersion), subscriptionGroupTable: table }),
    'utf8',
  );
}

export function parseSubscriptionGroupWrapper(body: Uint8Array | string): SubscriptionGroupWrapper {
  const o = parseBody(body, 'SubscriptionGroupWrapper');
  const subscriptionGroupTable: Record<string, SubscriptionGroupConfig> = {};
  for (const [name, v] of Object.entries(
    expectObject(o.subscriptionGroupTable ?? {}, 'subscriptionGroupTable'),
  ))
    subscriptionGroupTable[name] = parseSubscriptionGroupValue(v, `subscriptionGroupTable[${name}]`);
  return {
    dataVersion: parseDataVersion(o.dataVersion ?? { counter: 0, timestamp: 0 }),
    subscriptionGroupTable,
  };
}

/** Java `MixAll#properties2String`: `key=value` lines, as the broker writes GET_BROKER_CONFIG. */
export function encodePropertiesText(props: Readonly<Record<string, string>>): Buffer {
  const lines = Object.keys(props)
    .sort()
    .map((k) => `${k}=${props[k]!}\n`);
  return Buffer.from(lines.join(''), 'utf8');
}

const ESCAPES: Readonly<Record<string, string>> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescapeProperty(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (ESCAPES[e] ?? e),
  );
}

/**
 * Java `Properties.load` for the line-per-key text brokers write: `#`/`!` comments, key and value
 * split at the first unescaped `=`, `:` or blank, backslash escapes. Continuation lines are joined.
 */
export function parsePropertiesText(body: Uint8Array | string): Record<string, string> {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const out: Record<string, string> = {};
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = pending === '' ? raw.replace(/^\s+/, '') : pending + raw.replace(/^\s+/, '');
    const trailing = /(\\+)$/.exec(line)?.[1]?.length ?? 0;
    if (trailing % 2 === 1) {
      pending = line.slice(0, -1);
      continue;
    }
    pending = '';
    logical.push(line);
  }
  if (pending !== '') logical.push(pending);
  for (const line of logical) {
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^((?:\\.|[^=:\s\\])*)\s*[=:\s]?\s*(.*)$/.exec(line);
    if (!m) continue;
    out[unescapeProperty(m[1]!)] = unescapeProperty(m[2]!);
  }
  return out;
}
