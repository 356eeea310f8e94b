/**
 * Message traces (Java mqadmin `queryMsgTraceById`): the trace messages a producer or consumer
 * with `enableMsgTrace` sent to the trace topic are keyed by the traced message's msgId, so a
 * query by that key (QUERY_MESSAGE on the trace topic) finds them; their bodies decode into Pub,
 * SubBefore and SubAfter records (protocol/trace/trace-data.ts), of which those naming the msgId
 * are kept.
 */
import { checkString } from '../options.js';
import { decodeTraceRecords, DEFAULT_TRACE_TOPIC, type TraceContext } from '../protocol/trace/trace-data.js';
import type { AdminContext } from './admin-context.js';
import { MessageNotFoundError } from '../errors.js';
import { queryMessagesByKey } from './messages.js';

/** The msgId a trace record is about. */
function tracedId(record: TraceContext): string | undefined {
  return record.type === 'Pub' ? record.msgId : record.beans[0]?.msgId;
}

/**
 * Every trace record of `msgId` in `traceTopic`, oldest first (SubAfter records carry the time
 * the handler settled). MessageNotFoundError when the trace topic holds none.
 */
export async function messageTrace(
  ctx: AdminContext,
  msgId: string,
  traceTopic: string = DEFAULT_TRACE_TOPIC,
): Promise<TraceContext[]> {
  checkString('msgId', msgId);
  let stored;
  try {
    stored = await queryMessagesByKey(ctx, traceTopic, msgId);
  } catch (err) {
    if (err instanceof MessageNotFoundError)
      throw new MessageNotFoundError(`trace of ${msgId} in ${traceTopic}`, { cause: err });
    throw err;
  }
  const records: TraceContext[] = [];
  for (const m of stored)
    for (const r of decodeTraceRecords(m.body.toString('utf8'))) if (tracedId(r) === msgId) records.push(r);
  if (records.length === 0) throw new MessageNotFoundError(`trace of ${msgId} in ${traceTopic}`);
  return records.sort((a, b) => a.timeStamp - b.timeStamp);
}
