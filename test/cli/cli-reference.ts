/** Reads the flags out of help texts and the README's CLI reference table. */
import { readFileSync } from 'node:fs';

/** Every `--flag` a text mentions. */
export function mentionedFlags(text: string): Set<string> {
  return new Set(text.match(/--[a-z][a-z0-9-]*/g) ?? []);
}

export interface ReferenceRow {
  /** The command's words, e.g. `topic create`. */
  readonly path: string;
  readonly flags: ReadonlySet<string>;
}

/** The README's "CLI reference" section. */
export function readmeCliSection(): string {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## CLI reference\n');
  if (start < 0) throw new Error('README.md has no "## CLI reference" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The rows of the section's table whose first cell is a code span: `command [--flag X] ...`. */
export function referenceRows(section: string): ReferenceRow[] {
  const rows: ReferenceRow[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*`((?:[^`\\]|\\.)*)`\s*\|/.exec(line);
    if (!m) continue;
    const usage = m[1]!.replace(/\\\|/g, '|');
    const path = (/^[a-z][a-zA-Z -]*?(?=\s+[[-]|$)/.exec(usage)?.[0] ?? '').trim();
    rows.push({ path, flags: mentionedFlags(usage) });
  }
  return rows;
}
