/**
 * A topic's messages between two store times (Admin.browseMessages): the form, then pages of at
 * most 32 messages, each page ending with a "next page" link carrying the per-queue offsets.
 */
import type { BrowseQueueCursor } from '../../admin/browse.js';
import { InvalidArgumentError } from '../../errors.js';
import { esc, field, getForm, link, num, table, time } from '../html.js';
import {
  decodeCursor,
  encodeCursor,
  intParam,
  param,
  requiredParam,
  type Params,
  type ViewContext,
} from './context.js';

const PAGE_SIZE = 32;

/**
 * A store time as the form takes it: epoch ms, or a date and time `2026-12-01T08:30[:ss[.mmm]]`
 * in UTC, or followed by `Z` or an explicit offset (`+08:00`, `-0530`) for a time written in
 * another zone. A zone-less time is never the server's zone: the form says UTC, and the server
 * may well run in another zone than the operator.
 */
export function parseStoreTime(name: string, raw: string): number {
  if (/^\d+$/.test(raw)) return Number(raw);
  const m =
    /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i.exec(
      raw,
    );
  let t = NaN;
  if (m) {
    const [, date, clock, z, sign, hh, mm] = m;
    const offsetOk = sign === undefined || (Number(hh) <= 14 && Number(mm) < 60);
    const zone = z !== undefined || sign === undefined ? 'Z' : `${sign}${hh}:${mm}`;
    if (offsetOk) t = Date.parse(`${date}T${clock}${zone}`);
  }
  if (!Number.isFinite(t))
    throw new InvalidArgumentError(
      name,
      `must be a date and time like 2026-12-01T08:30 (UTC), 2026-12-01T08:30Z or 2026-12-01T16:30+08:00, or epoch ms, got "${raw}"`,
    );
  return t;
}

function isCursor(v: unknown): v is BrowseQueueCursor[] {
  return (
    Array.isArray(v) &&
    v.length <= 4096 &&
    v.every(
      (q) =>
        typeof q === 'object' &&
        q !== null &&
        typeof (q as BrowseQueueCursor).topic === 'string' &&
        typeof (q as BrowseQueueCursor).brokerName === 'string' &&
        Number.isSafeInteger((q as BrowseQueueCursor).queueId) &&
        Number.isSafeInteger((q as BrowseQueueCursor).offset) &&
        Number.isSafeInteger((q as BrowseQueueCursor).endOffset),
    )
  );
}

const TIME_ATTRS = 'required placeholder="2026-12-01T08:30:00Z" autocomplete="off" spellcheck="false"';

function timeForm(p: Params): string {
  return getForm(
    '/messages/time',
    `${field('topic', 'Topic', param(p, 'topic'), 'required', 'text', 'time')}<p id="time-zone-note">Times are UTC unless they end with <code>Z</code> or an offset such as <code>+08:00</code> (e.g. 2026-12-01T16:30+08:00 is 08:30 UTC); epoch ms also work.</p>${field('begin', 'Stored from (UTC, or with an offset)', param(p, 'begin'), TIME_ATTRS, 'text', 'time')}${field('end', 'Stored to (UTC, or with an offset)', param(p, 'end'), TIME_ATTRS, 'text', 'time')}${field('broker', 'Broker name (optional)', param(p, 'broker'), '', 'text', 'time')}${field('queue', 'Queue id (optional)', param(p, 'queue'), 'min="0"', 'number', 'time')}`,
    'Browse',
    'Browse a topic by store time',
  );
}

/** GET /messages/time: the form, and a page of the range when one was asked for. */
export async function browsePage(ctx: ViewContext, p: Params): Promise<string> {
  const form = `<p>${link('/messages', {}, 'Find by key, id or offset')}</p>${timeForm(p)}`;
  if (param(p, 'topic') === undefined && param(p, 'begin') === undefined) return form;
  const topic = requiredParam(p, 'topic');
  const begin = parseStoreTime('begin', requiredParam(p, 'begin'));
  const end = parseStoreTime('end', requiredParam(p, 'end'));
  const queueRaw = param(p, 'queue');
  const page = await ctx.admin.browseMessages({
    topic,
    begin,
    end,
    brokerName: param(p, 'broker'),
    queueId: queueRaw === undefined ? undefined : intParam(p, 'queue', 0, 0, 65535),
    pageSize: PAGE_SIZE,
    cursor: decodeCursor(p, 'cursor', isCursor),
  });
  const rows = page.messages.map((m) => [
    link('/message', { id: m.offsetMsgId, topic: m.topic }, m.msgId),
    esc(m.tags ?? ''),
    esc(m.keys.join(' ')),
    esc(m.storeHost),
    String(m.queueId),
    num(m.queueOffset),
    time(m.storeTimestamp),
    num(m.body.length),
  ]);
  const list = table(
    `Messages stored ${new Date(begin).toISOString()} to ${new Date(end).toISOString()} (UTC; ${page.messages.length} on this page)`,
    [
      { label: 'Message id' },
      { label: 'Tags' },
      { label: 'Keys' },
      { label: 'Broker' },
      { label: 'Queue', num: true },
      { label: 'Queue offset', num: true },
      { label: 'Stored' },
      { label: 'Size', num: true },
    ],
    rows,
    page.messages.map((m) => m.msgId),
  );
  const left = page.queues.reduce((s, q) => s + (q.endOffset - q.offset), 0);
  const keep: Record<string, string> = {};
  for (const k of ['topic', 'begin', 'end', 'broker', 'queue']) {
    const v = param(p, k);
    if (v !== undefined) keep[k] = v;
  }
  const next = page.next
    ? `<p>${link('/messages/time', { ...keep, cursor: encodeCursor(page.next) }, 'Next page')} (at most ${num(left)} more offsets in the range).</p>`
    : '<p id="range-end">End of the range.</p>';
  return `${form}<section aria-labelledby="h-results"><h2 id="h-results">Results</h2>${list}${next}</section>`;
}
