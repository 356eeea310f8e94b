/**
 * mqadmin's group commands: consumerProgress, consumerConnection, producerConnection,
 * consumerStatus, resetOffsetByTime, updateSubGroup, deleteSubGroup.
 */
import { InvalidArgumentError } from '../../../errors.js';
import type { ConsumerConnections, ConsumerProgress } from '../../../admin/types.js';
import { boolWord, defineAdminCommand, intWord, need, target, timeCell } from './define.js';

export const consumerProgressCommand = defineAdminCommand({
  name: 'consumerProgress',
  summary: "A group's offsets and lag per queue (or every group's totals)",
  description: `With --group: GET_CONSUME_STATS from each broker of the group, one row per queue, then the
consume TPS, the total lag and (a POP group on the embedded broker) the messages handed out and
not acked, #Inflight, as Java 5's mqadmin shows them. Without: every subscription group with its members and total lag.`,
  flags: { group: { type: 'string', short: 'g' }, topic: { type: 'string', short: 't' } },
  docs: { group: ['G', 'consumer group'], topic: ['T', 'only this topic (with --group)'] },
  async run(admin, values) {
    if (values.group !== undefined) {
      const p = await admin.consumerProgress(values.group, values.topic);
      const table = [
        [
          '#Topic',
          '#Broker Name',
          '#QID',
          '#Broker Offset',
          '#Consumer Offset',
          '#Diff',
          '#Inflight',
          '#LastTime',
        ],
      ];
      for (const q of p.queues)
        table.push([
          q.topic,
          q.brokerName,
          String(q.queueId),
          String(q.brokerOffset),
          String(q.consumerOffset),
          String(q.lag),
          String(q.inflight),
          timeCell(q.lastTimestamp),
        ]);
      return {
        json: p,
        tables: [table],
        lines: [
          '',
          `Online members: ${p.members.map((m) => `${m.clientId} (${m.clientAddr})`).join(', ') || 'none'}`,
          `Consume TPS: ${p.consumeTps.toFixed(2)}`,
          `Diff Total: ${p.totalLag}`,
          `Consume Inflight Total: ${p.totalInflight}`,
        ],
      };
    }
    const rows: Array<{
      group: string;
      members: number;
      version: string;
      type: string;
      model: string;
      tps: number;
      lag: number;
    }> = [];
    for (const g of await admin.consumerGroups()) {
      const c: ConsumerConnections | undefined = await admin
        .consumerConnections(g.group)
        .catch(() => undefined);
      const p: ConsumerProgress | undefined = await admin.consumerProgress(g.group).catch(() => undefined);
      rows.push({
        group: g.group,
        members: c?.connections.length ?? 0,
        version: c?.connections[0] ? `V${c.connections[0].version}` : 'OFFLINE',
        type: c?.consumeType ?? '',
        model: c?.messageModel ?? '',
        tps: p?.consumeTps ?? 0,
        lag: p?.totalLag ?? 0,
      });
    }
    const table = [['#Group', '#Count', '#Version', '#Type', '#Model', '#TPS', '#Diff Total']];
    for (const r of rows)
      table.push([r.group, String(r.members), r.version, r.type, r.model, r.tps.toFixed(0), String(r.lag)]);
    return { json: rows, tables: [table] };
  },
});

export const consumerConnectionCommand = defineAdminCommand({
  name: 'consumerConnection',
  summary: "A group's online members and subscriptions",
  description: 'Sends GET_CONSUMER_CONNECTION_LIST to a broker of the group.',
  flags: { group: { type: 'string', short: 'g' } },
  docs: { group: ['G', 'consumer group (required)'] },
  async run(admin, values) {
    const c = await admin.consumerConnections(need('group', values.group));
    const members = [['#ClientId', '#ClientAddr', '#Language', '#Version']];
    for (const m of c.connections) members.push([m.clientId, m.clientAddr, m.language, String(m.version)]);
    const subs = [['#Topic', '#SubExpression']];
    for (const [topic, s] of Object.entries(c.subscriptions)) subs.push([topic, s.expression]);
    return {
      json: c,
      tables: [members, subs],
      lines: [
        '',
        `ConsumeType: ${c.consumeType}`,
        `MessageModel: ${c.messageModel}`,
        `ConsumeFromWhere: ${c.consumeFromWhere}`,
      ],
    };
  },
});

export const producerConnectionCommand = defineAdminCommand({
  name: 'producerConnection',
  summary: "A producer group's online members",
  description: "Sends GET_PRODUCER_CONNECTION_LIST to every master of the topic's route; one row per client.",
  flags: { group: { type: 'string', short: 'g' }, topic: { type: 'string', short: 't' } },
  docs: { group: ['G', 'producer group (required)'], topic: ['T', 'a topic the group sends to (required)'] },
  async run(admin, values) {
    const group = need('group', values.group);
    const connections = await admin.producerConnections(group, need('topic', values.topic));
    const table = [['#', '#ClientId', '#ClientAddr', '#Language', '#Version']];
    connections.forEach((c, i) =>
      table.push([String(i + 1).padStart(4, '0'), c.clientId, c.clientAddr, c.language, String(c.version)]),
    );
    return { json: { group, connections }, tables: [table] };
  },
});

export const consumerStatusCommand = defineAdminCommand({
  name: 'consumerStatus',
  summary: "Running info of a group's members (subscriptions, queues, consume rates)",
  description:
    'Sends GET_CONSUMER_CONNECTION_LIST, then GET_CONSUMER_RUNNING_INFO to each member (or only --client).',
  flags: { group: { type: 'string', short: 'g' }, client: { type: 'string', short: 'i' } },
  docs: { group: ['G', 'consumer group (required)'], client: ['ID', 'only this client id'] },
  async run(admin, values) {
    const group = need('group', values.group);
    const ids =
      values.client !== undefined
        ? [values.client]
        : (await admin.consumerConnections(group)).connections.map((c) => c.clientId);
    const infos = [];
    for (const clientId of ids)
      infos.push({ clientId, info: await admin.consumerRunningInfo(group, clientId) });
    const table = [['#Index', '#ClientId', '#Version', '#Queues', '#Subscriptions']];
    infos.forEach((x, i) =>
      table.push([
        String(i + 1),
        x.clientId,
        x.info.properties['PROP_CLIENT_VERSION'] ?? '',
        String(x.info.mqTable.length),
        x.info.subscriptionSet.map((s) => `${s.topic}(${s.subString})`).join(' '),
      ]),
    );
    const queues = [['#ClientId', '#Topic', '#Broker Name', '#QID', '#Commit Offset', '#Cached Msgs']];
    for (const x of infos)
      for (const [mq, pq] of x.info.mqTable)
        queues.push([
          x.clientId,
          mq.topic,
          mq.brokerName,
          String(mq.queueId),
          String(pq.commitOffset),
          String(pq.cachedMsgCount),
        ]);
    return { json: infos, tables: [table, queues] };
  },
});

/** mqadmin's `-s`: `now`, ms since the epoch, or `yyyy-MM-dd#HH:mm:ss:SSS` (local time). */
export function parseResetTime(raw: string): number {
  if (raw === 'now') return Date.now();
  if (/^-?\d+$/.test(raw)) return Number(raw);
  const m = /^(\d{4})-(\d{2})-(\d{2})#(\d{2}):(\d{2}):(\d{2}):(\d{3})$/.exec(raw);
  if (!m)
    throw new InvalidArgumentError(
      '--timestamp',
      `expected now, ms or yyyy-MM-dd#HH:mm:ss:SSS, got "${raw}"`,
    );
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return new Date(y!, mo! - 1, d!, h!, mi!, s!, ms!).getTime();
}

export const resetOffsetByTimeCommand = defineAdminCommand({
  name: 'resetOffsetByTime',
  summary: "Move a group's offsets on a topic to a point in time",
  description: `Live members get the new offsets from the brokers (INVOKE_BROKER_TO_RESET_OFFSET; needs --force true,
the default as in mqadmin); for a group without members the offsets are written directly.`,
  flags: {
    group: { type: 'string', short: 'g' },
    topic: { type: 'string', short: 't' },
    timestamp: { type: 'string', short: 's' },
    force: { type: 'string', short: 'f' },
  },
  docs: {
    group: ['G', 'consumer group (required)'],
    topic: ['T', 'topic (required)'],
    timestamp: ['TIME', 'now, ms since the epoch or yyyy-MM-dd#HH:mm:ss:SSS (required)'],
    force: ['BOOL', 'also move offsets forward and reset live members (default true)'],
  },
  async run(admin, values) {
    const group = need('group', values.group);
    const topic = need('topic', values.topic);
    const timestamp = parseResetTime(need('timestamp', values.timestamp));
    const force = boolWord('force', values.force, true);
    const result = await admin.resetOffsetByTime(group, topic, timestamp, force);
    const table = [['#brokerName', '#queueId', '#offset']];
    for (const r of result) table.push([r.brokerName, String(r.queueId), String(r.offset)]);
    return { json: result, tables: [table] };
  },
});

export const updateSubGroupCommand = defineAdminCommand({
  name: 'updateSubGroup',
  summary: 'Create or update a subscription group on a broker or every master of a cluster',
  description: `Sends UPDATE_AND_CREATE_SUBSCRIPTIONGROUP. Like mqadmin, consumeBroadcastEnable and
consumeFromMinEnable default to false here.`,
  flags: {
    group: { type: 'string', short: 'g' },
    broker: { type: 'string', short: 'b' },
    cluster: { type: 'string', short: 'c' },
    'consume-enable': { type: 'string', short: 's' },
    'from-min': { type: 'string', short: 'm' },
    broadcast: { type: 'string', short: 'd' },
    'retry-queues': { type: 'string', short: 'q' },
    'retry-max-times': { type: 'string', short: 'r' },
    'broker-id': { type: 'string', short: 'i' },
    'slow-broker-id': { type: 'string', short: 'w' },
    notify: { type: 'string', short: 'a' },
  },
  docs: {
    group: ['G', 'group name (required)'],
    broker: ['ADDR', 'this broker (host:port or name)'],
    cluster: ['C', 'every master of this cluster'],
    'consume-enable': ['BOOL', 'consumeEnable (default true)'],
    'from-min': ['BOOL', 'consumeFromMinEnable (default false)'],
    broadcast: ['BOOL', 'consumeBroadcastEnable (default false)'],
    'retry-queues': ['N', 'retryQueueNums (default 1)'],
    'retry-max-times': ['N', 'retryMaxTimes (default 16)'],
    'broker-id': ['N', 'brokerId to consume from (default 0)'],
    'slow-broker-id': ['N', 'whichBrokerWhenConsumeSlowly (default 1)'],
    notify: ['BOOL', 'notifyConsumerIdsChangedEnable (default true)'],
  },
  async run(admin, values) {
    const groupName = need('group', values.group);
    const settings = {
      groupName,
      consumeEnable: boolWord('consume-enable', values['consume-enable'], true),
      consumeFromMinEnable: boolWord('from-min', values['from-min'], false),
      consumeBroadcastEnable: boolWord('broadcast', values.broadcast, false),
      retryQueueNums: intWord('retry-queues', values['retry-queues'], 1),
      retryMaxTimes: intWord('retry-max-times', values['retry-max-times'], 16),
      brokerId: intWord('broker-id', values['broker-id'], 0),
      whichBrokerWhenConsumeSlowly: intWord('slow-broker-id', values['slow-broker-id'], 1),
      notifyConsumerIdsChangedEnable: boolWord('notify', values.notify, true),
    };
    const written = await admin.createOrUpdateSubscriptionGroup(
      settings,
      target(values.broker, values.cluster),
    );
    return {
      json: { ...settings, brokers: written },
      lines: [
        ...written.map((a) => `create subscription group to ${a} success.`),
        `SubscriptionGroupConfig [${Object.entries(settings)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(', ')}]`,
      ],
    };
  },
});

export const deleteSubGroupCommand = defineAdminCommand({
  name: 'deleteSubGroup',
  summary: 'Delete a subscription group from a broker or every master of a cluster',
  description: 'Sends DELETE_SUBSCRIPTIONGROUP; --remove-offset true also drops its consume offsets.',
  flags: {
    group: { type: 'string', short: 'g' },
    broker: { type: 'string', short: 'b' },
    cluster: { type: 'string', short: 'c' },
    'remove-offset': { type: 'string', short: 'r' },
  },
  docs: {
    group: ['G', 'group name (required)'],
    broker: ['ADDR', 'this broker (host:port or name)'],
    cluster: ['C', 'every master of this cluster'],
    'remove-offset': ['BOOL', 'also remove the offsets (default false)'],
  },
  async run(admin, values) {
    const group = need('group', values.group);
    const removeOffset = boolWord('remove-offset', values['remove-offset'], false);
    const written = await admin.deleteSubscriptionGroup(
      group,
      target(values.broker, values.cluster),
      removeOffset,
    );
    return {
      json: { group, brokers: written, removeOffset },
      lines: written.map((a) => `delete subscription group [${group}] from broker [${a}] success.`),
    };
  },
});
