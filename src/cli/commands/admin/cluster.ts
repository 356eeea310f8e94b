/** mqadmin's cluster and broker commands: clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig. */
import type { Admin } from '../../../admin/admin.js';
import { BROKER_OR_CLUSTER_FLAGS, defineAdminCommand, need, target, type AdminOutput } from './define.js';

/** Masters and slaves of `cluster` (or of every cluster), as `host:port`. */
async function addressesOf(
  admin: Admin,
  broker: string | undefined,
  cluster: string | undefined,
): Promise<string[]> {
  const t = target(broker, cluster);
  if (t.brokers) return t.brokers;
  const info = await admin.clusterInfo();
  return info.brokers.filter((b) => b.cluster === t.cluster).map((b) => b.address);
}

/**
 * `read` on each broker address, printed mqadmin-style: a `====addr====` line (when several, or
 * with --cluster) and one line per key, sorted.
 */
async function perAddress(
  admin: Admin,
  values: { broker?: string | undefined; cluster?: string | undefined },
  read: (address: string) => Promise<Record<string, string>>,
  line: (key: string, value: string) => string,
): Promise<AdminOutput> {
  const addresses = await addressesOf(admin, values.broker, values.cluster);
  const out: Record<string, Record<string, string>> = {};
  const lines: string[] = [];
  for (const address of addresses) {
    const kv = await read(address);
    out[address] = kv;
    if (addresses.length > 1 || values.cluster !== undefined)
      lines.push(`============${address}============`);
    for (const k of Object.keys(kv).sort()) lines.push(line(k, kv[k]!));
  }
  return { json: out, lines };
}

/** `-b` one broker or `-c` every broker of a cluster (brokerStatus, getBrokerConfig). */
const ONE_OR_ALL = BROKER_OR_CLUSTER_FLAGS;
const ONE_OR_ALL_DOCS = {
  broker: ['ADDR', 'broker address host:port or broker name'],
  cluster: ['C', 'every broker of this cluster'],
} as const;

const tps = (v: ReadonlyArray<number | undefined>): string => (v[0] ?? 0).toFixed(2);

export const clusterListCommand = defineAdminCommand({
  name: 'clusterList',
  summary: 'Brokers of every cluster with version, TPS and message counts',
  description: `Sends GET_BROKER_CLUSTER_INFO to the NameServer, then GET_BROKER_RUNTIME_INFO to every broker.
TPS cells are the last 10 s; --more adds yesterday's and today's totals.`,
  flags: { more: { type: 'boolean', short: 'm' } },
  docs: { more: ['', "also print yesterday's and today's message totals"] },
  run: (admin, values) => clusterListOutput(admin, values.more === true),
});

/** clusterList's table (with `more`, yesterday's and today's totals) and JSON. */
export async function clusterListOutput(admin: Admin, more: boolean): Promise<AdminOutput> {
  const info = await admin.clusterInfo();
  const rows = [];
  for (const b of info.brokers) {
    const stats = await admin.brokerRuntimeStats(b.address).catch((err: unknown) => err as Error);
    rows.push({ ...b, stats });
  }
  const header = ['#Cluster Name', '#Broker Name', '#BID', '#Addr', '#Version', '#InTPS', '#OutTPS'];
  if (more) header.push('#InTotalYest', '#OutTotalYest', '#InTotalToday', '#OutTotalToday');
  else header.push('#InTotalToday', '#OutTotalToday', '#SPACE');
  const table = [header];
  for (const r of rows) {
    const s = r.stats;
    if (s instanceof Error) {
      table.push([r.cluster, r.brokerName, String(r.brokerId), r.address, `(${s.message})`]);
      continue;
    }
    const row = [
      r.cluster,
      r.brokerName,
      String(r.brokerId),
      r.address,
      s.version,
      tps(s.putTps),
      tps(s.getTransferredTps),
    ];
    const today = [
      String(s.msgPutTotalTodayNow - s.msgPutTotalTodayMorning),
      String(s.msgGetTotalTodayNow - s.msgGetTotalTodayMorning),
    ];
    if (more)
      row.push(
        String(s.msgPutTotalTodayMorning - s.msgPutTotalYesterdayMorning),
        String(s.msgGetTotalTodayMorning - s.msgGetTotalYesterdayMorning),
        ...today,
      );
    else
      row.push(
        ...today,
        s.commitLogDiskRatio === undefined ? '-' : `${(s.commitLogDiskRatio * 100).toFixed(2)}%`,
      );
    table.push(row);
  }
  return {
    json: rows.map((r) => ({
      ...r,
      stats: r.stats instanceof Error ? { error: r.stats.message } : r.stats,
    })),
    tables: [table],
  };
}

export const brokerStatusCommand = defineAdminCommand({
  name: 'brokerStatus',
  summary: "A broker's runtime statistics (every key, sorted)",
  description:
    'Sends GET_BROKER_RUNTIME_INFO to the broker (or to every broker of the cluster) and prints every key.',
  flags: ONE_OR_ALL,
  docs: ONE_OR_ALL_DOCS,
  run(admin, values) {
    return perAddress(
      admin,
      values,
      async (address) => (await admin.brokerRuntimeStats(address)).raw,
      (k, v) => `${k.padEnd(32)}: ${v}`,
    );
  },
});

export const getBrokerConfigCommand = defineAdminCommand({
  name: 'getBrokerConfig',
  summary: "A broker's configuration",
  description: 'Sends GET_BROKER_CONFIG to the broker (or to every broker of the cluster).',
  flags: ONE_OR_ALL,
  docs: ONE_OR_ALL_DOCS,
  run(admin, values) {
    return perAddress(
      admin,
      values,
      (address) => admin.brokerConfig(address),
      (k, v) => `${k.padEnd(50)}=  ${v}`,
    );
  },
});

export const updateBrokerConfigCommand = defineAdminCommand({
  name: 'updateBrokerConfig',
  summary: 'Change one setting of a running broker',
  description: 'Sends UPDATE_BROKER_CONFIG with key=value to the broker (or to every master of the cluster).',
  flags: {
    key: { type: 'string', short: 'k' },
    value: { type: 'string', short: 'v' },
    broker: { type: 'string', short: 'b' },
    cluster: { type: 'string', short: 'c' },
  },
  docs: {
    key: ['K', 'setting name (required)'],
    value: ['V', 'new value (required)'],
    broker: ['ADDR', 'broker address host:port or broker name'],
    cluster: ['C', 'every master of this cluster'],
  },
  async run(admin, values) {
    const key = need('key', values.key);
    const value = need('value', values.value);
    const t = target(values.broker, values.cluster);
    const addresses =
      t.brokers ??
      (await admin.clusterInfo()).brokers
        .filter((b) => b.cluster === t.cluster && b.brokerId === 0)
        .map((b) => b.address);
    for (const address of addresses) await admin.updateBrokerConfig(address, { [key]: value });
    return {
      json: { updated: addresses, key, value },
      lines: addresses.map((a) => `update broker config success, ${a}`),
    };
  },
});
