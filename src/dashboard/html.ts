/**
 * Server-side HTML building blocks: the page frame (skip link, navigation, one h1, live status),
 * tables with captions and column headers, inline errors and notices, form fields with labels.
 * Every value reaches the page through `esc`; helpers taking `html` take already-escaped markup.
 */
import { escapeXml } from '../charts/svg-chart.js';
import { RocketMQError } from '../errors.js';

export const esc = escapeXml;

export type Section = 'cluster' | 'topics' | 'groups' | 'messages' | 'producers' | 'metrics';

const NAV: ReadonlyArray<readonly [Section, string, string]> = [
  ['cluster', '/cluster', 'Cluster'],
  ['topics', '/topics', 'Topics'],
  ['groups', '/groups', 'Consumer groups'],
  ['messages', '/messages', 'Messages'],
  ['producers', '/producers', 'Producer health'],
  ['metrics', '/metrics-page', 'Metrics'],
];

export interface PageSpec {
  title: string;
  section: Section;
  /** Already-escaped markup of the page body (after the h1). */
  body: string;
  /** Server-Sent Events URL of the page's live view. */
  live?: string | undefined;
  /** Error shown above the body (role=alert). */
  error?: string | undefined;
  /** Success notice shown above the body (role=status). */
  notice?: string | undefined;
}

/** A whole page. */
export function page(spec: PageSpec): string {
  const nav = NAV.map(
    ([key, href, label]) =>
      `<li><a href="${href}"${key === spec.section ? ' aria-current="page"' : ''}>${label}</a></li>`,
  ).join('');
  const live = spec.live
    ? `<p class="live"><span id="live-status">Live updates every refresh</span> <button type="button" id="live-toggle" aria-pressed="false">Pause live updates</button></p>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(spec.title)} · rocketmq-ts dashboard</title>
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand">rocketmq-ts dashboard</p><nav aria-label="Sections"><ul>${nav}</ul></nav></header>
<main id="main" tabindex="-1"${spec.live ? ` data-live="${esc(spec.live)}"` : ''}>
<h1>${esc(spec.title)}</h1>
${live}${spec.error ? errorBox(spec.error) : ''}${spec.notice ? noticeBox(spec.notice) : ''}${spec.body}
</main>
</body>
</html>
`;
}

export function errorBox(message: string): string {
  return `<div class="error" role="alert"><strong>Error:</strong> ${esc(message)}</div>`;
}

export function noticeBox(message: string): string {
  return `<div class="notice" role="status">${esc(message)}</div>`;
}

/** What a failure says on the page: a typed error's message and code, never a stack. */
export function errorText(err: unknown): string {
  if (err instanceof RocketMQError) return `${err.message} (${err.code})`;
  if (err instanceof Error) return `internal error: ${err.message}`;
  return `internal error: ${String(err)}`;
}

export interface Column {
  label: string;
  /** Right-aligned, tabular figures. */
  num?: boolean;
}

/** A data table; `rows` cells are escaped markup; `rowKeys` become data-key attributes (tests, links). */
export function table(
  caption: string,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  rowKeys?: readonly string[],
): string {
  if (rows.length === 0) return `<p class="empty">${esc(caption)}: none.</p>`;
  const head = columns
    .map((c) => `<th scope="col"${c.num ? ' class="num"' : ''}>${esc(c.label)}</th>`)
    .join('');
  const body = rows
    .map((r, i) => {
      const key = rowKeys?.[i];
      const cells = r
        .map((cell, j) =>
          j === 0
            ? `<th scope="row">${cell}</th>`
            : `<td${columns[j]?.num ? ' class="num"' : ''}>${cell}</td>`,
        )
        .join('');
      return `<tr${key !== undefined ? ` data-key="${esc(key)}"` : ''}>${cells}</tr>`;
    })
    .join('\n');
  return `<div class="table-wrap"><table><caption>${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** An integer or decimal as text (no thousands separators, so figures copy and compare). */
export function num(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '–';
}

export function time(ms: number): string {
  return ms > 0
    ? esc(
        new Date(ms)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, 'Z'),
      )
    : '–';
}

export function link(path: string, params: Record<string, string | number>, text: string): string {
  return `<a href="${esc(`${path}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`)}">${esc(text)}</a>`;
}

/** A labelled input; `attrs` is extra escaped attribute markup (required, pattern, …). */
export function field(
  name: string,
  label: string,
  value: string | undefined,
  attrs = '',
  type = 'text',
  formId = '',
): string {
  const id = `${formId}${formId ? '-' : ''}${name}`;
  return `<p class="field"><label for="${esc(id)}">${esc(label)}</label> <input id="${esc(id)}" name="${esc(name)}" type="${type}" value="${esc(value ?? '')}"${attrs ? ` ${attrs}` : ''}></p>`;
}

/** A state-changing form: POST with the CSRF token; `confirm` asks again in the browser (JS). */
export function postForm(
  action: string,
  csrf: string,
  inner: string,
  submit: string,
  confirm?: string,
  label?: string,
): string {
  return `<form method="post" action="${esc(action)}"${confirm ? ` data-confirm="${esc(confirm)}"` : ''}${label ? ` aria-label="${esc(label)}"` : ''}><input type="hidden" name="csrf" value="${esc(csrf)}">${inner}<p><button type="submit">${esc(submit)}</button></p></form>`;
}

/** A search form (GET, no token needed). */
export function getForm(action: string, inner: string, submit: string, label: string): string {
  return `<form method="get" action="${esc(action)}" role="search" aria-label="${esc(label)}">${inner}<p><button type="submit">${esc(submit)}</button></p></form>`;
}
