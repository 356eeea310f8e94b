/**
 * rocketmq-exporter's `rocketmq_brokeruntime_*` gauges (RMQMetricsCollector.collectBrokerRuntimeStats):
 * one sample per master per gauge, from the GET_BROKER_RUNTIME_INFO the scrape already reads for
 * `rocketmq_broker_tps`. Only the gauges both an Apache broker and the embedded one can fill are
 * served; docs/observability.md §3.1 lists the others. A value the broker did not report (a TPS
 * window it has no samples for yet, an empty earliest-message time) has no sample, rather than
 * a 0 that reads as a figure.
 */
import type { BrokerRuntimeStats } from '../admin/types.js';
import type { MetricSample } from './exposition.js';

/** The exporter's labels: `brokerHost` is always empty there too; `des` is `brokerVersionDesc`. */
export const BROKER_RUNTIME_LABELS = [
  'cluster',
  'brokerIP',
  'brokerHost',
  'des',
  'boottime',
  'broker_version',
] as const;

/** A number from the runtime table, undefined when absent, empty or not a number. */
function rawNumber(s: BrokerRuntimeStats, key: string): number | undefined {
  const raw = s.raw[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

interface RuntimeGauge {
  name: string;
  help: string;
  value(s: BrokerRuntimeStats): number | undefined;
}

/** The exporter's TPS gauges of one runtime key: windows 10 s, 60 s, 600 s are positions 0, 1, 2. */
function tpsGauges(
  prefix: string,
  what: string,
  tps: (s: BrokerRuntimeStats) => Array<number | undefined>,
): RuntimeGauge[] {
  return ([10, 60, 600] as const).map((window, i) => ({
    name: `rocketmq_brokeruntime_${prefix}${window}`,
    help: `${what} per second over ${window} s`,
    value: (s) => tps(s)[i],
  }));
}

function rawGauge(name: string, key: string, help: string): RuntimeGauge {
  return { name: `rocketmq_brokeruntime_${name}`, help, value: (s) => rawNumber(s, key) };
}

/** Served gauges, in the exporter's names, each with the runtime key it reads. */
export const BROKER_RUNTIME_GAUGES: readonly RuntimeGauge[] = [
  rawGauge(
    'msg_put_total_today_now',
    'msgPutTotalTodayNow',
    'Messages put since the broker started (its counter now)',
  ),
  rawGauge(
    'msg_gettotal_today_now',
    'msgGetTotalTodayNow',
    'Messages got since the broker started (its counter now)',
  ),
  rawGauge('msg_puttotal_todaymorning', 'msgPutTotalTodayMorning', 'The put counter at midnight today'),
  rawGauge('msg_gettotal_todaymorning', 'msgGetTotalTodayMorning', 'The get counter at midnight today'),
  rawGauge(
    'msg_puttotal_yesterdaymorning',
    'msgPutTotalYesterdayMorning',
    'The put counter at midnight yesterday',
  ),
  rawGauge(
    'msg_gettotal_yesterdaymorning',
    'msgGetTotalYesterdayMorning',
    'The get counter at midnight yesterday',
  ),
  ...tpsGauges('put_tps', 'Messages put', (s) => s.putTps),
  ...tpsGauges('gettransfered_tps', 'Messages sent to consumers', (s) => s.getTransferredTps),
  rawGauge('commitlog_minoffset', 'commitLogMinOffset', 'Smallest commit-log offset still stored'),
  rawGauge('commitlog_maxoffset', 'commitLogMaxOffset', 'Commit-log offset the next message is written at'),
  rawGauge(
    'earliest_message_timestamp',
    'earliestMessageTimeStamp',
    'Store time (epoch ms) of the oldest message kept',
  ),
  {
    name: 'rocketmq_brokeruntime_commitlog_disk_ratio',
    help: 'Used share of the commit-log disk, 0 to 1',
    value: (s) => s.commitLogDiskRatio,
  },
];

/** The labels of one master's runtime samples. */
export function brokerRuntimeLabels(cluster: string, stats: BrokerRuntimeStats): Record<string, string> {
  return {
    cluster,
    brokerIP: stats.address,
    brokerHost: '',
    des: stats.version,
    boottime: String(stats.bootTimestamp),
    broker_version: stats.raw['brokerVersion'] ?? '',
  };
}

/** Each served gauge's sample of one master (none where it reported no value). */
export function brokerRuntimeSamples(
  cluster: string,
  stats: BrokerRuntimeStats,
): Array<{ gauge: RuntimeGauge; sample: MetricSample }> {
  const labels = brokerRuntimeLabels(cluster, stats);
  const out: Array<{ gauge: RuntimeGauge; sample: MetricSample }> = [];
  for (const gauge of BROKER_RUNTIME_GAUGES) {
    const value = gauge.value(stats);
    if (value !== undefined) out.push({ gauge, sample: { labels, value } });
  }
  return out;
}
