/**
 * Terminal output of the demo: a live panel redrawn in place on a TTY, one plain line per second
 * otherwise (CI logs), and the final text summary.
 */
import { formatMs } from '../stats.js';
import { compareRows } from './report-html.js';
import type { RunResult } from './result.js';
import { FAULT_DESCRIPTIONS } from './schedule.js';
import type { LiveView } from './run.js';

const ESC = '\x1b[';
const color = {
  red: (s: string) => `${ESC}31m${s}${ESC}0m`,
  green: (s: string) => `${ESC}32m${s}${ESC}0m`,
  yellow: (s: string) => `${ESC}33m${s}${ESC}0m`,
  bold: (s: string) => `${ESC}1m${s}${ESC}0m`,
  dim: (s: string) => `${ESC}2m${s}${ESC}0m`,
};
const plain = { red: id, green: id, yellow: id, bold: id, dim: id };
function id(s: string): string {
  return s;
}

export function progressBar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.floor(f * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

function phaseText(view: LiveView): string {
  const p = view.phase;
  if (p.kind === 'fault' && p.fault)
    return `FAULT ${p.fault} on ${p.broker} (${FAULT_DESCRIPTIONS[p.fault]})`;
  return p.name;
}

/** The live panel as lines (no cursor movement). */
export function renderPanel(view: LiveView, useColor: boolean): string[] {
  const c = useColor ? color : plain;
  const lines: string[] = [];
  const frac = view.elapsedMs / view.durationMs;
  lines.push(
    `${c.bold('rocketmq-ts demo')}  strategy ${c.bold(view.strategy)}  ${view.brokers.length} brokers  ${view.ratePerSec} msgs/s`,
  );
  const phase = view.phase.kind === 'fault' ? c.red(phaseText(view)) : c.green(phaseText(view));
  lines.push(
    `[${progressBar(frac, 32)}] ${(view.elapsedMs / 1000).toFixed(1).padStart(5)} / ${(view.durationMs / 1000).toFixed(0)} s  ${phase}`,
  );
  lines.push(
    c.dim(
      `${'broker'.padEnd(12)}${'sends/s'.padStart(9)}${'p99 ms'.padStart(9)}${'share'.padStart(8)}  state`,
    ),
  );
  for (const b of view.brokers) {
    const state = b.isolated
      ? c.red(
          `ISOLATED${b.isolatedForMs !== undefined ? ` (${(b.isolatedForMs / 1000).toFixed(1)} s left)` : ''}`,
        )
      : c.green('ok');
    lines.push(
      `${b.name.padEnd(12)}${b.sendsPerSec.toFixed(0).padStart(9)}${formatMs(b.p99).padStart(9)}${`${(b.share * 100).toFixed(0)}%`.padStart(8)}  ${state}`,
    );
  }
  const failed = view.failed > 0 ? c.red(String(view.failed)) : '0';
  const skipped = view.skipped > 0 ? c.yellow(String(view.skipped)) : '0';
  lines.push(`acked ${view.acked}  failed ${failed}  in flight ${view.inFlight}  not started ${skipped}`);
  return lines;
}

/** One line for logs. */
export function renderLine(view: LiveView): string {
  const brokers = view.brokers
    .map(
      (b) =>
        `${b.name} ${b.sendsPerSec.toFixed(0)}/s p99 ${formatMs(b.p99)} ${(b.share * 100).toFixed(0)}%${b.isolated ? ' ISOLATED' : ''}`,
    )
    .join(' | ');
  return `[${(view.elapsedMs / 1000).toFixed(1).padStart(5)}s ${view.phase.name.padEnd(20)}] acked ${view.acked} failed ${view.failed} | ${brokers}`;
}

/** Writes the live view: redraws in place on a TTY (~4/s), else one line per second. */
export class LiveDisplay {
  private drawnLines = 0;
  private lastLineAt = -Infinity;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly tty: boolean,
  ) {}

  update(view: LiveView): void {
    if (this.tty) {
      const lines = renderPanel(view, true);
      let s = '';
      if (this.drawnLines > 0) s += `${ESC}${this.drawnLines}A`;
      for (const line of lines) s += `${ESC}2K${line}\n`;
      this.out.write(s);
      this.drawnLines = lines.length;
    } else if (view.elapsedMs - this.lastLineAt >= 1000 || view.elapsedMs >= view.durationMs) {
      this.lastLineAt = view.elapsedMs;
      this.out.write(`${renderLine(view)}\n`);
    }
  }

  /** Leaves the last panel on screen; the next output starts below it. */
  done(): void {
    this.drawnLines = 0;
    this.lastLineAt = -Infinity;
  }
}

function table(rows: string[][], rightAlignFrom = 1): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) =>
    r.map((cell, i) => (i < rightAlignFrom ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
  );
}

/** The end-of-run summary. */
export function renderSummary(run: RunResult, useColor: boolean): string {
  const c = useColor ? color : plain;
  const v = run.verification;
  const lines: string[] = [];
  lines.push('', c.bold(`Summary (${run.strategy})`));
  lines.push(
    `sent ${run.sent}, acknowledged ${run.acknowledged}, failed ${run.failed}` +
      (run.skipped > 0 ? `, not started ${run.skipped} (all ${'in-flight'} slots busy)` : ''),
  );
  if (v) {
    const lost =
      v.lost === 0 ? c.green('0 lost acknowledged messages') : c.red(`${v.lost} LOST acknowledged messages`);
    lines.push(
      `consumed ${v.consumed} (${v.distinct} distinct): ${lost}, ${v.duplicates} duplicates, ${v.storedButFailed} stored although the send failed`,
    );
    for (const [cause, n] of Object.entries(v.duplicateCauses ?? {}))
      if (n > 0) lines.push(`  ${String(n).padStart(6)} duplicates: ${cause}`);
    if (v.lost > 0) lines.push(c.red(`lost msgIds: ${v.lostMsgIds.join(' ')}`));
  }
  lines.push(`latency p50 ${formatMs(run.p50)} ms, p99 ${formatMs(run.p99)} ms`);
  for (const n of run.notes) lines.push(c.yellow(n));
  if (run.errors.length > 0) {
    lines.push('send errors:');
    for (const e of run.errors) lines.push(`  ${String(e.count).padStart(6)} × ${e.message}`);
  }
  lines.push('');
  const head = [
    'phase',
    'window s',
    'acked',
    'failed',
    'p50 ms',
    'p99 ms',
    ...run.brokers.map((b) => `${b} %`),
  ];
  const rows = run.phaseStats.map((s) => [
    s.phase.name,
    `${(s.phase.startMs / 1000).toFixed(1)}-${(s.phase.endMs / 1000).toFixed(1)}`,
    String(s.acked),
    String(s.failed),
    formatMs(s.p50),
    formatMs(s.p99),
    ...run.brokers.map((b) => ((s.brokers[b]?.share ?? 0) * 100).toFixed(1)),
  ]);
  lines.push(...table([head, ...rows]));
  if (run.recovery.length > 0) {
    lines.push('');
    lines.push(
      `after the faults ${run.targetBroker} was starved (< 50% of its fair share) for ${(run.starvedMs / 1000).toFixed(1)} s; ` +
        `another broker carried up to ${(run.peakOtherShare * 100).toFixed(0)}% of the traffic`,
    );
    lines.push(
      `traffic back to ${run.targetBroker} (>= 50% of its fair share) after: ` +
        run.recovery
          .map(
            (r) =>
              `${r.fault} ${r.ms === undefined ? `> ${(r.observedMs / 1000).toFixed(1)} s` : `${(r.ms / 1000).toFixed(2)} s`}`,
          )
          .join(', '),
    );
  }
  return lines.join('\n');
}

/** The --compare table. */
export function renderComparison(runs: readonly RunResult[]): string {
  const head = ['', ...runs.map((r) => r.strategy)];
  const rows = compareRows(runs).map((r) => [
    r.label,
    ...r.values.map((v, i) => (r.best.includes(i) ? `*${v}` : v)),
  ]);
  return ['', 'Strategies side by side (* = best):', ...table([head, ...rows])].join('\n');
}
