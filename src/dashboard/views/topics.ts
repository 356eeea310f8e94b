/**
 * Topic pages: the list (search; retry, DLQ and system topics on request) with a create form,
 * and one topic's route, queues (min/max offsets, live TPS from the max-offset deltas), the
 * groups consuming it and a delete form asking for the name again.
 */
import type { TopicStatsReport } from '../../admin/types.js';
import { InvalidArgumentError } from '../../errors.js';
import { TOPIC_MESSAGE_TYPES, type TopicMessageType } from '../../protocol/message/message-type.js';
import {
  DLQ_GROUP_TOPIC_PREFIX,
  isSystemTopic,
  RETRY_GROUP_TOPIC_PREFIX,
} from '../../protocol/validation.js';
import { errorText, esc, field, getForm, link, num, postForm, table, time } from '../html.js';
import { History, type Fragments, type LiveView } from '../live.js';
import {
  historyChart,
  intParam,
  param,
  requiredParam,
  unreachableNote,
  type Params,
  type ViewContext,
} from './context.js';

/** The types the create form offers: what a broker accepts (MIXED is refused, UNSPECIFIED accepts nothing). */
const CREATABLE_TYPES = TOPIC_MESSAGE_TYPES.filter(
  (t) => t !== 'UNSPECIFIED' && t !== 'MIXED',
) as readonly TopicMessageType[];

/** Retry, DLQ and system topics (Java's TopicValidator), hidden unless asked. */
export function isHiddenTopic(t: string): boolean {
  return t.startsWith(RETRY_GROUP_TOPIC_PREFIX) || t.startsWith(DLQ_GROUP_TOPIC_PREFIX) || isSystemTopic(t);
}

export async function topicsPage(ctx: ViewContext, p: Params): Promise<string> {
  const q = param(p, 'q') ?? '';
  const all = p.get('all') === '1';
  const [topics, info, typed] = await Promise.all([
    ctx.admin.topics(),
    ctx.admin.clusterInfo(),
    // A broker that cannot list its topics leaves the type column empty, not the page broken.
    ctx.admin.topicList().catch(() => []),
  ]);
  const types = new Map(typed.map((e) => [e.topic, e.messageType]));
  const clusters = Object.keys(info.clusters);
  const shown = topics
    .filter((t) => (all || !isHiddenTopic(t)) && t.toLowerCase().includes(q.toLowerCase()))
    .sort();
  const search = getForm(
    '/topics',
    `${field('q', 'Topic name contains', q, '', 'search', 'topic-search')}<p class="field"><input type="checkbox" id="topic-search-all" name="all" value="1"${all ? ' checked' : ''}> <label for="topic-search-all">Include retry, DLQ and system topics</label></p>`,
    'Search',
    'Search topics',
  );
  const list = table(
    `Topics (${shown.length} of ${topics.length})`,
    [{ label: 'Topic' }, { label: 'Message type' }],
    shown.map((t) => [link('/topic', { name: t }, t), esc(types.get(t) ?? '')]),
    shown,
  );
  const clusterOptions = clusters.map((c) => `<option>${esc(c)}</option>`).join('');
  // NORMAL first (the default); a 4.x broker ignores the type (docs/admin-cli.md §5).
  const typeOptions = CREATABLE_TYPES.map((t) => `<option>${esc(t)}</option>`).join('');
  const create = postForm(
    '/topics/create',
    ctx.csrf,
    `${field('topic', 'Topic name', param(p, 'topic'), 'required maxlength="127" pattern="[%|a-zA-Z0-9_-]+"', 'text', 'create')}
<p class="field"><label for="create-cluster">Cluster</label> <select id="create-cluster" name="cluster">${clusterOptions}</select></p>
${field('readQueues', 'Read queues', param(p, 'readQueues') ?? '8', 'required min="1" max="1024"', 'number', 'create')}
${field('writeQueues', 'Write queues', param(p, 'writeQueues') ?? '8', 'required min="1" max="1024"', 'number', 'create')}
<p class="field"><label for="create-perm">Permission</label> <select id="create-perm" name="perm"><option value="6">read and write</option><option value="4">read only</option><option value="2">write only</option></select></p>
<p class="field"><label for="create-type">Message type (5.x)</label> <select id="create-type" name="messageType">${typeOptions}</select></p>`,
    'Create topic',
    undefined,
    'Create a topic',
  );
  return `<section aria-labelledby="h-find"><h2 id="h-find">Find</h2>${search}</section>
<section aria-labelledby="h-list"><h2 id="h-list">Topics</h2>${list}</section>
<section aria-labelledby="h-create"><h2 id="h-create">Create or update a topic</h2>${create}</section>`;
}

/** POST /topics/create; returns the notice. */
export async function createTopic(ctx: ViewContext, form: Params): Promise<string> {
  const topic = requiredParam(form, 'topic');
  const cluster = requiredParam(form, 'cluster');
  const perm = intParam(form, 'perm', 6, 2, 6);
  if (![2, 4, 6].includes(perm)) throw new InvalidArgumentError('perm', 'must be 2, 4 or 6');
  const type = param(form, 'messageType');
  if (type !== undefined && !(CREATABLE_TYPES as readonly string[]).includes(type))
    throw new InvalidArgumentError('messageType', `must be one of ${CREATABLE_TYPES.join(', ')}`);
  const addresses = await ctx.admin.createTopic({
    topic,
    cluster,
    readQueues: intParam(form, 'readQueues', 8, 1, 1024),
    writeQueues: intParam(form, 'writeQueues', 8, 1, 1024),
    perm,
    ...(type === undefined ? {} : { messageType: type as TopicMessageType }),
  });
  return `Topic ${topic} created or updated on ${addresses.join(', ')}${type === undefined ? '' : ` as ${type}`}.`;
}

/** POST /topics/delete: the name must be typed again. */
export async function deleteTopic(ctx: ViewContext, form: Params): Promise<string> {
  const topic = requiredParam(form, 'topic');
  const cluster = requiredParam(form, 'cluster');
  if (param(form, 'confirm') !== topic)
    throw new InvalidArgumentError('confirm', `type the topic name (${topic}) to confirm the deletion`);
  await ctx.admin.deleteTopic(topic, cluster);
  return `Topic ${topic} deleted from cluster ${cluster}.`;
}

export class TopicView implements LiveView {
  readonly history: History;
  private previous: { at: number; max: Map<string, number> } | undefined;
  /** Messages per second per queue since the previous load (absent on the first). */
  tps = new Map<string, number>();

  constructor(
    private readonly ctx: ViewContext,
    private readonly topic: string,
  ) {
    this.history = new History(ctx.historyPoints);
  }

  /** One GET_TOPIC_STATS_INFO per broker of the topic. */
  async load(): Promise<TopicStatsReport> {
    // A broker of the route that cannot be reached is shown as down, not a failed page.
    const stats = await this.ctx.admin.topicStatsReport(this.topic);
    const at = Date.now();
    const max = new Map(stats.queues.map((q) => [`${q.brokerName}/${q.queueId}`, q.maxOffset]));
    if (this.previous && at > this.previous.at) {
      const seconds = (at - this.previous.at) / 1000;
      let total = 0;
      this.tps = new Map();
      for (const [k, m] of max) {
        const rate = Math.max(0, m - (this.previous.max.get(k) ?? m)) / seconds;
        this.tps.set(k, rate);
        total += rate;
      }
      this.history.add('messages in/s', total, at);
    }
    this.previous = { at, max };
    return stats;
  }

  async poll(): Promise<Fragments> {
    return this.fragments(await this.load());
  }

  fragments(stats: TopicStatsReport): Fragments {
    const rows = stats.queues.map((q) => {
      const k = `${q.brokerName}/${q.queueId}`;
      const tps = this.tps.get(k);
      return [
        esc(q.brokerName),
        String(q.queueId),
        num(q.minOffset),
        num(q.maxOffset),
        num(q.maxOffset - q.minOffset),
        tps === undefined ? '–' : num(tps, 1),
        time(q.lastUpdateTimestamp),
        link(
          '/messages',
          {
            mode: 'queue',
            topic: this.topic,
            broker: q.brokerName,
            queue: q.queueId,
            from: Math.max(q.minOffset, q.maxOffset - 16),
          },
          'latest messages',
        ),
      ];
    });
    return {
      queues:
        unreachableNote(stats.unreachable, 'queues') +
        table(
          'Queues',
          [
            { label: 'Broker' },
            { label: 'Queue', num: true },
            { label: 'Min offset', num: true },
            { label: 'Max offset', num: true },
            { label: 'Messages', num: true },
            { label: 'TPS', num: true },
            { label: 'Last update' },
            { label: 'Browse' },
          ],
          rows,
          stats.queues.map((q) => `${q.brokerName}/${q.queueId}`),
        ),
      'topic-chart': historyChart('Messages in per second', 'msgs/s', this.history, ['messages in/s']),
    };
  }
}

export async function topicPage(ctx: ViewContext, p: Params): Promise<{ title: string; body: string }> {
  const topic = requiredParam(p, 'name');
  const view = ctx.hub.view(`topic:${topic}`, () => new TopicView(ctx, topic));
  const [route, stats, consumers] = await Promise.all([
    ctx.admin.topicRoute(topic),
    view.load(),
    ctx.admin.topicConsumers(topic).catch((err: unknown) => err as Error),
  ]);
  const f = view.fragments(stats);
  const clusters = [...new Set(route.brokers.map((b) => b.cluster))];
  const routeTable = table(
    'Route',
    [
      { label: 'Broker' },
      { label: 'Cluster' },
      { label: 'Read queues', num: true },
      { label: 'Write queues', num: true },
      { label: 'Permission', num: true },
    ],
    route.queues.map((q) => [
      esc(q.brokerName),
      esc(route.brokers.find((b) => b.brokerName === q.brokerName)?.cluster ?? ''),
      String(q.readQueueNums),
      String(q.writeQueueNums),
      String(q.perm),
    ]),
  );
  const consumerList =
    consumers instanceof Error
      ? `<p class="down">${esc(errorText(consumers))}</p>`
      : consumers.length === 0
        ? '<p class="empty">No group consumes this topic.</p>'
        : `<ul>${consumers.map((g) => `<li>${link('/group', { name: g }, g)}</li>`).join('')}</ul>`;
  const del = postForm(
    '/topics/delete',
    ctx.csrf,
    `<input type="hidden" name="topic" value="${esc(topic)}">
<p class="field"><label for="delete-cluster">Cluster</label> <select id="delete-cluster" name="cluster">${clusters.map((c) => `<option>${esc(c)}</option>`).join('')}</select></p>
${field('confirm', `Type ${topic} to confirm`, '', 'required autocomplete="off"', 'text', 'delete')}`,
    'Delete topic',
    `Delete topic ${topic}? Its messages become unreachable.`,
    'Delete this topic',
  );
  const body = `<section aria-labelledby="h-queues"><h2 id="h-queues">Queues</h2><div id="queues">${f['queues']}</div><div id="topic-chart" class="chart-box">${f['topic-chart']}</div></section>
<section aria-labelledby="h-route"><h2 id="h-route">Route</h2>${routeTable}</section>
<section aria-labelledby="h-consumers"><h2 id="h-consumers">Consumer groups</h2>${consumerList}</section>
<section aria-labelledby="h-delete"><h2 id="h-delete">Delete</h2>${del}</section>`;
  return { title: `Topic ${topic}`, body };
}
