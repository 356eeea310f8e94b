/** Test helpers: a scrape's text parsed into samples, and promtool's verdict on it. */
import { spawnSync } from 'node:child_process';

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a 0.0.4 text (comments skipped; label values unescaped). */
export function parseExposition(text: string): ParsedSample[] {
  const out: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** Samples of `name` whose labels include every one of `match`. */
export function samples(text: string, name: string, match: Record<string, string> = {}): ParsedSample[] {
  return parseExposition(text).filter(
    (s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v),
  );
}

/**
 * Lint findings promtool reports on rocketmq-exporter's own names, which we keep for dashboards
 * and alert rules written against it (docs/observability.md §3).
 */
const EXPORTER_NAME_LINTS = [
  /label names should be written in 'snake_case' not 'camelCase'$/,
  /^rocketmq_group_count non-histogram and non-summary metrics should not have "_count" suffix$/,
];

/** undefined when promtool is not on PATH; else its problems other than the accepted lints. */
export function promtoolProblems(text: string): string[] | undefined {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error) return undefined;
  const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
  // exit 0: clean; 3: lint findings only; anything else: the text did not parse
  if (r.status !== 0 && r.status !== 3) return [`promtool exited ${r.status}`, ...lines];
  return lines.filter((l) => !EXPORTER_NAME_LINTS.some((re) => re.test(l.trim())));
}
