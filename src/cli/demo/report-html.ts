/**
 * The self-contained HTML report: inline CSS and inline SVG only (no scripts, fonts, images or
 * external URLs), so it can be mailed, attached to a CI run or opened offline.
 */
import { formatMs } from '../stats.js';
import type { RunResult } from './result.js';
import { FAULT_DESCRIPTIONS, FAULT_ORDER, type FaultKind } from './schedule.js';
import { escapeXml, renderChart, SERIES_COLORS, type ChartBand } from '../../charts/svg-chart.js';

export const BROKER_COLORS = SERIES_COLORS.slice(0, 7);
export const FAULT_COLORS: Readonly<Record<FaultKind, string>> = {
  slow: '#d09a00',
  busy: '#e15759',
  hung: '#8e44ad',
  killed: '#34495e',
};

const STRATEGY_NOTES: Readonly<Record<string, string>> = {
  adaptive: 'rocketmq-ts default: short, probe-driven isolation that never starves a broker',
  'java-4.9': 'Java 4.9 client latency fault tolerance (fixed isolation table)',
  'java-5': 'Java 5.x client latency fault tolerance (detector probes)',
};

/** The report stylesheet (also the chaos report's). */
export const REPORT_CSS = `
:root { color-scheme: light; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1f2933; margin: 0; background: #f5f7fa; }
main { max-width: 1060px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 2px solid #e4e7eb; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.lead { color: #52606d; margin: 0 0 12px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e4e7eb; text-align: right; white-space: nowrap; }
th { background: #f0f4f8; font-weight: 600; }
th:first-child, td:first-child { text-align: left; }
td.ok { color: #1e7d32; font-weight: 600; }
td.bad { color: #b3261e; font-weight: 700; }
td.best { background: #e3f6e8; font-weight: 600; }
.fault-chip { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.chart { display: block; margin: 6px 0 14px; max-width: 100%; height: auto; }
.chart text { font-size: 11px; fill: #3e4c59; }
.chart .chart-title { font-size: 14px; font-weight: 600; fill: #1f2933; }
.chart .axis-label { font-size: 12px; fill: #52606d; }
.chart .band-label { font-size: 11px; font-weight: 700; }
.chart .grid { stroke: #e4e7eb; stroke-width: 1; }
.chart .axis-line, .chart .tick { stroke: #7b8794; stroke-width: 1; }
.notes { color: #8a4b00; }
footer { color: #7b8794; font-size: 12px; margin-top: 32px; }
`;

function pct(x: number): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '-';
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '-' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function recoveryText(r: RunResult['recovery'][number] | undefined): string {
  if (!r) return '-';
  return r.ms === undefined ? `> ${seconds(r.observedMs)}` : seconds(r.ms);
}

function bandsOf(run: RunResult): ChartBand[] {
  return run.phases
    .filter((p) => p.kind === 'fault' && p.fault)
    .map((p) => ({
      x0: p.startMs / 1000,
      x1: p.endMs / 1000,
      label: `${p.fault} ${p.broker ?? ''}`.trim(),
      color: FAULT_COLORS[p.fault!],
    }));
}

/** Sums of `value` over a centred moving window of `k` buckets, with the window's length in ms. */
function moving(
  timeline: RunResult['timeline'],
  k: number,
  value: (b: RunResult['timeline'][number]) => number,
): Array<{ sum: number; spanMs: number }> {
  const half = Math.floor(k / 2);
  return timeline.map((_, i) => {
    let sum = 0;
    let spanMs = 0;
    for (let j = Math.max(0, i - half); j < Math.min(timeline.length, i - half + k); j++) {
      sum += value(timeline[j]!);
      spanMs += timeline[j]!.spanMs;
    }
    return { sum, spanMs };
  });
}

/** The three charts of one run. */
export function renderRunCharts(run: RunResult, width = 1000): string {
  const xMax = run.durationMs / 1000;
  const bands = bandsOf(run);
  const tl = run.timeline;
  const x = (i: number): number => (tl[i]!.tMs + tl[i]!.spanMs / 2) / 1000;
  // throughput and shares over a 1 s moving window: 250 ms buckets alone are too jumpy to read
  const k = Math.max(1, Math.round(1000 / run.bucketMs));
  const smooth = k > 1 ? ', 1 s moving window' : '';
  const acked = moving(tl, k, (b) => b.acked);
  const failed = moving(tl, k, (b) => b.failed);
  const throughput = renderChart({
    title: `Throughput — ${run.strategy}${smooth}`,
    xLabel: 'time (s)',
    yLabel: 'messages / s',
    width,
    xMax,
    bands,
    series: [
      {
        name: 'acknowledged / s',
        color: '#2f6f4f',
        points: acked.map((m, i) => [x(i), (m.sum * 1000) / m.spanMs]),
      },
      {
        name: 'failed / s',
        color: '#d64545',
        points: failed.map((m, i) => [x(i), (m.sum * 1000) / m.spanMs]),
      },
    ],
  });
  const latency = renderChart({
    title: `Send latency — ${run.strategy} (per ${run.bucketMs} ms, failed sends included, log scale)`,
    xLabel: 'time (s)',
    yLabel: 'latency (ms)',
    width,
    xMax,
    bands,
    yLog: true,
    yFormat: (v) => (v >= 1000 ? `${v / 1000}s` : String(v)),
    series: [
      { name: 'p50', color: '#4e79a7', points: tl.map((b, i) => [x(i), b.p50]) },
      { name: 'p99', color: '#e15759', points: tl.map((b, i) => [x(i), b.p99]) },
    ],
  });
  const share = renderChart({
    title: `Share of acknowledged sends per broker — ${run.strategy}${smooth}`,
    xLabel: 'time (s)',
    yLabel: 'share of traffic',
    width,
    xMax,
    bands,
    stacked: true,
    yMax: 1,
    yFormat: (v) => `${Math.round(v * 100)}%`,
    series: run.brokers.map((name, bi) => {
      const mine = moving(tl, k, (b) => b.perBroker[name] ?? 0);
      return {
        name,
        color: BROKER_COLORS[bi % BROKER_COLORS.length]!,
        // windows without any acknowledged send are left out (all series alike, so stacks align)
        points: mine.flatMap((m, i): Array<[number, number]> =>
          acked[i]!.sum > 0 ? [[x(i), m.sum / acked[i]!.sum]] : [],
        ),
      };
    }),
  });
  return [throughput, latency, share].join('\n');
}

function summaryTable(run: RunResult): string {
  const v = run.verification;
  const rows: Array<[string, string, string?]> = [
    ['sent', String(run.sent)],
    ['acknowledged', String(run.acknowledged)],
    ['failed', String(run.failed), run.failed > 0 ? 'bad' : 'ok'],
    ['not started (all in-flight slots busy)', String(run.skipped), run.skipped > 0 ? 'bad' : 'ok'],
    ['read back', v ? String(v.consumed) : 'not verified'],
    ['lost acknowledged messages', v ? String(v.lost) : '-', v ? (v.lost > 0 ? 'bad' : 'ok') : undefined],
    ['duplicates', v ? String(v.duplicates) : '-'],
    ['stored although the send failed', v ? String(v.storedButFailed) : '-'],
    ['latency p50 / p99', `${formatMs(run.p50)} / ${formatMs(run.p99)} ms`],
  ];
  const body = rows
    .map(
      ([k, val, cls]) =>
        `<tr><td>${escapeXml(k)}</td><td${cls ? ` class="${cls}"` : ''}>${escapeXml(val)}</td></tr>`,
    )
    .join('\n');
  const lost =
    v && v.lost > 0
      ? `<p class="notes">Lost msgIds: ${escapeXml(v.lostMsgIds.join(', '))}${v.lost > v.lostMsgIds.length ? ' …' : ''}</p>`
      : '';
  return `<table class="summary"><tbody>\n${body}\n</tbody></table>${lost}`;
}

function phaseTable(run: RunResult): string {
  const head = [
    'phase',
    'window (s)',
    'acked',
    'failed',
    'p50 (ms)',
    'p99 (ms)',
    ...run.brokers.map((b) => `${b} share`),
  ];
  const rows = run.phaseStats.map((s) => {
    const p = s.phase;
    const chip = p.fault
      ? `<span class="fault-chip" style="background:${FAULT_COLORS[p.fault]}"></span>`
      : '';
    const cells = [
      `${chip}${escapeXml(p.name)}`,
      `${(p.startMs / 1000).toFixed(1)}–${(p.endMs / 1000).toFixed(1)}`,
      String(s.acked),
      String(s.failed),
      formatMs(s.p50),
      formatMs(s.p99),
      ...run.brokers.map((b) => pct(s.brokers[b]?.share ?? NaN)),
    ];
    return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  });
  return `<table class="phases"><thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

function faultLegend(run: RunResult): string {
  if (!run.faultsInjected) return '';
  const items = FAULT_ORDER.filter((f) => run.phases.some((p) => p.fault === f))
    .map(
      (f) =>
        `<li><span class="fault-chip" style="background:${FAULT_COLORS[f]}"></span><b>${f}</b>: ${escapeXml(FAULT_DESCRIPTIONS[f])}; recovered in ${escapeXml(recoveryText(run.recovery.find((r) => r.fault === f)))}</li>`,
    )
    .join('\n');
  return `<ul class="fault-legend">\n${items}\n</ul>`;
}

export interface CompareRow {
  readonly label: string;
  readonly values: string[];
  /** Indices of the best values (all ties); empty when every run is equal or none is comparable. */
  readonly best: number[];
}

/** Indices of the smallest finite values, unless all values are equal. */
function bestOf(xs: readonly number[]): number[] {
  const finite = xs.map((x) => (Number.isFinite(x) ? x : Infinity));
  const m = Math.min(...finite);
  if (m === Infinity || finite.every((x) => x === m)) return [];
  return finite.flatMap((x, i) => (x === m ? [i] : []));
}

/** Side-by-side figures of several runs with the same schedule. */
export function compareRows(runs: readonly RunResult[]): CompareRow[] {
  const rows: CompareRow[] = [];
  const numeric = (label: string, values: number[], format: (x: number) => string = String): void => {
    rows.push({ label, values: values.map(format), best: bestOf(values) });
  };
  numeric(
    'failed sends',
    runs.map((r) => r.failed),
  );
  numeric(
    'sends not started (slots full)',
    runs.map((r) => r.skipped),
  );
  rows.push({
    label: 'lost acknowledged',
    values: runs.map((r) => (r.verification ? String(r.verification.lost) : '-')),
    best: [],
  });
  numeric(
    'p99 whole run (ms)',
    runs.map((r) => r.p99),
    formatMs,
  );
  for (const fault of FAULT_ORDER) {
    const values = runs.map((r) => r.phaseStats.find((s) => s.phase.fault === fault)?.p99 ?? NaN);
    if (values.every((x) => Number.isNaN(x))) continue;
    numeric(`p99 during ${fault} (ms)`, values, formatMs);
  }
  for (const fault of FAULT_ORDER) {
    const recs = runs.map((r) => r.recovery.find((x) => x.fault === fault));
    if (recs.every((x) => x === undefined)) continue;
    rows.push({
      label: `traffic back after ${fault}`,
      values: recs.map(recoveryText),
      best: bestOf(recs.map((x) => x?.ms ?? Infinity)),
    });
  }
  if (runs.some((r) => r.faultsInjected)) {
    numeric(
      'healthy broker starved after faults (s)',
      runs.map((r) => r.starvedMs / 1000),
      (x) => x.toFixed(1),
    );
    numeric(
      'peak share of another broker after faults',
      runs.map((r) => r.peakOtherShare),
      pct,
    );
  }
  return rows;
}

function compareTable(runs: readonly RunResult[]): string {
  const head = `<tr><th>figure</th>${runs.map((r) => `<th>${escapeXml(r.strategy)}</th>`).join('')}</tr>`;
  const body = compareRows(runs)
    .map(
      (row) =>
        `<tr><td>${escapeXml(row.label)}</td>${row.values
          .map((v, i) => `<td${row.best.includes(i) ? ' class="best"' : ''}>${escapeXml(v)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  return `<table class="compare"><thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
}

/** The complete HTML document for one or more runs. */
export function renderReport(runs: readonly RunResult[], generatedAt = new Date()): string {
  const first = runs[0];
  if (!first) throw new RangeError('renderReport needs at least one run');
  const title =
    runs.length > 1
      ? 'rocketmq-ts fault tolerance: strategies compared'
      : `rocketmq-ts fault tolerance run (${first.strategy})`;
  const parts: string[] = [];
  parts.push('<!DOCTYPE html>');
  parts.push('<html lang="en">');
  parts.push('<head>');
  parts.push('<meta charset="utf-8"/>');
  parts.push('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
  parts.push(`<title>${escapeXml(title)}</title>`);
  parts.push(`<style>${REPORT_CSS}</style>`);
  parts.push('</head>');
  parts.push('<body><main>');
  parts.push(`<h1>${escapeXml(title)}</h1>`);
  const target = first.targetBroker ? ` Faults hit <b>${escapeXml(first.targetBroker)}</b>.` : '';
  parts.push(
    `<p class="lead">${first.brokers.length} brokers, ${first.ratePerSec} msgs/s for ${(first.durationMs / 1000).toFixed(0)} s, topic <code>${escapeXml(first.topic)}</code>.${target} Shaded bands are the fault windows.</p>`,
  );
  if (runs.length > 1) {
    parts.push('<h2>Side by side</h2>');
    parts.push(
      '<p class="lead">Same cluster size, rate and fault schedule; a fresh cluster for each strategy. "Traffic back" is the time from the end of a fault until the broker again receives at least half of its fair share; "starved" adds up the time after the faults (recovery phases) during which the repaired broker got less than that, while the others carried its load; "peak share" is the highest share one other broker carried over a second in those phases (fair share: 1/brokers). Green marks the best value of a row.</p>',
    );
    parts.push(compareTable(runs));
  }
  for (const run of runs) {
    parts.push(`<section class="run" data-strategy="${escapeXml(run.strategy)}">`);
    parts.push(`<h2>Strategy ${escapeXml(run.strategy)}</h2>`);
    const note = STRATEGY_NOTES[run.strategy];
    if (note) parts.push(`<p class="lead">${escapeXml(note)}</p>`);
    for (const n of run.notes) parts.push(`<p class="notes">${escapeXml(n)}</p>`);
    parts.push(faultLegend(run));
    parts.push(renderRunCharts(run));
    parts.push('<h3>Summary</h3>');
    parts.push(summaryTable(run));
    parts.push('<h3>Per phase</h3>');
    parts.push(phaseTable(run));
    parts.push('</section>');
  }
  parts.push(`<footer>Generated by rocketmq-ts demo on ${escapeXml(generatedAt.toISOString())}.</footer>`);
  parts.push('</main></body></html>');
  return parts.join('\n');
}
