/**
 * Producer health, for producers of this process (the demo's): each broker's state in the
 * producer's latency fault strategy (live) and the isolation events as a timeline (shaded
 * windows over the latency chart) and a table.
 */
import { renderChart, SERIES_COLORS, type ChartBand } from '../../charts/svg-chart.js';
import { esc, num, table, time } from '../html.js';
import { History, type Fragments, type LiveView } from '../live.js';
import type { IsolationEvent } from '../producer-watch.js';
import type { ViewContext } from './context.js';

/** Events listed in the table (newest first). */
const EVENTS_LISTED = 50;

export class ProducersView implements LiveView {
  readonly history: History;

  constructor(private readonly ctx: ViewContext) {
    this.history = new History(ctx.historyPoints);
  }

  /** No admin request: reads the producers' own state. */
  poll(): Promise<Fragments> {
    return Promise.resolve(this.fragments());
  }

  fragments(): Fragments {
    const health = this.ctx.producers.health();
    const at = Date.now();
    for (const p of health)
      for (const b of p.brokers) this.history.add(`${p.label} ${b.brokerName}`, b.latencyMs, at);
    if (health.length === 0)
      return {
        health:
          '<p class="empty">No producer of this process is watched. Run the demo with <code>npm start -- --dashboard</code>, or call <code>dashboard.producers.watch(producer, label)</code>.</p>',
        timeline: '',
      };
    const states = health
      .map((p) =>
        table(
          `Producer ${p.label}`,
          [
            { label: 'Broker' },
            { label: 'State' },
            { label: 'Isolated until' },
            { label: 'Latency (ms)', num: true },
            { label: 'Failures', num: true },
            { label: 'Traffic share', num: true },
          ],
          p.brokers.map((b) => [
            esc(b.brokerName),
            b.isolated ? '<span class="down">isolated</span>' : 'available',
            b.isolated && b.isolatedUntil ? time(b.isolatedUntil) : '–',
            num(b.latencyMs, 1),
            String(b.failures),
            b.share === undefined ? '–' : `${num(b.share * 100, 0)} %`,
          ]),
          p.brokers.map((b) => `${p.label}/${b.brokerName}`),
        ),
      )
      .join('');
    return { health: states, timeline: this.timeline() };
  }

  private timeline(): string {
    const events = this.ctx.producers.events;
    const names = this.history.names();
    const chart = renderChart({
      title: 'Send latency per broker, isolation windows shaded',
      xLabel: 'seconds',
      yLabel: 'ms',
      width: 900,
      height: 240,
      series: names.map((name, i) => ({
        name,
        color: SERIES_COLORS[i % SERIES_COLORS.length]!,
        points: this.history.shifted(name),
      })),
      bands: isolationWindows(events, Date.now()).map((w): ChartBand => ({
        x0: Math.max(0, this.history.xOf(w.from)),
        x1: Math.max(0, this.history.xOf(w.to)),
        label: `${w.brokerName} isolated`,
        color: '#e15759',
      })),
    });
    const list = table(
      `Isolation events (latest ${EVENTS_LISTED})`,
      [
        { label: 'Time' },
        { label: 'Producer' },
        { label: 'Broker' },
        { label: 'Event' },
        { label: 'Reason' },
      ],
      events
        .slice(-EVENTS_LISTED)
        .reverse()
        .map((e) => [time(e.at), esc(e.producer), esc(e.brokerName), e.kind, esc(e.reason ?? '')]),
    );
    return chart + list;
  }
}

/** [isolated, recovered) intervals per producer and broker; an open one ends now. */
export function isolationWindows(
  events: readonly IsolationEvent[],
  now: number,
): Array<{ brokerName: string; from: number; to: number }> {
  const open = new Map<string, IsolationEvent>();
  const out: Array<{ brokerName: string; from: number; to: number }> = [];
  for (const e of events) {
    const k = `${e.producer}\u0000${e.brokerName}`;
    if (e.kind === 'isolated') {
      if (!open.has(k)) open.set(k, e);
    } else {
      const start = open.get(k);
      if (start) out.push({ brokerName: e.brokerName, from: start.at, to: e.at });
      open.delete(k);
    }
  }
  for (const e of open.values()) out.push({ brokerName: e.brokerName, from: e.at, to: now });
  return out.sort((a, b) => a.from - b.from);
}

export function producersPage(ctx: ViewContext): string {
  const view = ctx.hub.view('producers', () => new ProducersView(ctx));
  const f = view.fragments();
  return `<p class="lead">Producers in this process, as their latency fault strategy sees the brokers.</p>
<section aria-labelledby="h-health"><h2 id="h-health">Broker states</h2><div id="health">${f['health']}</div></section>
<section aria-labelledby="h-timeline"><h2 id="h-timeline">Isolation timeline</h2><div id="timeline" class="chart-box">${f['timeline']}</div></section>`;
}
