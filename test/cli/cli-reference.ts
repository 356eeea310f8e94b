/** Reads the flags out of help texts and the CLI reference table of docs/admin-cli.md. */
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

/** The "CLI reference" section of docs/admin-cli.md (its heading may carry a number: `## 3. CLI reference`). */
export function cliReferenceSection(): string {
  const guide = readFileSync(new URL('../../../docs/admin-cli.md', import.meta.url), 'utf8');
  const heading = /\n## (?:\d+\. )?CLI reference\n/.exec(guide);
  if (!heading) throw new Error('docs/admin-cli.md has no "## CLI reference" section');
  const end = guide.indexOf('\n## ', heading.index + 1);
  return guide.slice(heading.index, end < 0 ? undefined : end);
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
