/** mqadmin's topic commands: topicList, topicRoute, topicStatus, updateTopic, deleteTopic. */
import type { Admin } from '../../../admin/admin.js';
import { attributesText } from '../../../admin/topics.js';
import type { CreateTopicRequest, TopicRouteResult } from '../../../admin/types.js';
import { InvalidArgumentError } from '../../../errors.js';
import { isTopicMessageType, TOPIC_MESSAGE_TYPES } from '../../../protocol/message/message-type.js';
import { defineAdminCommand, boolWord, intWord, need, target, timeCell, type AdminOutput } from './define.js';

const PERM_TEXT: Readonly<Record<number, string>> = { 2: '-W-', 4: 'R--', 6: 'RW-' };

export const topicListCommand = defineAdminCommand({
  name: 'topicList',
  summary: 'Every topic the NameServer knows',
  description: `Sends GET_ALL_TOPIC_LIST_FROM_NAMESERVER. With --cluster-mode, also each topic's cluster, [5.x]
message type and consumer groups (a route and QUERY_TOPIC_CONSUME_BY_WHO per topic, retry and DLQ topics
left out). With --types, each topic's message type and brokers (GET_ALL_TOPIC_CONFIG from every master).`,
  flags: { 'cluster-mode': { type: 'boolean', short: 'c' }, types: { type: 'boolean' } },
  docs: {
    'cluster-mode': ['', 'print cluster, topic, message type and consumer groups'],
    types: ['', "print each topic's message type (NORMAL when untyped) and brokers"],
  },
  async run(admin, values) {
    if (values.types) {
      const entries = await admin.topicList();
      const table = [['#Topic', '#Message Type', '#Brokers']];
      for (const e of entries) table.push([e.topic, e.messageType, e.brokers.join(',')]);
      return { json: entries, tables: [table] };
    }
    const topics = await admin.topics();
    if (!values['cluster-mode']) return { json: topics, lines: topics };
    const types = new Map((await admin.topicList()).map((e) => [e.topic, e.messageType]));
    const rows: Array<{ cluster: string; topic: string; messageType: string; groups: string[] }> = [];
    for (const topic of topics) {
      if (topic.startsWith('%RETRY%') || topic.startsWith('%DLQ%')) continue;
      const route = await admin.topicRoute(topic).catch(() => undefined);
      if (!route) continue;
      const groups = await admin.topicConsumers(topic).catch(() => []);
      const cluster = route.brokers[0]?.cluster ?? '';
      rows.push({ cluster, topic, messageType: types.get(topic) ?? 'NORMAL', groups });
    }
    const table = [['#Cluster Name', '#Topic', '#Message Type', '#Consumer Group']];
    for (const r of rows)
      for (const g of r.groups.length ? r.groups : ['']) table.push([r.cluster, r.topic, r.messageType, g]);
    return { json: rows, tables: [table] };
  },
});

export const topicRouteCommand = defineAdminCommand({
  name: 'topicRoute',
  summary: "A topic's brokers and queues",
  description: 'Sends GET_ROUTEINFO_BY_TOPIC; prints the route as JSON, or as a table with --list.',
  flags: { topic: { type: 'string', short: 't' }, list: { type: 'boolean', short: 'l' } },
  docs: { topic: ['T', 'topic name (required)'], list: ['', 'print a table instead of the route JSON'] },
  async run(admin, values) {
    const route = await admin.topicRoute(need('topic', values.topic));
    if (!values.list) return { json: route, lines: [JSON.stringify(route, null, 2)] };
    return { json: route, tables: [routeTable(route)] };
  },
});

/** topicRoute --list: one row per broker's queues, then the totals. */
export function routeTable(route: TopicRouteResult): string[][] {
  const table = [['#ClusterName', '#BrokerName', '#BrokerAddrs', '#ReadQueue', '#WriteQueue', '#Perm']];
  let read = 0;
  let write = 0;
  for (const q of route.queues) {
    const b = route.brokers.find((x) => x.brokerName === q.brokerName);
    table.push([
      b?.cluster ?? '',
      q.brokerName,
      JSON.stringify(b?.addresses ?? {}),
      String(q.readQueueNums),
      String(q.writeQueueNums),
      String(q.perm),
    ]);
    read += q.readQueueNums;
    write += q.writeQueueNums;
  }
  table.push(['Total:', String(route.brokers.length), '', String(read), String(write), '']);
  return table;
}

export const topicStatusCommand = defineAdminCommand({
  name: 'topicStatus',
  summary: 'Min/max offset and last update of each queue of a topic',
  description: 'Sends GET_ROUTEINFO_BY_TOPIC, then GET_TOPIC_STATS_INFO to each broker of the route.',
  flags: { topic: { type: 'string', short: 't' } },
  docs: { topic: ['T', 'topic name (required)'] },
  async run(admin, values) {
    const stats = await admin.topicStats(need('topic', values.topic));
    const table = [['#Broker Name', '#QID', '#Min Offset', '#Max Offset', '#Last Updated']];
    for (const q of stats.queues)
      table.push([
        q.brokerName,
        String(q.queueId),
        String(q.minOffset),
        String(q.maxOffset),
        timeCell(q.lastUpdateTimestamp),
      ]);
    return { json: stats, tables: [table] };
  },
});

/** [5.x] The typed-topic flags of updateTopic and its `topic create` alias. */
export const TYPED_TOPIC_FLAGS = {
  'message-type': { type: 'string' },
  attributes: { type: 'string', short: 'a' },
} as const;

export const TYPED_TOPIC_DOCS = {
  'message-type': [
    'TYPE',
    `[5.x] the topic's message.type: ${TOPIC_MESSAGE_TYPES.join(', ')}; FIFO also makes it ordered`,
  ],
  attributes: [
    '+K=V,-K',
    '[5.x] add or replace (+key=value) and remove (-key) topic attributes, as mqadmin -a (text starting with -: --attributes=-key)',
  ],
} as const satisfies Record<keyof typeof TYPED_TOPIC_FLAGS, readonly [string, string]>;

/** --message-type and --attributes as CreateTopicRequest fields (Admin checks the attribute text). */
export function typedTopicFields(values: {
  'message-type'?: string | undefined;
  attributes?: string | undefined;
}): Pick<CreateTopicRequest, 'messageType' | 'attributes'> {
  const type = values['message-type'];
  if (type !== undefined && !isTopicMessageType(type))
    throw new InvalidArgumentError(
      '--message-type',
      `expected one of ${TOPIC_MESSAGE_TYPES.join(', ')}, got "${type}"`,
    );
  return {
    ...(type === undefined ? {} : { messageType: type }),
    ...(values.attributes === undefined ? {} : { attributes: values.attributes }),
  };
}

export const updateTopicCommand = defineAdminCommand({
  name: 'updateTopic',
  summary: 'Create or update a topic on a broker or every master of a cluster',
  description: `Sends UPDATE_AND_CREATE_TOPIC to the broker, or to every master of the cluster. [5.x] --message-type
and --attributes travel in its attributes field (+message.type=FIFO,...); a 4.x broker ignores them.`,
  flags: {
    topic: { type: 'string', short: 't' },
    broker: { type: 'string', short: 'b' },
    cluster: { type: 'string', short: 'c' },
    'read-queues': { type: 'string', short: 'r' },
    'write-queues': { type: 'string', short: 'w' },
    perm: { type: 'string', short: 'p' },
    order: { type: 'string', short: 'o' },
    ...TYPED_TOPIC_FLAGS,
  },
  docs: {
    topic: ['T', 'topic name (required)'],
    broker: ['ADDR', 'this broker (host:port or name)'],
    cluster: ['C', 'every master of this cluster'],
    'read-queues': ['N', 'read queues (default 8)'],
    'write-queues': ['N', 'write queues (default 8)'],
    perm: ['P', 'permission: 2 write, 4 read, 6 both (default 6)'],
    order: ['BOOL', 'ordered topic, true or false (default false; true with --message-type FIFO)'],
    ...TYPED_TOPIC_DOCS,
  },
  async run(admin, values) {
    const topic = need('topic', values.topic);
    const readQueues = intWord('read-queues', values['read-queues'], 8, 1, 1024);
    const writeQueues = intWord('write-queues', values['write-queues'], 8, 1, 1024);
    const perm = intWord('perm', values.perm, 6, 0, 7);
    const typed = typedTopicFields(values);
    const order = boolWord('order', values.order, typed.messageType === 'FIFO');
    const where = target(values.broker, values.cluster);
    return createTopicOutput(admin, { topic, readQueues, writeQueues, perm, order, ...typed, ...where });
  },
});

/** Admin.createTopic on every target (each cluster of `clusters`, or `request`'s), printed as mqadmin does. */
export async function createTopicOutput(
  admin: Admin,
  request: CreateTopicRequest & { readQueues: number; writeQueues: number; perm: number; order: boolean },
  clusters?: readonly string[],
): Promise<AdminOutput> {
  const { topic, readQueues, writeQueues, perm, order } = request;
  // Checked before the first request (and printed as mqadmin 5 prints the modification map).
  const attributes = attributesText(request);
  const written: string[] = [];
  if (clusters === undefined) written.push(...(await admin.createTopic(request)));
  else for (const cluster of clusters) written.push(...(await admin.createTopic({ ...request, cluster })));
  const attributesCell =
    attributes === undefined
      ? ''
      : `, attributes={${attributes
          .split(',')
          .map((a) => (a.includes('=') ? a : `${a}=`))
          .join(', ')}}`;
  const config = `TopicConfig [topicName=${topic}, readQueueNums=${readQueues}, writeQueueNums=${writeQueues}, perm=${PERM_TEXT[perm] ?? perm}, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=${order}${attributesCell}]`;
  const typed = attributes === undefined ? {} : { attributes };
  return {
    json: { topic, readQueues, writeQueues, perm, order, ...typed, brokers: written },
    lines: [...written.map((a) => `create topic to ${a} success.`), config],
  };
}

export const deleteTopicCommand = defineAdminCommand({
  name: 'deleteTopic',
  summary: 'Delete a topic from every master of a cluster and from the NameServers',
  description:
    'Sends DELETE_TOPIC_IN_BROKER to every master of the cluster, then DELETE_TOPIC_IN_NAMESRV to each NameServer.',
  flags: { topic: { type: 'string', short: 't' }, cluster: { type: 'string', short: 'c' } },
  docs: { topic: ['T', 'topic name (required)'], cluster: ['C', 'cluster name (required)'] },
  async run(admin, values) {
    const topic = need('topic', values.topic);
    const cluster = need('cluster', values.cluster);
    await admin.deleteTopic(topic, cluster);
    return {
      json: { topic, cluster, deleted: true },
      lines: [
        `delete topic [${topic}] from cluster [${cluster}] success.`,
        `delete topic [${topic}] from NameServer success.`,
      ],
    };
  },
});
