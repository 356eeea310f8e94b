/**
 * Message pages: look-ups by key, by id and by queue + offset range, and one message's details —
 * body as text, hex or JSON, properties, its trace (when the trace topic holds one) and a form
 * that has a member of a group consume it again (CONSUME_MESSAGE_DIRECTLY).
 */
import type { AdminMessage } from '../../admin/types.js';
import { InvalidArgumentError } from '../../errors.js';
import { esc, field, getForm, link, num, postForm, table, time } from '../html.js';
import { intParam, param, requiredParam, type Params, type ViewContext } from './context.js';
import { traceSection } from './trace.js';

/** Most messages a queue range shows. */
const MAX_RANGE = 64;
/** Bytes of a body shown (the rest is cut, with a note). */
const MAX_BODY_SHOWN = 64 * 1024;

function resultsTable(messages: readonly AdminMessage[]): string {
  return table(
    `Messages found (${messages.length})`,
    [
      { label: 'Message id' },
      { label: 'Topic' },
      { label: 'Tags' },
      { label: 'Keys' },
      { label: 'Broker queue', num: true },
      { label: 'Queue offset', num: true },
      { label: 'Stored' },
      { label: 'Size', num: true },
    ],
    messages.map((m) => [
      link('/message', { id: m.offsetMsgId, topic: m.topic }, m.msgId),
      esc(m.topic),
      esc(m.tags ?? ''),
      esc(m.keys.join(' ')),
      String(m.queueId),
      num(m.queueOffset),
      time(m.storeTimestamp),
      num(m.body.length),
    ]),
    messages.map((m) => m.msgId),
  );
}

export function searchForms(p: Params): string {
  const mode = p.get('mode');
  const v = (name: string, m: string): string | undefined => (mode === m ? param(p, name) : undefined);
  const byKey = getForm(
    '/messages',
    `<input type="hidden" name="mode" value="key">${field('topic', 'Topic', v('topic', 'key'), 'required', 'text', 'key')}${field('key', 'Key', v('key', 'key'), 'required', 'text', 'key')}`,
    'Find by key',
    'Find messages by key',
  );
  const byId = getForm(
    '/messages',
    `<input type="hidden" name="mode" value="id">${field('id', 'Message id (msgId or offsetMsgId)', v('id', 'id'), 'required', 'text', 'id')}${field('topic', 'Topic (needed for a msgId)', v('topic', 'id'), '', 'text', 'id')}`,
    'Find by id',
    'Find a message by id',
  );
  const byQueue = getForm(
    '/messages',
    `<input type="hidden" name="mode" value="queue">${field('topic', 'Topic', v('topic', 'queue'), 'required', 'text', 'queue')}${field('broker', 'Broker name', v('broker', 'queue'), 'required', 'text', 'queue')}${field('queue', 'Queue id', v('queue', 'queue'), 'required min="0"', 'number', 'queue')}${field('from', 'From offset', v('from', 'queue') ?? '0', 'required min="0"', 'number', 'queue')}${field('count', `Count (at most ${MAX_RANGE})`, v('count', 'queue') ?? '16', `min="1" max="${MAX_RANGE}"`, 'number', 'queue')}`,
    'Read queue',
    'Read a queue by offset range',
  );
  return `<p>${link('/messages/time', {}, 'Browse a topic by store time')}</p><div class="forms"><section aria-labelledby="h-key"><h2 id="h-key">By key</h2>${byKey}</section>
<section aria-labelledby="h-id"><h2 id="h-id">By id</h2>${byId}</section>
<section aria-labelledby="h-queue"><h2 id="h-queue">By queue and offset</h2>${byQueue}</section></div>`;
}

/** GET /messages: the three forms, and the results of the one submitted. */
export async function messagesPage(ctx: ViewContext, p: Params): Promise<string> {
  const forms = searchForms(p);
  const mode = p.get('mode');
  if (mode === undefined) return forms;
  let results: string;
  if (mode === 'key') {
    const found = await ctx.admin.queryMessagesByKey(requiredParam(p, 'topic'), requiredParam(p, 'key'));
    results = resultsTable(found);
  } else if (mode === 'id') {
    const m = await ctx.admin.viewMessage(requiredParam(p, 'id'), param(p, 'topic'));
    results = resultsTable([m]);
  } else if (mode === 'queue') {
    const queue = {
      topic: requiredParam(p, 'topic'),
      brokerName: requiredParam(p, 'broker'),
      queueId: intParam(p, 'queue', 0, 0, 65535),
    };
    const from = intParam(p, 'from', 0, 0, Number.MAX_SAFE_INTEGER);
    const read = await ctx.admin.messagesOfQueue(queue, from, intParam(p, 'count', 16, 1, MAX_RANGE));
    results = `<p>Queue offsets ${num(read.minOffset)}…${num(read.maxOffset)}; next offset ${num(read.nextOffset)}.</p>${resultsTable(read.messages)}`;
  } else {
    throw new InvalidArgumentError('mode', `must be key, id or queue, got "${mode}"`);
  }
  return `${forms}<section aria-labelledby="h-results"><h2 id="h-results">Results</h2>${results}</section>`;
}

function hexDump(b: Buffer): string {
  const lines: string[] = [];
  for (let i = 0; i < b.length; i += 16) {
    const chunk = b.subarray(i, i + 16);
    const hex = [...chunk].map((x) => x.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...chunk].map((x) => (x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

/** The body as text, hex or pretty JSON (a body that is not JSON says so). */
export function renderBody(body: Buffer, view: string): string {
  const shown = body.subarray(0, MAX_BODY_SHOWN);
  const cut =
    body.length > shown.length ? `<p>First ${num(shown.length)} of ${num(body.length)} bytes.</p>` : '';
  if (view === 'hex') return `${cut}<pre class="body">${esc(hexDump(shown))}</pre>`;
  if (view === 'json') {
    try {
      return `<pre class="body">${esc(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2))}</pre>`;
    } catch (err) {
      return `<p class="down">The body is not JSON: ${esc((err as Error).message)}</p>`;
    }
  }
  return `${cut}<pre class="body">${esc(shown.toString('utf8'))}</pre>`;
}

export async function messagePage(ctx: ViewContext, p: Params): Promise<{ title: string; body: string }> {
  const id = requiredParam(p, 'id');
  const topic = param(p, 'topic');
  const view = p.get('view') ?? 'text';
  if (!['text', 'hex', 'json'].includes(view))
    throw new InvalidArgumentError('view', `must be text, hex or json, got "${view}"`);
  const m = await ctx.admin.viewMessage(id, topic);
  const facts: Array<[string, string]> = [
    ['Message id', esc(m.msgId)],
    ['Offset message id', esc(m.offsetMsgId)],
    ['Topic', link('/topic', { name: m.topic }, m.topic)],
    ['Tags', esc(m.tags ?? '')],
    ['Keys', esc(m.keys.join(' '))],
    ['Queue', `${esc(m.storeHost)} queue ${m.queueId} offset ${num(m.queueOffset)}`],
    ['Commit-log offset', num(m.commitLogOffset)],
    ['Reconsume times', String(m.reconsumeTimes)],
    ['Born', `${time(m.bornTimestamp)} from ${esc(m.bornHost)}`],
    ['Stored', `${time(m.storeTimestamp)} on ${esc(m.storeHost)}`],
    ['Body size', `${num(m.body.length)} bytes`],
  ];
  const details = `<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
  const views = ['text', 'hex', 'json']
    .map((v) =>
      v === view
        ? `<li><span aria-current="true">${v}</span></li>`
        : `<li>${link('/message', { id, ...(topic ? { topic } : {}), view: v }, v)}</li>`,
    )
    .join('');
  const props = table(
    'Properties',
    [{ label: 'Name' }, { label: 'Value' }],
    Object.entries(m.properties)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [esc(k), esc(v)]),
  );
  const resend = postForm(
    '/message/resend',
    ctx.csrf,
    `<input type="hidden" name="id" value="${esc(m.offsetMsgId)}"><input type="hidden" name="topic" value="${esc(m.topic)}">${field('group', 'Consumer group', param(p, 'group'), 'required', 'text', 'resend')}${field('clientId', 'Client id (default: the first member online)', param(p, 'clientId'), '', 'text', 'resend')}`,
    'Resend to the group',
    undefined,
    'Resend this message to a consumer group',
  );
  const body = `<section aria-labelledby="h-details"><h2 id="h-details">Details</h2>${details}</section>
<section aria-labelledby="h-body"><h2 id="h-body">Body</h2><nav aria-label="Body format"><ul class="tabs">${views}</ul></nav>${renderBody(m.body, view)}</section>
<section aria-labelledby="h-props"><h2 id="h-props">Properties</h2>${props}</section>
<section aria-labelledby="h-trace"><h2 id="h-trace">Trace</h2>${await traceSection(ctx, m)}</section>
<section aria-labelledby="h-resend"><h2 id="h-resend">Resend</h2>${resend}</section>`;
  return { title: `Message ${m.msgId}`, body };
}

/** POST /message/resend: returns the notice. */
export async function resendMessage(ctx: ViewContext, form: Params): Promise<string> {
  const id = requiredParam(form, 'id');
  const group = requiredParam(form, 'group');
  let clientId = param(form, 'clientId');
  if (clientId === undefined) {
    const members = await ctx.admin.consumerConnections(group);
    clientId = members.connections[0]?.clientId;
    if (clientId === undefined) throw new InvalidArgumentError('group', `${group} has no member online`);
  }
  const r = await ctx.admin.resendMessage(id, group, clientId, param(form, 'topic'));
  return `Message consumed again by ${clientId}: ${r.consumeResult}${r.remark ? ` (${r.remark})` : ''}, ${r.spentTimeMillis} ms.`;
}
