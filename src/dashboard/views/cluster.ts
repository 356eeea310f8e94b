/**
 * The cluster page: every broker address with its role, version, TPS in/out (live, with a
 * chart), today's message counts and commit-log disk use. A broker that does not answer is shown
 * as unavailable; one that was seen before and has left the NameServer as unregistered.
 */
import type { BrokerAddressInfo, BrokerRuntimeStats } from '../../admin/types.js';
import { errorText, esc, num, table, type Column } from '../html.js';
import { History, type Fragments, type LiveView } from '../live.js';
import { historyChart, type ViewContext } from './context.js';

export interface BrokerRow {
  info: BrokerAddressInfo;
  stats?: BrokerRuntimeStats;
  /** Why there are no stats: the broker did not answer, or it left the NameServer. */
  down?: string;
}

const COLUMNS: Column[] = [
  { label: 'Broker' },
  { label: 'Cluster' },
  { label: 'Role' },
  { label: 'Address' },
  { label: 'Version' },
  { label: 'TPS in', num: true },
  { label: 'TPS out', num: true },
  { label: 'Put today', num: true },
  { label: 'Got today', num: true },
  { label: 'Disk used', num: true },
];

export class ClusterView implements LiveView {
  private readonly seen = new Map<string, BrokerAddressInfo>();
  readonly history: History;

  constructor(private readonly ctx: ViewContext) {
    this.history = new History(ctx.historyPoints);
  }

  /** One GET_BROKER_CLUSTER_INFO, then one GET_BROKER_RUNTIME_INFO per broker address. */
  async load(): Promise<BrokerRow[]> {
    const info = await this.ctx.admin.clusterInfo();
    const rows = await Promise.all(
      info.brokers.map(async (b): Promise<BrokerRow> => {
        try {
          return { info: b, stats: await this.ctx.admin.brokerRuntimeStats(b.address) };
        } catch (err) {
          return { info: b, down: `unavailable: ${errorText(err)}` };
        }
      }),
    );
    const now = new Set(info.brokers.map((b) => b.address));
    for (const [address, b] of this.seen)
      if (!now.has(address)) rows.push({ info: b, down: 'unregistered from the NameServer (down?)' });
    for (const b of info.brokers) this.seen.set(b.address, b);
    const t = Date.now();
    for (const r of rows) {
      const name = seriesName(r.info);
      this.history.add(`${name} in`, r.stats?.putTps[0] ?? NaN, t);
      this.history.add(`${name} out`, r.stats?.getTransferredTps[0] ?? NaN, t);
    }
    return rows;
  }

  async poll(): Promise<Fragments> {
    return this.fragments(await this.load());
  }

  fragments(rows: readonly BrokerRow[]): Fragments {
    return { brokers: brokersTable(rows), 'tps-chart': this.chart(rows) };
  }

  private chart(rows: readonly BrokerRow[]): string {
    const names = rows.flatMap((r) => [`${seriesName(r.info)} in`, `${seriesName(r.info)} out`]);
    return historyChart('Messages per second, in and out, per broker', 'msgs/s', this.history, names);
  }
}

function seriesName(b: BrokerAddressInfo): string {
  return b.brokerId === 0 ? b.brokerName : `${b.brokerName}#${b.brokerId}`;
}

function brokersTable(rows: readonly BrokerRow[]): string {
  const cells = rows.map((r) => {
    const b = r.info;
    const head = [
      esc(b.brokerName),
      esc(b.cluster),
      b.brokerId === 0 ? 'master' : `slave ${b.brokerId}`,
      esc(b.address),
    ];
    const s = r.stats;
    if (!s) return [...head, `<span class="down">${esc(r.down ?? 'unavailable')}</span>`, '', '', '', '', ''];
    const ratio = s.commitLogDiskRatio;
    return [
      ...head,
      esc(s.version),
      num(s.putTps[0] ?? 0, 2),
      num(s.getTransferredTps[0] ?? 0, 2),
      num(s.msgPutTotalTodayNow - s.msgPutTotalTodayMorning),
      num(s.msgGetTotalTodayNow - s.msgGetTotalTodayMorning),
      ratio === undefined
        ? '–'
        : `<meter min="0" max="1" value="${ratio}" aria-hidden="true"></meter> ${num(ratio * 100, 1)} %`,
    ];
  });
  return table(
    'Brokers',
    COLUMNS,
    cells,
    rows.map((r) => r.info.address),
  );
}

export async function clusterPage(ctx: ViewContext): Promise<string> {
  const view = ctx.hub.view('cluster', () => new ClusterView(ctx));
  const rows = await view.load();
  const f = view.fragments(rows);
  const down = rows.filter((r) => !r.stats).length;
  return `<p class="lead">${rows.length} broker address(es)${down ? `, <strong class="down">${down} down</strong>` : ''}. TPS is the broker's last-10-second rate.</p>
<section aria-labelledby="h-brokers"><h2 id="h-brokers">Brokers</h2><div id="brokers">${f['brokers']}</div></section>
<section aria-labelledby="h-tps"><h2 id="h-tps">Throughput</h2><div id="tps-chart" class="chart-box">${f['tps-chart']}</div></section>`;
}
