/**
 * The metrics page: what `GET /metrics` serves (the same ClusterCollector), live: broker TPS/QPS
 * and each group's diff charted, the latest figures in tables, and the scrape errors so far.
 */
import type { ClusterCollector } from '../../exporter/collector.js';
import type { MetricFamily } from '../../exporter/exposition.js';
import { esc, num, table, type Column } from '../html.js';
import { History, type Fragments, type LiveView } from '../live.js';
import { historyChart, type ViewContext } from './context.js';

const BROKER_COLUMNS: Column[] = [
  { label: 'Broker' },
  { label: 'Cluster' },
  { label: 'brokerIP' },
  { label: 'TPS (rocketmq_broker_tps)', num: true },
  { label: 'QPS (rocketmq_broker_qps)', num: true },
];
const DIFF_COLUMNS: Column[] = [
  { label: 'Group' },
  { label: 'Topic' },
  { label: 'Online consumers', num: true },
  { label: 'Diff (rocketmq_group_diff)', num: true },
];
const ERROR_COLUMNS: Column[] = [{ label: 'Broker' }, { label: 'Stage' }, { label: 'Errors', num: true }];

function family(families: readonly MetricFamily[], name: string): MetricFamily['samples'] {
  return families.find((f) => f.name === name)?.samples ?? [];
}

export class MetricsView implements LiveView {
  readonly history: History;

  constructor(
    ctx: ViewContext,
    private readonly collector: ClusterCollector,
  ) {
    this.history = new History(ctx.historyPoints);
  }

  /** One scrape of the collector, recorded in the chart history. */
  async load(): Promise<MetricFamily[]> {
    const families = await this.collector.collect();
    const t = Date.now();
    for (const s of family(families, 'rocketmq_broker_tps'))
      this.history.add(`${s.labels['broker']} tps`, s.value, t);
    for (const s of family(families, 'rocketmq_broker_qps'))
      this.history.add(`${s.labels['broker']} qps`, s.value, t);
    for (const s of family(families, 'rocketmq_group_diff'))
      this.history.add(`${s.labels['group']} / ${s.labels['topic']}`, s.value, t);
    return families;
  }

  async poll(): Promise<Fragments> {
    return this.fragments(await this.load());
  }

  fragments(families: readonly MetricFamily[]): Fragments {
    const tps = family(families, 'rocketmq_broker_tps');
    const qps = new Map(family(families, 'rocketmq_broker_qps').map((s) => [s.labels['broker'], s.value]));
    const brokers = table(
      'Brokers',
      BROKER_COLUMNS,
      tps.map((s) => [
        esc(s.labels['broker'] ?? ''),
        esc(s.labels['cluster'] ?? ''),
        esc(s.labels['brokerIP'] ?? ''),
        num(s.value, 2),
        num(qps.get(s.labels['broker']) ?? 0, 2),
      ]),
      tps.map((s) => s.labels['broker'] ?? ''),
    );
    const diffs = family(families, 'rocketmq_group_diff');
    const groups = table(
      'Group diff',
      DIFF_COLUMNS,
      diffs.map((s) => [
        esc(s.labels['group'] ?? ''),
        esc(s.labels['topic'] ?? ''),
        esc(s.labels['countOfOnlineConsumers'] ?? ''),
        num(s.value),
      ]),
      diffs.map((s) => `${s.labels['group']}@${s.labels['topic']}`),
    );
    const errorRows = family(families, 'rocketmq_exporter_scrape_errors_total');
    const errors = table(
      'Scrape errors',
      ERROR_COLUMNS,
      errorRows.map((s) => [esc(s.labels['broker'] || '(none)'), esc(s.labels['stage'] ?? ''), num(s.value)]),
      errorRows.map((s) => `${s.labels['broker']}/${s.labels['stage']}`),
    );
    const brokerSeries = tps.flatMap((s) => [`${s.labels['broker']} tps`, `${s.labels['broker']} qps`]);
    const diffSeries = diffs.map((s) => `${s.labels['group']} / ${s.labels['topic']}`);
    return {
      'metrics-brokers': brokers,
      'metrics-broker-chart': historyChart(
        'Broker TPS and QPS (1 min)',
        'msgs/s',
        this.history,
        brokerSeries,
      ),
      'metrics-groups': groups,
      'metrics-diff-chart': historyChart(
        'Group diff per group and topic',
        'messages',
        this.history,
        diffSeries,
      ),
      'metrics-errors': errors,
    };
  }
}

export async function metricsPage(ctx: ViewContext, collector: ClusterCollector): Promise<string> {
  const view = ctx.hub.view('metrics', () => new MetricsView(ctx, collector));
  const f = view.fragments(await view.load());
  return `<p class="lead">What <a href="/metrics">/metrics</a> serves to Prometheus (rocketmq-exporter's names), live.</p>
<section aria-labelledby="h-mbrokers"><h2 id="h-mbrokers">Brokers</h2><div id="metrics-brokers">${f['metrics-brokers']}</div>
<div id="metrics-broker-chart" class="chart-box">${f['metrics-broker-chart']}</div></section>
<section aria-labelledby="h-mgroups"><h2 id="h-mgroups">Consumer group diff</h2><div id="metrics-groups">${f['metrics-groups']}</div>
<div id="metrics-diff-chart" class="chart-box">${f['metrics-diff-chart']}</div></section>
<section aria-labelledby="h-merrors"><h2 id="h-merrors">Scrape errors</h2><div id="metrics-errors">${f['metrics-errors']}</div></section>`;
}
