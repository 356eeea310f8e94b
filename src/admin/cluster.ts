/** Cluster and broker look-ups: GET_BROKER_CLUSTER_INFO (106), GET_BROKER_RUNTIME_INFO (28), broker config (26, 25). */
import { InvalidArgumentError } from '../errors.js';
import { encodePropertiesText, parsePropertiesText } from '../protocol/body/admin.js';
import { GetBrokerRuntimeInfo } from '../protocol/headers/admin.js';
import {
  GetBrokerConfig,
  UpdateBrokerConfig,
  ViewBrokerStatsData,
} from '../protocol/headers/broker-admin.js';
import { parseKVTable } from '../protocol/headers/register.js';
import type { AdminContext } from './admin-context.js';
import type { BrokerAddressInfo, BrokerRuntimeStats, BrokerStatsData, ClusterInfoResult } from './types.js';

export async function clusterInfo(ctx: AdminContext): Promise<ClusterInfoResult> {
  const info = await ctx.clusterInfo();
  const clusters: Record<string, string[]> = {};
  const brokers: BrokerAddressInfo[] = [];
  for (const cluster of Object.keys(info.clusterAddrTable).sort()) {
    const names = [...(info.clusterAddrTable[cluster] ?? [])].sort();
    clusters[cluster] = names;
    for (const brokerName of names) {
      const bd = info.brokerAddrTable[brokerName];
      if (!bd) continue;
      const ids = Object.keys(bd.brokerAddrs).sort((a, b) => Number(a) - Number(b));
      for (const id of ids)
        brokers.push({ cluster, brokerName, brokerId: Number(id), address: bd.brokerAddrs[id]! });
    }
  }
  return { clusters, brokers };
}

/**
 * `"12.5 10.1 3.0"` → [12.5, 10.1, 3]. Positions are kept: a broker up for less than a window
 * leaves that figure empty (`"12.5  "` → [12.5, undefined, undefined]).
 */
function tpsTriple(raw: string | undefined): Array<number | undefined> {
  if (raw === undefined || raw === '') return [];
  return raw.split(' ').map((part) => {
    const n = part.trim() === '' ? NaN : Number(part);
    return Number.isFinite(n) ? n : undefined;
  });
}

function num(raw: string | undefined): number {
  const n = Number(raw);
  return raw === undefined || raw === '' || !Number.isFinite(n) ? 0 : n;
}

export async function brokerRuntimeStats(ctx: AdminContext, broker: string): Promise<BrokerRuntimeStats> {
  const { address } = await ctx.brokerAddress(broker);
  const response = await ctx.call(address, GetBrokerRuntimeInfo, undefined);
  const raw = response.body ? parseKVTable(response.body) : {};
  const ratio = raw.commitLogDiskRatio;
  return {
    address,
    version: raw.brokerVersionDesc ?? '',
    putTps: tpsTriple(raw.putTps),
    getTransferredTps: tpsTriple(raw.getTransferedTps ?? raw.getTransferredTps),
    msgPutTotalYesterdayMorning: num(raw.msgPutTotalYesterdayMorning),
    msgPutTotalTodayMorning: num(raw.msgPutTotalTodayMorning),
    msgPutTotalTodayNow: num(raw.msgPutTotalTodayNow),
    msgGetTotalYesterdayMorning: num(raw.msgGetTotalYesterdayMorning),
    msgGetTotalTodayMorning: num(raw.msgGetTotalTodayMorning),
    msgGetTotalTodayNow: num(raw.msgGetTotalTodayNow),
    commitLogDiskRatio: ratio === undefined || ratio === '' ? undefined : num(ratio),
    commitLogMinOffset: num(raw.commitLogMinOffset),
    commitLogMaxOffset: num(raw.commitLogMaxOffset),
    bootTimestamp: num(raw.bootTimestamp),
    raw,
  };
}

/** GET_BROKER_CONFIG: the broker's settings as key → value text. */
export async function brokerConfig(ctx: AdminContext, broker: string): Promise<Record<string, string>> {
  const { address } = await ctx.brokerAddress(broker);
  const response = await ctx.call(address, GetBrokerConfig, undefined);
  return response.body ? parsePropertiesText(response.body) : {};
}

/** UPDATE_BROKER_CONFIG with `properties`; NO_PERMISSION (black-listed key) stays a BrokerResponseError. */
export async function updateBrokerConfig(
  ctx: AdminContext,
  broker: string,
  properties: Readonly<Record<string, string | number | boolean>>,
): Promise<void> {
  const entries = Object.entries(properties);
  if (entries.length === 0) throw new InvalidArgumentError('properties', 'must name at least one key');
  const text: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (!/^[A-Za-z0-9_.-]+$/.test(k))
      throw new InvalidArgumentError('properties', `bad key ${JSON.stringify(k)}`);
    text[k] = String(v);
  }
  const { address } = await ctx.brokerAddress(broker);
  await ctx.call(address, UpdateBrokerConfig, undefined, encodePropertiesText(text));
}

function statsWindow(raw: unknown): { sum: number; tps: number; avgpt: number } {
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { sum: n(o['sum']), tps: n(o['tps']), avgpt: n(o['avgpt']) };
}

/**
 * VIEW_BROKER_STATS_DATA: one stats item of a broker (`TOPIC_PUT_SIZE` keyed by topic,
 * `GROUP_GET_SIZE` keyed `topic@group`, …), as rocketmq-exporter reads it. An item the broker
 * never counted answers SYSTEM_ERROR (a BrokerResponseError).
 */
export async function brokerStatsData(
  ctx: AdminContext,
  broker: string,
  statsName: string,
  statsKey: string,
): Promise<BrokerStatsData> {
  const { address } = await ctx.brokerAddress(broker);
  const response = await ctx.call(address, ViewBrokerStatsData, { statsName, statsKey });
  const body = response.body ? (JSON.parse(Buffer.from(response.body).toString('utf8')) as unknown) : {};
  const o = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return {
    address,
    statsMinute: statsWindow(o['statsMinute']),
    statsHour: statsWindow(o['statsHour']),
    statsDay: statsWindow(o['statsDay']),
  };
}
