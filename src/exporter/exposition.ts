/**
 * The Prometheus text exposition format 0.0.4 (what `/metrics` answers): per family one `# HELP`
 * and one `# TYPE` line, then its samples. Families sorted by name, samples by their label text,
 * so two scrapes of the same figures are byte for byte the same (diffable, fixture-testable).
 */

/** The content type of a 0.0.4 scrape answer. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'gauge' | 'counter';

export interface MetricSample {
  /** Label name → value, in the order the family's label names list them. */
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  /** Label names every sample carries, in output order. */
  labelNames: readonly string[];
  samples: MetricSample[];
}

import { InvalidArgumentError } from '../errors.js';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value as the format quotes it: `\`, `"` and newline escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: only `\` and newline are escaped there. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value: integers as such, NaN and infinities in the format's spelling. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function labelText(family: MetricFamily, sample: MetricSample): string {
  if (family.labelNames.length === 0) return '';
  const parts = family.labelNames.map((n) => `${n}="${escapeLabelValue(sample.labels[n] ?? '')}"`);
  return `{${parts.join(',')}}`;
}

/**
 * The text of `families`. A family listed twice is merged (HELP/TYPE once); two samples with the
 * same labels keep the last; a bad metric or label name throws (a bug here, never input).
 */
export function writeExposition(families: readonly MetricFamily[]): string {
  const byName = new Map<string, { family: MetricFamily; lines: Map<string, string> }>();
  for (const f of families) {
    if (!METRIC_NAME.test(f.name))
      throw new InvalidArgumentError('family.name', `${JSON.stringify(f.name)} is not a metric name`);
    for (const n of f.labelNames)
      if (!LABEL_NAME.test(n) || n.startsWith('__'))
        throw new InvalidArgumentError('family.labelNames', `${JSON.stringify(n)} is not a label name`);
    let entry = byName.get(f.name);
    if (entry === undefined) byName.set(f.name, (entry = { family: f, lines: new Map() }));
    for (const s of f.samples) {
      const labels = labelText(f, s);
      entry.lines.set(labels, `${f.name}${labels} ${formatValue(s.value)}`);
    }
  }
  const out: string[] = [];
  for (const name of [...byName.keys()].sort()) {
    const { family, lines } = byName.get(name)!;
    out.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`);
    for (const key of [...lines.keys()].sort()) out.push(lines.get(key)!);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
