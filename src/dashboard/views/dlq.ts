/**
 * A consumer group's dead letters (`%DLQ%<group>`, Admin.deadLetters): newest first, paged by a
 * cursor of per-queue offsets; the selected ones (or all shown) resent to the topic they came
 * from through a Producer (a new msgId; body, tags, keys and user properties kept), or exported
 * as a JSON download.
 */
import type { DeadLetterQueueCursor } from '../../admin/browse.js';
import { originalTopicOf } from '../../admin/browse.js';
import type { AdminMessage } from '../../admin/types.js';
import { InvalidArgumentError } from '../../errors.js';
import { PropertyKey } from '../../protocol/message/properties.js';
import { DLQ_GROUP_TOPIC_PREFIX, isSystemPropertyName } from '../../protocol/validation.js';
import type { Message } from '../../producer/message.js';
import { errorText, esc, link, num, table, time } from '../html.js';
import {
  allValues,
  decodeCursor,
  encodeCursor,
  requiredParam,
  type Params,
  type ViewContext,
} from './context.js';

/** Characters of a body shown in the list. */
const PREVIEW_CHARS = 80;
/** Most messages one resend or export takes (a page holds 32). */
const MAX_SELECTED = 256;

/** Names the broker or the client set: never carried over to a resent message. */
const SYSTEM_NAMES: ReadonlySet<string> = new Set(Object.values(PropertyKey));

function isCursor(v: unknown): v is DeadLetterQueueCursor[] {
  return (
    Array.isArray(v) &&
    v.length <= 1024 &&
    v.every(
      (q) =>
        typeof q === 'object' &&
        q !== null &&
        typeof (q as DeadLetterQueueCursor).topic === 'string' &&
        typeof (q as DeadLetterQueueCursor).brokerName === 'string' &&
        Number.isSafeInteger((q as DeadLetterQueueCursor).queueId) &&
        Number.isSafeInteger((q as DeadLetterQueueCursor).before) &&
        Number.isSafeInteger((q as DeadLetterQueueCursor).minOffset),
    )
  );
}

function preview(body: Buffer): string {
  const text = body.subarray(0, PREVIEW_CHARS * 4).toString('utf8');
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

/** GET /group/dlq?name=G[&cursor=…]: one page of the group's dead letters. */
export async function dlqPage(ctx: ViewContext, p: Params): Promise<{ title: string; body: string }> {
  const group = requiredParam(p, 'name');
  const cursor = decodeCursor(p, 'cursor', isCursor);
  const dlq = await ctx.admin.deadLetters(group, undefined, cursor);
  const title = `Dead letters of ${group}`;
  const back = `<p>${link('/group', { name: group }, `Consumer group ${group}`)}</p>`;
  if (dlq.messages.length === 0) {
    const why = dlq.exists
      ? cursor
        ? 'No older dead letters.'
        : `${dlq.topic} holds no messages.`
      : `${dlq.topic} does not exist: no message of this group has failed for good.`;
    return { title, body: `${back}<p class="empty" id="dlq-empty">No dead letters. ${esc(why)}</p>` };
  }
  const rows = dlq.messages.map((m) => [
    link('/message', { id: m.offsetMsgId, topic: dlq.topic }, m.msgId),
    `<input type="checkbox" name="id" value="${esc(m.offsetMsgId)}" form="dlq-actions" aria-label="Select ${esc(m.msgId)}">`,
    esc(m.originalTopic ?? '(unknown)'),
    time(m.storeTimestamp),
    String(m.reconsumeTimes),
    esc(m.keys.join(' ')),
    `<code>${esc(preview(m.body))}</code>`,
  ]);
  const list = table(
    `Dead letters (${dlq.messages.length} shown of ${dlq.total}, newest first)`,
    [
      { label: 'Message id' },
      { label: 'Select' },
      { label: 'Original topic' },
      { label: 'Stored' },
      { label: 'Reconsume times', num: true },
      { label: 'Keys' },
      { label: 'Body' },
    ],
    rows,
    dlq.messages.map((m) => m.msgId),
  );
  const shown = dlq.messages.map((m) => m.offsetMsgId).join(' ');
  const actions = `<form method="post" action="/group/dlq/resend" id="dlq-actions" aria-label="Resend or export dead letters"><input type="hidden" name="csrf" value="${esc(ctx.csrf)}"><input type="hidden" name="group" value="${esc(group)}"><input type="hidden" name="shown" value="${esc(shown)}">
<p>Selected messages (none selected: every message shown) can be resent to their original topic (a new message id) or downloaded.</p>
<p><button type="submit" formaction="/group/dlq/resend" data-confirm="Resend the selected dead letters to their original topics?">Resend to original topic</button> <button type="submit" formaction="/group/dlq/export">Export as JSON</button></p></form>`;
  const older = dlq.next
    ? `<p>${link('/group/dlq', { name: group, cursor: encodeCursor(dlq.next) }, 'Older dead letters')}</p>`
    : '<p>No older dead letters.</p>';
  const byOffset = `<p>${link('/messages', { mode: 'queue', topic: dlq.topic, broker: dlq.messages[0]!.storeHost, queue: 0, from: 0 }, 'Read the DLQ by offset')}</p>`;
  return {
    title,
    body: `${back}<p>${num(dlq.total)} dead letters in ${esc(dlq.topic)}.</p>${list}${actions}${older}${byOffset}`,
  };
}

/** The ids a resend or export acts on: the checked ones, else every one shown. */
function selectedIds(form: Params): string[] {
  let ids = allValues(form, 'id');
  if (ids.length === 0) ids = (form.get('shown') ?? '').split(/\s+/).filter((s) => s !== '');
  if (ids.length === 0) throw new InvalidArgumentError('id', 'select at least one message');
  if (ids.length > MAX_SELECTED)
    throw new InvalidArgumentError('id', `at most ${MAX_SELECTED} messages at once, got ${ids.length}`);
  return [...new Set(ids)];
}

/**
 * The message a dead letter is resent as, as Java's `mqadmin queryMsgById -s` resends a stored
 * message: same body, tags, keys, user properties, message group and msgId (its UNIQ_KEY, which
 * the broker kept from the original when it moved the message to the DLQ, so consumers that
 * dedupe on it see the copy as the same message). The broker-owned properties (REAL_TOPIC,
 * RETRY_TOPIC, DELAY, MIN/MAX_OFFSET, TRAN_MSG, RECONSUME_TIME, timers...) are not carried over.
 */
export function resendableMessage(m: AdminMessage, topic: string): Message {
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.properties))
    if (!SYSTEM_NAMES.has(k) && !isSystemPropertyName(k) && v !== '') properties[k] = v;
  const group = m.properties[PropertyKey.SHARDING_KEY];
  // without one (a producer that set none), the producer gives it a new id, as Java's does
  const uniqKey = m.properties[PropertyKey.UNIQ_KEY];
  return {
    topic,
    body: m.body,
    tags: m.tags,
    keys: m.keys.length > 0 ? m.keys : undefined,
    properties,
    ...(uniqKey !== undefined && uniqKey !== '' ? { msgId: uniqKey } : {}),
    ...(group !== undefined && group !== '' ? { messageGroup: group } : {}),
  };
}

export interface ResendOutcome {
  msgId: string;
  originalTopic: string | undefined;
  /** The new message's msgId, when sent. */
  newMsgId?: string;
  error?: string;
}

/** POST /group/dlq/resend: each selected dead letter sent again to its original topic. */
export async function resendDeadLetters(
  ctx: ViewContext,
  form: Params,
): Promise<{ notice: string; outcomes: ResendOutcome[] }> {
  const group = requiredParam(form, 'group');
  const ids = selectedIds(form);
  const producer = await ctx.resendProducer();
  const topic = DLQ_GROUP_TOPIC_PREFIX + group;
  const outcomes: ResendOutcome[] = [];
  for (const id of ids) {
    let m: AdminMessage | undefined;
    try {
      m = await ctx.admin.viewMessage(id, topic);
      const original = originalTopicOf(m);
      if (original === undefined)
        throw new InvalidArgumentError(
          'id',
          `${m.msgId} has no RETRY_TOPIC property: its original topic is unknown`,
        );
      const r = await producer.send(resendableMessage(m, original));
      outcomes.push({ msgId: m.msgId, originalTopic: original, newMsgId: r.msgId });
    } catch (err) {
      outcomes.push({
        msgId: m?.msgId ?? id,
        originalTopic: m && originalTopicOf(m),
        error: errorText(err),
      });
    }
  }
  const failed = outcomes.filter((o) => o.error !== undefined).length;
  const notice = `Resent ${outcomes.length - failed} of ${outcomes.length} dead letters of ${group}${failed > 0 ? `; ${failed} failed (see the table)` : ''}.`;
  return { notice, outcomes };
}

export function outcomesTable(outcomes: readonly ResendOutcome[]): string {
  return table(
    'Resend results',
    [{ label: 'Message id' }, { label: 'Original topic' }, { label: 'Result' }],
    outcomes.map((o) => [
      esc(o.msgId),
      esc(o.originalTopic ?? '(unknown)'),
      o.error !== undefined
        ? `<span class="down">failed: ${esc(o.error)}</span>`
        : `resent as ${link('/message', { id: o.newMsgId!, topic: o.originalTopic! }, o.newMsgId!)}`,
    ]),
    outcomes.map((o) => o.msgId),
  );
}

/** A body as JSON can carry it: base64 always, the text too when it is valid UTF-8. */
function bodyJson(body: Buffer): { base64: string; utf8?: string } {
  try {
    return { base64: body.toString('base64'), utf8: new TextDecoder('utf-8', { fatal: true }).decode(body) };
  } catch {
    return { base64: body.toString('base64') };
  }
}

/** POST /group/dlq/export: the selected dead letters as a JSON file. */
export async function exportDeadLetters(
  ctx: ViewContext,
  form: Params,
): Promise<{ filename: string; body: string }> {
  const group = requiredParam(form, 'group');
  const topic = DLQ_GROUP_TOPIC_PREFIX + group;
  const messages = [];
  for (const id of selectedIds(form)) {
    const m = await ctx.admin.viewMessage(id, topic);
    messages.push({
      msgId: m.msgId,
      offsetMsgId: m.offsetMsgId,
      topic: m.topic,
      originalTopic: originalTopicOf(m) ?? null,
      queueId: m.queueId,
      queueOffset: m.queueOffset,
      tags: m.tags ?? null,
      keys: m.keys,
      reconsumeTimes: m.reconsumeTimes,
      bornTimestamp: m.bornTimestamp,
      storeTimestamp: m.storeTimestamp,
      bornHost: m.bornHost,
      storeHost: m.storeHost,
      properties: m.properties,
      body: bodyJson(m.body),
    });
  }
  const safe = group.replace(/[^A-Za-z0-9_-]/g, '_');
  return {
    filename: `dlq-${safe}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
    body: `${JSON.stringify({ group, topic, exportedAt: Date.now(), messages }, null, 2)}\n`,
  };
}
