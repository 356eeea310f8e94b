/** mqadmin's message look-ups: queryMsgByKey, queryMsgById (and resend with --group/--client), queryMsgByOffset, queryMsgTraceById. */
import type { AdminMessage } from '../../../admin/types.js';
import type { TraceContext } from '../../../protocol/trace/trace-data.js';
import { defineAdminCommand, intWord, need, timeCell } from './define.js';

/** mqadmin's message detail block. */
function detail(m: AdminMessage): string[] {
  const row = (k: string, v: string) => `${`${k}:`.padEnd(20)}${v}`;
  return [
    row('OffsetID', m.offsetMsgId),
    row('MsgId', m.msgId),
    row('Topic', m.topic),
    row('Tags', `[${m.tags ?? ''}]`),
    row('Keys', `[${m.keys.join(' ')}]`),
    row('Queue ID', String(m.queueId)),
    row('Queue Offset', String(m.queueOffset)),
    row('CommitLog Offset', String(m.commitLogOffset)),
    row('Reconsume Times', String(m.reconsumeTimes)),
    row('Born Timestamp', timeCell(m.bornTimestamp)),
    row('Store Timestamp', timeCell(m.storeTimestamp)),
    row('Born Host', m.bornHost),
    row('Store Host', m.storeHost),
    row('System Flag', String(m.sysFlag)),
    row('Properties', JSON.stringify(m.properties)),
    row('Message Body', m.body.toString('utf8')),
  ];
}

export const queryMsgByKeyCommand = defineAdminCommand({
  name: 'queryMsgByKey',
  summary: 'Messages of a topic with a key',
  description: 'Sends QUERY_MESSAGE to each broker of the topic; hash collisions are dropped.',
  flags: {
    topic: { type: 'string', short: 't' },
    key: { type: 'string', short: 'k' },
    max: { type: 'string' },
    begin: { type: 'string' },
    end: { type: 'string' },
  },
  docs: {
    topic: ['T', 'topic (required)'],
    key: ['K', 'message key (required)'],
    max: ['N', 'most messages (default 64)'],
    begin: ['MS', 'earliest store time, ms (default 0)'],
    end: ['MS', 'latest store time, ms (default no limit)'],
  },
  async run(admin, values) {
    const found = await admin.queryMessagesByKey(
      need('topic', values.topic),
      need('key', values.key),
      intWord('max', values.max, 64, 1, 64),
      intWord('begin', values.begin, 0),
      intWord('end', values.end, Number.MAX_SAFE_INTEGER),
    );
    const table = [['#Message ID', '#QID', '#Offset']];
    for (const m of found) table.push([m.msgId, String(m.queueId), String(m.queueOffset)]);
    return { json: found, tables: [table] };
  },
});

export const queryMsgByIdCommand = defineAdminCommand({
  name: 'queryMsgById',
  summary: 'A message by offsetMsgId (or msgId with --topic); optionally resend it to one consumer',
  description: `Sends VIEW_MESSAGE_BY_ID to the broker named in the offsetMsgId (a msgId needs --topic and is
looked up by QUERY_MESSAGE). With --group and --client, CONSUME_MESSAGE_DIRECTLY has that client consume it.`,
  flags: {
    id: { type: 'string', short: 'i' },
    topic: { type: 'string', short: 't' },
    group: { type: 'string', short: 'g' },
    client: { type: 'string', short: 'd' },
  },
  docs: {
    id: ['ID', 'offsetMsgId or msgId (required)'],
    topic: ['T', 'topic of a msgId'],
    group: ['G', 'resend to this consumer group (with --client)'],
    client: ['ID', 'resend to this client id (with --group)'],
  },
  async run(admin, values) {
    const id = need('id', values.id);
    const m = await admin.viewMessage(id, values.topic);
    if (values.group !== undefined || values.client !== undefined) {
      const r = await admin.resendMessage(
        id,
        need('group', values.group),
        need('client', values.client),
        values.topic,
      );
      return {
        json: { message: m, consumeResult: r },
        lines: [
          ...detail(m),
          '',
          `ConsumeMessageDirectlyResult: ${r.consumeResult} (${r.spentTimeMillis} ms)`,
        ],
      };
    }
    return { json: m, lines: detail(m) };
  },
});

export const queryMsgByOffsetCommand = defineAdminCommand({
  name: 'queryMsgByOffset',
  summary: 'The message at an offset of a queue',
  description: 'Sends PULL_MESSAGE as TOOLS_CONSUMER for one message (nothing is committed).',
  flags: {
    topic: { type: 'string', short: 't' },
    broker: { type: 'string', short: 'b' },
    queue: { type: 'string', short: 'i' },
    offset: { type: 'string', short: 'o' },
  },
  docs: {
    topic: ['T', 'topic (required)'],
    broker: ['NAME', 'broker name (required)'],
    queue: ['N', 'queue id (required)'],
    offset: ['N', 'queue offset (required)'],
  },
  async run(admin, values) {
    const r = await admin.messagesOfQueue(
      {
        topic: need('topic', values.topic),
        brokerName: need('broker', values.broker),
        queueId: intWord('queue', need('queue', values.queue), 0),
      },
      intWord('offset', need('offset', values.offset), 0),
      1,
    );
    const m = r.messages[0];
    if (!m)
      return {
        json: r,
        lines: [`no message at that offset (queue holds ${r.minOffset}..${r.maxOffset - 1})`],
      };
    return { json: m, lines: detail(m) };
  },
});

/** One row of queryMsgTraceById: who, where, when, how long, and the outcome. */
function traceRow(r: TraceContext): string[] {
  if (r.type === 'Pub')
    return [
      r.type,
      r.groupName,
      r.storeHost,
      timeCell(r.timeStamp),
      `${r.costTime}ms`,
      r.success ? 'success' : 'failed',
    ];
  if (r.type === 'SubBefore')
    return [r.type, r.groupName, '', timeCell(r.timeStamp), '', `retry ${r.beans[0]?.retryTimes ?? 0}`];
  return [
    r.type,
    r.groupName,
    '',
    timeCell(r.timeStamp),
    `${r.costTime}ms`,
    r.success ? 'success' : 'failed',
  ];
}

export const queryMsgTraceByIdCommand = defineAdminCommand({
  name: 'queryMsgTraceById',
  summary: "A message's trace: its sends (Pub) and consumptions (SubBefore, SubAfter)",
  description: `Sends QUERY_MESSAGE for key msgId on the trace topic, where clients with enableMsgTrace
write their trace records, and prints the records of that message, oldest first.`,
  flags: { id: { type: 'string', short: 'i' }, 'trace-topic': { type: 'string', short: 't' } },
  docs: {
    id: ['ID', 'msgId of the traced message (required)'],
    'trace-topic': ['T', 'trace topic (default RMQ_SYS_TRACE_TOPIC)'],
  },
  async run(admin, values) {
    const records = await admin.messageTrace(need('id', values.id), values['trace-topic']);
    const table = [['#Type', '#Group', '#StoreHost', '#Time', '#CostTime', '#Status']];
    for (const r of records) table.push(traceRow(r));
    return { json: records, tables: [table] };
  },
});
