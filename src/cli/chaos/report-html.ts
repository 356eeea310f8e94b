/**
 * The chaos run's HTML report, built from the demo report's pieces (stylesheet, SVG charts):
 * the faults over time, throughput and consumer lag with the fault windows shaded, the
 * invariants, duplicates by cause, memory, and the event log to replay from.
 */
import { REPORT_CSS } from '../demo/report-html.js';
import { escapeXml, renderChart, type ChartBand } from '../../charts/svg-chart.js';
import type { ChaosResult } from './run.js';
import { CHAOS_FAULT_DESCRIPTIONS, type ChaosFaultKind } from './schedule.js';
import { mib } from './verify.js';

export const CHAOS_FAULT_COLORS: Readonly<Record<ChaosFaultKind, string>> = Object.freeze({
  'broker-kill': '#34495e',
  'broker-pause': '#5d6d7e',
  'broker-latency': '#d09a00',
  'broker-drop': '#e67e22',
  'broker-hang': '#8e44ad',
  'broker-error': '#e15759',
  'broker-disk-full': '#9c755f',
  'namesrv-restart': '#17a2b8',
  'consumer-kill': '#59a14f',
});

const GROUP_COLORS = ['#4e79a7', '#b07aa1', '#76b7b2'];

function row(cells: readonly string[], cls: readonly (string | undefined)[] = []): string {
  return `<tr>${cells.map((c, i) => `<td${cls[i] ? ` class="${cls[i]}"` : ''}>${c}</td>`).join('')}</tr>`;
}

function table(head: readonly string[], rows: readonly string[]): string {
  return `<table><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>${rows.join('')}</table>`;
}

export function renderChaosReport(r: ChaosResult, generatedAt = new Date()): string {
  const v = r.verification;
  const ok = v.violations.length === 0;
  const xMax = Math.max(r.durationMs, r.samples[r.samples.length - 1]?.tMs ?? 0) / 1000;
  // consumer kills overlap the cluster faults: only the cluster lane is shaded
  const bands: ChartBand[] = r.faults
    .filter((f) => f.kind !== 'consumer-kill')
    .map((f) => ({
      x0: f.startMs / 1000,
      x1: f.endMs / 1000,
      label: f.kind.replace(/^broker-/, ''),
      color: CHAOS_FAULT_COLORS[f.kind],
    }));
  const perSecond = (pick: (s: ChaosResult['samples'][number]) => number): Array<[number, number]> =>
    r.samples.slice(1).map((s, i) => {
      const prev = r.samples[i]!;
      return [s.tMs / 1000, ((pick(s) - pick(prev)) * 1000) / Math.max(1, s.tMs - prev.tMs)];
    });
  const throughput = renderChart({
    title: 'Throughput (shaded: cluster faults)',
    xLabel: 'time (s)',
    yLabel: 'messages / s',
    xMax,
    bands,
    series: [
      { name: 'acknowledged / s', color: '#2f6f4f', points: perSecond((s) => s.acked) },
      { name: 'failed / s', color: '#d64545', points: perSecond((s) => s.failed) },
      ...r.groupNames.map((name, gi) => ({
        name: `${name}: consumed / s`,
        color: GROUP_COLORS[gi % GROUP_COLORS.length]!,
        points: perSecond((s) => s.consumed[gi] ?? 0),
      })),
    ],
  });
  const lag = renderChart({
    title: 'Consumer lag: acknowledged, not yet consumed',
    xLabel: 'time (s)',
    yLabel: 'messages',
    xMax,
    bands,
    series: r.groupNames.map((name, gi) => ({
      name,
      color: GROUP_COLORS[gi % GROUP_COLORS.length]!,
      points: r.samples.map((s): [number, number] => [
        s.tMs / 1000,
        Math.max(0, s.acked - (s.consumed[gi] ?? 0)),
      ]),
    })),
  });

  const invariants = table(
    ['invariant', 'result'],
    [
      ...v.groups.map((g) =>
        row(
          [`${escapeXml(g.name)}: every acknowledged message consumed`, `${g.lost} lost`],
          [undefined, g.lost ? 'bad' : 'ok'],
        ),
      ),
      ...v.groups.map((g) =>
        row(
          [`${escapeXml(g.name)}: read from the acknowledged queue offset`, `${g.misplaced} not`],
          [undefined, g.misplaced ? 'bad' : 'ok'],
        ),
      ),
      ...v.groups.map((g) =>
        row(
          [`${escapeXml(g.name)}: byte-identical`, `${g.corrupted} differ`],
          [undefined, g.corrupted ? 'bad' : 'ok'],
        ),
      ),
      ...v.groups
        .filter((g) => g.orderly)
        .map((g) =>
          row(
            [
              `${escapeXml(g.name)}: each queue in order`,
              `${g.orderViolations.length} breaks, ${g.orderlyRewinds} rewinds`,
            ],
            [undefined, g.orderViolations.length ? 'bad' : 'ok'],
          ),
        ),
      row(
        [
          'every send settled within its timeout',
          `${v.sendsOverTimeout} late, ${v.unsettled} unsettled, slowest ${v.maxSendMs} ms (allowed ${v.settleLimitMs} ms)`,
        ],
        [undefined, v.sendsOverTimeout + v.unsettled ? 'bad' : 'ok'],
      ),
      row(
        ['no process exited by itself', `${v.crashes.length} did`],
        [undefined, v.crashes.length ? 'bad' : 'ok'],
      ),
      row(
        [
          `every process under ${r.memoryBoundMiB} MiB`,
          `peak ${mib(Math.max(0, ...r.memory.map((m) => m.peakBytes)))} MiB`,
        ],
        [undefined, r.memory.some((m) => m.peakBytes > r.memoryBoundMiB * 1048576) ? 'bad' : 'ok'],
      ),
    ],
  );
  const causes = new Set(v.groups.flatMap((g) => Object.keys(g.duplicateCauses)));
  const duplicates = table(
    ['duplicate cause', ...v.groups.map((g) => g.name)],
    [...causes].map((c) =>
      row([
        escapeXml(c),
        ...v.groups.map((g) => String(g.duplicateCauses[c as keyof typeof g.duplicateCauses] ?? 0)),
      ]),
    ),
  );
  const faults = table(
    ['#', 'fault', 'target', 'from s', 'to s', 'what'],
    r.faults.map((f) =>
      row([
        String(f.id),
        `<span class="fault-chip" style="background:${CHAOS_FAULT_COLORS[f.kind]}"></span>${escapeXml(f.kind)}`,
        escapeXml(f.target),
        (f.startMs / 1000).toFixed(1),
        (f.endMs / 1000).toFixed(1),
        escapeXml(CHAOS_FAULT_DESCRIPTIONS[f.kind]),
      ]),
    ),
  );
  const memory = table(
    ['process', 'peak RSS MiB'],
    r.memory.map((m) => row([escapeXml(m.name), String(mib(m.peakBytes))])),
  );
  const title = `rocketmq-ts chaos run, seed ${r.seed}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"/>',
    '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
    `<title>${escapeXml(title)}</title><style>${REPORT_CSS}</style></head>`,
    '<body><main>',
    `<h1>${escapeXml(title)}</h1>`,
    `<p class="lead">${r.cluster} cluster (${escapeXml(r.brokers.join(', '))}), ${r.ratePerSec} msgs/s for ${(r.durationMs / 60_000).toFixed(2)} min, ${r.faults.length} faults, ${v.acknowledged} acknowledged and ${v.failed} failed sends. ${ok ? '<b>All invariants hold.</b>' : `<b class="notes">${v.violations.length} invariant violations.</b>`} Replay with <code>npm run chaos -- --seed ${r.seed}</code>.</p>`,
    ...v.violations.map((x) => `<p class="notes">${escapeXml(x)}</p>`),
    '<h2>Invariants</h2>',
    invariants,
    '<h2>Throughput and lag</h2>',
    throughput,
    lag,
    '<h2>Duplicates by cause</h2>',
    duplicates,
    ...(r.sendErrors.length > 0
      ? [
          '<h2>Failed sends</h2>',
          table(
            ['count', 'error'],
            r.sendErrors.map((e) => row([String(e.count), escapeXml(e.message)])),
          ),
        ]
      : []),
    '<h2>Faults</h2>',
    faults,
    '<h2>Memory</h2>',
    memory,
    '<h2>Event log</h2>',
    `<pre>${escapeXml(r.events.map((e) => `${(e.atMs / 1000).toFixed(1).padStart(7)} s  ${e.text}`).join('\n'))}</pre>`,
    `<footer>Generated by rocketmq-ts chaos on ${escapeXml(generatedAt.toISOString())}.</footer>`,
    '</main></body></html>',
  ].join('\n');
}
