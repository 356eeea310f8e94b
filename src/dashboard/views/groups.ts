/**
 * Consumer group pages: the list (subscription groups on every master; per-group figures are on
 * the group's page, so the list costs one request per broker plus, for its first 50 groups only,
 * the members' consume type and request mode, looked up once per group per GroupModeCache
 * lifetime — rocketmq-dashboard#123 is what an unbounded per-group fan-out does), and one group's members, subscriptions, mode (POP marked), per-queue
 * lag (live, charted) and POP in-flight count, consume TPS, a link to its dead letters and a
 * reset-offset-by-time form.
 */
import type {
  ConsumerConnections,
  ConsumerProgress,
  ConsumerProgressReport,
  ConsumerQueueProgress,
  ResetOffsetResult,
} from '../../admin/types.js';
import {
  BrokerUnavailableError,
  InvalidArgumentError,
  ConsumerGroupNotFoundError,
  ConsumerNotOnlineError,
} from '../../errors.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { groupMode, modeCell, MODES_LISTED } from './group-mode.js';
import { errorText, esc, field, getForm, link, num, postForm, table, time } from '../html.js';
import { History, type Fragments, type LiveView } from '../live.js';
import {
  historyChart,
  param,
  requiredParam,
  unreachableNote,
  type Params,
  type ViewContext,
} from './context.js';

/** Queues charted one by one (the busiest by lag); the total is always charted. */
const CHARTED_QUEUES = 5;

export async function groupsPage(ctx: ViewContext, p: Params): Promise<string> {
  const q = param(p, 'q') ?? '';
  const all = p.get('all') === '1';
  // A master that cannot be reached is shown as down; the groups of the others are still listed.
  const report = await ctx.admin.consumerGroupsReport(all);
  const groups = report.groups.filter((g) => g.group.toLowerCase().includes(q.toLowerCase()));
  const search = getForm(
    '/groups',
    `${field('q', 'Group name contains', q, '', 'search', 'group-search')}<p class="field"><input type="checkbox" id="group-search-all" name="all" value="1"${all ? ' checked' : ''}> <label for="group-search-all">Include built-in groups</label></p>`,
    'Search',
    'Search consumer groups',
  );
  const modes = await Promise.all(
    groups.map((g, i) => (i < MODES_LISTED ? ctx.groupModes.get(g.group) : undefined)),
  );
  const list = table(
    `Consumer groups (${groups.length})`,
    [
      { label: 'Group' },
      { label: 'Mode' },
      { label: 'Brokers' },
      { label: 'Consume enabled' },
      { label: 'Broadcast allowed' },
      { label: 'Max retries', num: true },
    ],
    groups.map((g, i) => [
      link('/group', { name: g.group }, g.group),
      modeCell(modes[i]),
      esc(g.brokers.join(', ')),
      g.config.consumeEnable ? 'yes' : 'no',
      g.config.consumeBroadcastEnable ? 'yes' : 'no',
      String(g.config.retryMaxTimes),
    ]),
    groups.map((g) => g.group),
  );
  return `<section aria-labelledby="h-find"><h2 id="h-find">Find</h2>${search}</section>
<section aria-labelledby="h-list"><h2 id="h-list">Groups</h2>${unreachableNote(report.unreachable, 'groups')}${list}</section>`;
}

function queueKey(q: { topic: string; brokerName: string; queueId: number }): string {
  return `${q.topic}@${q.brokerName}/${q.queueId}`;
}

/** Chart legend names: `broker/queue`, with the topic only when the group consumes several. */
function seriesLabel(progress: ConsumerProgress): (q: ConsumerQueueProgress) => string {
  const charted = progress.queues.filter((q) => !q.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX));
  const several = new Set(charted.map((q) => q.topic)).size > 1;
  return (q) => (several ? queueKey(q) : `${q.brokerName}/${q.queueId}`);
}

export class GroupView implements LiveView {
  readonly history: History;

  constructor(
    private readonly ctx: ViewContext,
    private readonly group: string,
  ) {
    this.history = new History(ctx.historyPoints);
  }

  /**
   * One GET_CONSUME_STATS per broker of the group's topics (after a route lookup). A broker that
   * cannot be reached is listed as down; only when none answered is the page's progress an error.
   */
  async load(): Promise<ConsumerProgressReport | Error> {
    let progress: ConsumerProgressReport;
    try {
      progress = await this.ctx.admin.consumerProgressReport(this.group);
    } catch (err) {
      if (err instanceof ConsumerGroupNotFoundError || err instanceof BrokerUnavailableError) return err;
      throw err;
    }
    const at = Date.now();
    this.history.add('total lag', progress.totalLag, at);
    const label = seriesLabel(progress);
    for (const q of progress.queues) this.history.add(label(q), q.lag, at);
    return progress;
  }

  async poll(): Promise<Fragments> {
    return this.fragments(await this.load());
  }

  fragments(progress: ConsumerProgressReport | Error): Fragments {
    if (progress instanceof Error)
      return {
        progress: `<p class="${progress instanceof BrokerUnavailableError ? 'down' : 'empty'}">${esc(errorText(progress))}</p>`,
        'lag-chart': '',
      };
    const busiest = [...progress.queues]
      .filter((q) => !q.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      .sort((a, b) => b.lag - a.lag)
      .slice(0, CHARTED_QUEUES)
      .map(seriesLabel(progress));
    const summary = `<p>Consume TPS <strong id="consume-tps">${num(progress.consumeTps, 1)}</strong>, total lag <strong id="total-lag">${num(progress.totalLag)}</strong>, in flight (POP, not acked) <strong id="total-inflight">${num(progress.totalInflight)}</strong>.</p>`;
    const rows = progress.queues.map((q) => [
      esc(q.topic),
      esc(q.brokerName),
      String(q.queueId),
      num(q.brokerOffset),
      num(q.consumerOffset),
      num(q.lag),
      num(q.inflight),
      time(q.lastTimestamp),
    ]);
    return {
      progress:
        unreachableNote(progress.unreachable, 'queues') +
        summary +
        table(
          'Progress per queue',
          [
            { label: 'Topic' },
            { label: 'Broker' },
            { label: 'Queue', num: true },
            { label: 'Broker offset', num: true },
            { label: 'Consumer offset', num: true },
            { label: 'Lag', num: true },
            { label: 'In flight', num: true },
            { label: 'Last consumed' },
          ],
          rows,
          progress.queues.map(queueKey),
        ),
      'lag-chart': historyChart('Lag (messages not yet consumed)', 'messages', this.history, [
        'total lag',
        ...busiest,
      ]),
    };
  }
}

function membersSection(c: ConsumerConnections | Error): string {
  if (c instanceof ConsumerNotOnlineError || c instanceof ConsumerGroupNotFoundError)
    return '<p class="empty">No member is online.</p>';
  if (c instanceof Error) return `<p class="down">${esc(errorText(c))}</p>`;
  const members = table(
    `Members (${c.connections.length})`,
    [{ label: 'Client id' }, { label: 'Address' }, { label: 'Language' }, { label: 'Version', num: true }],
    c.connections.map((m) => [esc(m.clientId), esc(m.clientAddr), esc(m.language), String(m.version)]),
    c.connections.map((m) => m.clientId),
  );
  const subs = table(
    'Subscriptions',
    [{ label: 'Topic' }, { label: 'Type' }, { label: 'Expression' }],
    Object.entries(c.subscriptions).map(([t, s]) => [
      link('/topic', { name: t }, t),
      esc(s.expressionType),
      esc(s.expression),
    ]),
  );
  return `<p>${esc(c.consumeType)}, ${esc(c.messageModel)}, ${esc(c.consumeFromWhere)}.</p>${members}${subs}`;
}

/** `latest`, `earliest`, epoch ms, or a date and time (a zone-less one is the server's local time). */
export function parseResetTime(raw: string | undefined): number {
  if (raw === undefined) throw new InvalidArgumentError('timestamp', 'is required');
  if (raw === 'latest') return -1;
  if (raw === 'earliest') return 0;
  if (/^\d+$/.test(raw)) return Number(raw);
  const ms = Date.parse(raw);
  if (Number.isNaN(ms))
    throw new InvalidArgumentError(
      'timestamp',
      `expected latest, earliest, epoch ms or a date like 2026-12-01T08:30, got "${raw}"`,
    );
  return ms;
}

/** POST /group/reset: returns the notice and the new offsets. */
export async function resetOffset(
  ctx: ViewContext,
  form: Params,
): Promise<{ notice: string; result: ResetOffsetResult[] }> {
  const group = requiredParam(form, 'group');
  const topic = requiredParam(form, 'topic');
  const timestamp = parseResetTime(param(form, 'timestamp'));
  const force = form.get('force') === '1';
  const result = await ctx.admin.resetOffsetByTime(group, topic, timestamp, force);
  return { notice: `Offsets of ${group} on ${topic} reset (${result.length} queues).`, result };
}

export async function groupPage(
  ctx: ViewContext,
  p: Params,
  reset?: ResetOffsetResult[],
): Promise<{ title: string; body: string }> {
  const group = requiredParam(p, 'name');
  const view = ctx.hub.view(`group:${group}`, () => new GroupView(ctx, group));
  const [progress, connections] = await Promise.all([
    view.load(),
    ctx.admin.consumerConnections(group).catch((err: unknown) => err as Error),
  ]);
  // neither progress nor members: the group is unknown (an inline error, status 404)
  if (progress instanceof Error && connections instanceof Error) throw progress;
  const f = view.fragments(progress);
  const topics = new Set<string>();
  if (!(progress instanceof Error))
    for (const q of progress.queues) if (!q.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) topics.add(q.topic);
  if (!(connections instanceof Error))
    for (const t of Object.keys(connections.subscriptions))
      if (!t.startsWith(RETRY_GROUP_TOPIC_PREFIX)) topics.add(t);
  const resetTable = reset
    ? table(
        'New offsets',
        [
          { label: 'Topic' },
          { label: 'Broker' },
          { label: 'Queue', num: true },
          { label: 'Offset', num: true },
        ],
        reset.map((r) => [esc(r.topic), esc(r.brokerName), String(r.queueId), num(r.offset)]),
        reset.map(queueKey),
      )
    : '';
  const form = postForm(
    '/group/reset',
    ctx.csrf,
    `<input type="hidden" name="group" value="${esc(group)}">
<p class="field"><label for="reset-topic">Topic</label> <select id="reset-topic" name="topic">${[...topics]
      .sort()
      .map((t) => `<option>${esc(t)}</option>`)
      .join('')}</select></p>
${field('timestamp', 'Reset to (latest, earliest, epoch ms or 2026-12-01T08:30)', param(p, 'timestamp') ?? 'latest', 'required', 'text', 'reset')}
<p class="field"><input type="checkbox" id="reset-force" name="force" value="1"> <label for="reset-force">Force (also moves offsets forward; needed while members run)</label></p>`,
    'Reset offsets',
    `Reset the offsets of ${group}? Messages will be skipped or consumed again.`,
    'Reset offsets by time',
  );
  const mode = await groupMode(ctx.admin, group, connections);
  const inflight = progress instanceof Error ? 0 : progress.totalInflight;
  const popNote =
    mode.pop || inflight > 0
      ? `<p id="pop-mode"><strong class="pop">POP</strong> group: ${
          mode.consumeType === 'CONSUME_POP' ? 'its members consume by POP' : ''
        }${mode.consumeType === 'CONSUME_POP' && mode.popTopics.length > 0 ? '; ' : ''}${
          mode.popTopics.length > 0 ? `switched to POP on ${esc(mode.popTopics.join(', '))}` : ''
        }${!mode.pop ? 'messages are in flight by POP' : ''}. In flight (popped, not acked): <strong id="pop-inflight">${num(inflight)}</strong> (per queue under Progress).</p>`
      : '';
  const body = `${popNote}<p>${link('/group/dlq', { name: group }, 'Dead letters')} (%DLQ%${esc(group)})</p><section aria-labelledby="h-members"><h2 id="h-members">Members</h2>${membersSection(connections)}</section>
<section aria-labelledby="h-progress"><h2 id="h-progress">Progress</h2><div id="progress">${f['progress']}</div><div id="lag-chart" class="chart-box">${f['lag-chart']}</div></section>
<section aria-labelledby="h-reset"><h2 id="h-reset">Reset offsets by time</h2>${resetTable}${form}</section>`;
  return { title: `Consumer group ${group}`, body };
}
