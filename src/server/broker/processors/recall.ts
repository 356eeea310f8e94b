/**
 * [5.x] RECALL_MESSAGE (370) on the embedded broker, in Java `RecallMessageProcessor`'s order
 * and with its remarks (docs/protocol.md §13.4): recall off → NO_PERMISSION; unknown topic →
 * TOPIC_NOT_EXIST; a handle that does not decode, names another topic or another broker, or
 * whose time has passed or lies beyond `timerMaxDelaySec` → ILLEGAL_OPERATION. Then a marker
 * goes through the timer path (recall-markers.ts) and the answer carries the recalled msgId.
 * Java's `allowRecallWhenBrokerNotWriteable` defaults to true, so a broker without WRITE
 * still accepts recalls here (no such option).
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { decodeRequestHeader } from '../../../protocol/headers/fields.js';
import { RecallMessage, RecallMessageResponse } from '../../../protocol/headers/recall.js';
import { encodeProperties, PropertyKey } from '../../../protocol/message/properties.js';
import { decodeRecallHandle } from '../../../protocol/message/recall-handle.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { BrokerContext } from '../context.js';
import { RECALL_TAG } from '../recall-markers.js';
import { bornHostOf } from './send.js';

export function recallProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [[RecallMessage.code, (request, conn) => recall(ctx, request, conn)]];
}

function answer(
  ctx: BrokerContext,
  request: RemotingCommand,
  code: number,
  remark?: string,
): RemotingCommand {
  const response = createResponse(request, code, remark);
  response.extFields = { MSG_REGION: ctx.options.regionId };
  return response;
}

async function recall(
  ctx: BrokerContext,
  request: RemotingCommand,
  conn: Connection,
): Promise<RemotingCommand> {
  const header = decodeRequestHeader(RecallMessage, request.extFields);
  if (!ctx.options.recallMessageEnable)
    return answer(ctx, request, ResponseCode.NO_PERMISSION, 'recall failed, operation is forbidden');
  if (ctx.topics.get(header.topic) === undefined) {
    return answer(
      ctx,
      request,
      ResponseCode.TOPIC_NOT_EXIST,
      `recall failed, the topic[${header.topic}] not exist`,
    );
  }
  const handle = decodeRecallHandle(header.recallHandle);
  if (handle === undefined)
    return answer(ctx, request, ResponseCode.ILLEGAL_OPERATION, 'recall handle is invalid');
  if (handle.topic !== header.topic)
    return answer(ctx, request, ResponseCode.ILLEGAL_OPERATION, 'recall failed, topic not match');
  if (handle.brokerName !== ctx.options.brokerName) {
    return answer(
      ctx,
      request,
      ResponseCode.ILLEGAL_OPERATION,
      'recall failed, broker service not available',
    );
  }
  // Java `NumberUtils.toLong(s, -1)`: anything but a plain long is -1, so "in the past".
  const timestamp = /^[+-]?\d{1,19}$/.test(handle.timestamp) ? Number(handle.timestamp) : -1;
  const now = Date.now();
  const left = timestamp - now;
  if (left <= 0 || left >= ctx.options.timerMaxDelaySec * 1000)
    return answer(ctx, request, ResponseCode.ILLEGAL_OPERATION, 'recall failed, timestamp invalid');

  const props: Record<string, string> = {
    [PropertyKey.TAGS]: RECALL_TAG,
    // Java `buildDeleteKey` without `appendTopicForTimerDeleteKey` (its default): the UNIQ_KEY.
    [PropertyKey.TIMER_DEL_UNIQKEY]: handle.messageId,
    [PropertyKey.UNIQ_KEY]: handle.messageId,
    [PropertyKey.TIMER_DELIVER_MS]: handle.timestamp,
    [PropertyKey.BORN_TIMESTAMP]: String(now),
  };
  if (header.producerGroup !== undefined) props[PropertyKey.PGROUP] = header.producerGroup;
  const result = await ctx.putMessage({
    topic: handle.topic,
    queueId: 0,
    flag: 0,
    sysFlag: 0,
    bornTimestamp: now,
    bornHost: bornHostOf(conn),
    storeHost: ctx.storeHost,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    body: Buffer.from('0'),
    properties: encodeProperties(props),
  });
  if (result.status !== 'PUT_OK' && result.status !== 'FLUSH_DISK_TIMEOUT')
    return answer(ctx, request, ResponseCode.SYSTEM_ERROR, 'recall failed, execute error');
  const response = answer(ctx, request, ResponseCode.SUCCESS);
  Object.assign(response.extFields ?? {}, RecallMessageResponse.encode({ msgId: handle.messageId }));
  return response;
}
