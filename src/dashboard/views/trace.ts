/**
 * One message's trace (Admin.messageTrace over RMQ_SYS_TRACE_TOPIC): the Pub record of its send
 * and the SubBefore/SubAfter records of each consumer group, as a table and as a timeline of bars
 * placed by time since the send. Without records the page says how to turn tracing on.
 */
import type { AdminMessage } from '../../admin/types.js';
import { MessageNotFoundError, TopicNotFoundError } from '../../errors.js';
import { ConsumeReturnType, type TraceContext } from '../../protocol/trace/trace-data.js';
import { errorText, esc, link, num, table, time } from '../html.js';
import { param, requiredParam, type Params, type ViewContext } from './context.js';

const RETURN_NAMES = new Map<number, string>(Object.entries(ConsumeReturnType).map(([k, v]) => [v, k]));

const HOW_TO_ENABLE =
  'Message tracing is off, or the trace was not written yet. Turn it on with <code>enableMsgTrace: true</code> on the Producer and on the PushConsumer (Java: <code>enableMsgTrace</code> / <code>traceTopic</code>); the brokers need <code>traceTopicEnable=true</code> or an existing RMQ_SYS_TRACE_TOPIC.';

/** The trace records of `msgId`, or undefined when the trace topic holds none. */
async function traceOf(ctx: ViewContext, msgId: string): Promise<TraceContext[] | undefined> {
  try {
    return await ctx.admin.messageTrace(msgId);
  } catch (err) {
    if (err instanceof MessageNotFoundError || err instanceof TopicNotFoundError) return undefined;
    throw err;
  }
}

function status(r: TraceContext): string {
  if (r.type === 'SubBefore') return 'consuming';
  const ok = r.success ? 'success' : 'failed';
  return r.type === 'SubAfter' ? `${ok} (${RETURN_NAMES.get(r.contextCode) ?? r.contextCode})` : ok;
}

/** The records as a table: one row per record, Pub first. */
export function traceTable(records: readonly TraceContext[], clientHost: string | undefined): string {
  return table(
    'Trace records',
    [
      { label: 'Type' },
      { label: 'Time' },
      { label: 'Group' },
      { label: 'Client host' },
      { label: 'Store host' },
      { label: 'Cost (ms)', num: true },
      { label: 'Status' },
      { label: 'Retry times', num: true },
    ],
    records.map((r) => [
      esc(r.type),
      time(r.timeStamp),
      esc(r.groupName),
      esc(r.type === 'Pub' ? (clientHost ?? '–') : '–'),
      esc(r.type === 'Pub' ? r.storeHost : '–'),
      r.type === 'SubBefore' ? '–' : num(r.costTime),
      esc(status(r)),
      r.type === 'Pub' ? '–' : String(r.beans[0]?.retryTimes ?? 0),
    ]),
    records.map((r, i) => `${r.type}-${r.groupName}-${i}`),
  );
}

/**
 * When a record's work ran: a Pub from its time stamp (the send's start) for its cost, a
 * SubAfter up to its time stamp (the handler settled) for its cost, a SubBefore a point.
 */
function spanOf(r: TraceContext): [number, number] {
  if (r.type === 'Pub') return [r.timeStamp, r.timeStamp + r.costTime];
  if (r.type === 'SubAfter') return [r.timeStamp - r.costTime, r.timeStamp];
  return [r.timeStamp, r.timeStamp];
}

/** Bars placed by time since the first record began. */
function timeline(records: readonly TraceContext[]): string {
  const spans = records.map(spanOf);
  const start = Math.min(...spans.map((s) => s[0]));
  const span = Math.max(1, Math.max(...spans.map((s) => s[1])) - start);
  const items = records.map((r, i) => {
    const [from, to] = spans[i]!;
    const left = (100 * (from - start)) / span;
    const width = Math.min(Math.max(0.5, (100 * (to - from)) / span), Math.max(0.5, 100 - left));
    return `<li><span class="tl-label">+${num(from - start)} ms ${esc(r.type)} ${esc(r.groupName)} (${esc(status(r))})</span><span class="tl-track"><span class="tl-bar${r.type === 'SubAfter' && !r.success ? ' down' : ''}" style="margin-left:${Math.min(left, 99.5).toFixed(2)}%;width:${width.toFixed(2)}%"></span></span></li>`;
  });
  return `<ol class="timeline" aria-label="Trace timeline">${items.join('')}</ol>`;
}

/** The trace part of a message's page: the table, and a link to the page with the timeline. */
export async function traceSection(ctx: ViewContext, m: AdminMessage): Promise<string> {
  let records: TraceContext[] | undefined;
  try {
    records = await traceOf(ctx, m.msgId);
  } catch (err) {
    return `<p class="down">${esc(errorText(err))}</p>`;
  }
  const full = `<p>${link('/message/trace', { id: m.msgId, topic: m.topic }, 'Trace page (table and timeline)')}</p>`;
  if (records === undefined) return `<p class="empty">No trace. ${HOW_TO_ENABLE}</p>${full}`;
  return `${traceTable(records, m.bornHost)}${full}`;
}

/** GET /message/trace?id=…[&topic=…]: the trace of one message. */
export async function tracePage(ctx: ViewContext, p: Params): Promise<{ title: string; body: string }> {
  const id = requiredParam(p, 'id');
  const topic = param(p, 'topic');
  const title = `Trace of ${id}`;
  const records = await traceOf(ctx, id);
  if (records === undefined)
    return {
      title,
      body: `<p class="empty" id="no-trace">No trace records of ${esc(id)}. ${HOW_TO_ENABLE}</p>`,
    };
  const pub = records.find((r) => r.type === 'Pub');
  // the client host is the traced message's born host (a Pub record does not carry it)
  let message: AdminMessage | undefined;
  if (pub) message = await ctx.admin.viewMessage(pub.offsetMsgId, pub.topic).catch(() => undefined);
  const groups = new Set(records.filter((r) => r.type !== 'Pub').map((r) => r.groupName));
  const about = pub
    ? `<p>Sent to ${link('/topic', { name: pub.topic }, pub.topic)} by ${esc(pub.groupName)}; ${message ? link('/message', { id: message.offsetMsgId, topic: message.topic }, 'the message') : 'the message is no longer stored'}. Consumed by ${groups.size} group(s).</p>`
    : `<p>No Pub record (the producer did not trace${topic ? ` ${esc(topic)}` : ''}); consumed by ${groups.size} group(s).</p>`;
  return {
    title,
    body: `${about}<section aria-labelledby="h-records"><h2 id="h-records">Records</h2>${traceTable(records, message?.bornHost)}</section>
<section aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>${timeline(records)}</section>`,
  };
}
