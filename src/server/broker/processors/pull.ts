/**
 * PULL_MESSAGE (11) with long polling (docs/protocol.md §10.1): a pull that finds nothing and carries
 * FLAG_SUSPEND is held until a message arrives or `suspendTimeoutMillis` passes.
 */
import { FilterExpressionError } from '../../../errors.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { isReadable } from '../../../protocol/perm.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { BrokerContext } from '../context.js';
import { withOptionalFields, type HeaderOf } from '../../../protocol/headers/fields.js';
import { PullMessage, PullMessageResponse, PullSysFlag } from '../../../protocol/headers/pull.js';
import { requestHeader } from '../request-header.js';
import { isTagType } from '../../../protocol/filter/tags.js';
import {
  buildMessageFilter,
  MATCH_ALL,
  matchesQueueEntry,
  matchesStoredRecord,
  type MessageFilter,
} from '../message-filter.js';
import { APPLY_TOPIC_HINT } from './send.js';
import { releaseAfterWrite, releaseWriteBuffer } from '../../../remoting/write-buffer-pool.js';

/** Java clients always send these; pulls without them commit nothing and do not wait. */
const PullRequest = withOptionalFields(PullMessage, 'commitOffset', 'suspendTimeoutMillis', 'subVersion');
type PullRequest = HeaderOf<typeof PullRequest.spec> & { commitOffset: number; suspendTimeoutMillis: number };

function parsePullRequest(request: RemotingCommand): PullRequest {
  const h = requestHeader(PullRequest, request);
  return { ...h, commitOffset: h.commitOffset ?? 0, suspendTimeoutMillis: h.suspendTimeoutMillis ?? 0 };
}

export function pullProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [[PullMessage.code, (request, conn) => processPull(ctx, request, conn, true)]];
}

function pullResponse(
  request: RemotingCommand,
  code: number,
  remark: string | undefined,
  offsets?: { nextBeginOffset: number; minOffset: number; maxOffset: number },
  body?: Uint8Array,
): RemotingCommand {
  const header = offsets ? PullMessageResponse.encode({ suggestWhichBrokerId: 0, ...offsets }) : undefined;
  return createResponse(request, code, remark, header, body);
}

/** Java's answer to a non-TAG filter while `enablePropertyFilter` is off. */
export function filterUnsupportedRemark(expressionType: string): string {
  return `The broker does not support consumer to filter message by ${expressionType}`;
}

/**
 * The pull's filter (Java `PullMessageProcessor#processRequest`): with FLAG_SUBSCRIPTION the
 * header's expression (a bad one → SUBSCRIPTION_PARSE_FAILED); otherwise the one the group
 * registered by heartbeat (a SQL92 one that did not compile → FILTER_DATA_NOT_EXIST). A pull with
 * neither (no heartbeat yet) falls back to the header's expression, or everything: a deviation
 * from Java's SUBSCRIPTION_NOT_EXIST that lets tools and tests pull without registering.
 */
function filterOf(
  ctx: BrokerContext,
  req: PullRequest,
): { filter: MessageFilter; expressionType: string } | { code: number; remark: string } {
  const registered =
    (req.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION) === 0
      ? ctx.clients.consumerGroup(req.consumerGroup)?.subscriptions.get(req.topic)
      : undefined;
  if (registered) {
    if (!registered.filter)
      return {
        code: ResponseCode.FILTER_DATA_NOT_EXIST,
        remark: "The broker's consumer filter data is not exist!Your expression may be wrong!",
      };
    return { filter: registered.filter, expressionType: registered.expressionType };
  }
  if (req.subscription === undefined && isTagType(req.expressionType))
    return { filter: MATCH_ALL, expressionType: req.expressionType ?? 'TAG' };
  try {
    return {
      filter: buildMessageFilter(req.expressionType, req.subscription),
      expressionType: req.expressionType ?? 'TAG',
    };
  } catch (err) {
    if (!(err instanceof FilterExpressionError)) throw err;
    return {
      code: ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      remark: "parse the consumer's subscription failed",
    };
  }
}

async function processPull(
  ctx: BrokerContext,
  request: RemotingCommand,
  conn: Connection,
  allowSuspend: boolean,
): Promise<RemotingCommand | undefined> {
  const req = parsePullRequest(request);
  if (!isReadable(ctx.options.brokerPermission)) {
    return pullResponse(
      request,
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.options.brokerIP1}] pulling message is forbidden`,
    );
  }
  const config = ctx.topics.get(req.topic);
  if (!config) {
    return pullResponse(
      request,
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${req.topic}] not exist, apply first please! ${APPLY_TOPIC_HINT}`,
    );
  }
  if (!isReadable(config.perm))
    return pullResponse(
      request,
      ResponseCode.NO_PERMISSION,
      `the topic[${req.topic}] pulling message is forbidden`,
    );
  if (req.queueId < 0 || req.queueId >= config.readQueueNums) {
    return pullResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `queueId[${req.queueId}] is illegal, topic:[${req.topic}] topicConfig.readQueueNums:[${config.readQueueNums}] consumer:[${conn.remoteAddress}]`,
    );
  }
  if (req.maxMsgNums <= 0)
    return pullResponse(request, ResponseCode.SYSTEM_ERROR, `maxMsgNums[${req.maxMsgNums}] is illegal`);
  const chosen = filterOf(ctx, req);
  if ('code' in chosen) return pullResponse(request, chosen.code, chosen.remark);
  const { filter, expressionType } = chosen;
  if (!isTagType(expressionType) && !ctx.options.enablePropertyFilter)
    return pullResponse(request, ResponseCode.SYSTEM_ERROR, filterUnsupportedRemark(expressionType));
  // The piggybacked commit is stored before the read's await, in arrival order: stored after it,
  // it could overwrite a newer UPDATE_CONSUMER_OFFSET that arrived right behind this pull.
  if ((req.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0 && allowSuspend && req.commitOffset >= 0) {
    ctx.store.consumerOffsets.set(req.consumerGroup, req.topic, req.queueId, req.commitOffset);
  }
  const maxNums = Math.min(req.maxMsgNums, 1024);
  // The tag stage runs on consume-queue entries in the store, before any record is read.
  const got = await ctx.store.getMessages(req.topic, req.queueId, req.queueOffset, maxNums, req.maxMsgBytes, {
    matchesEntry: (tagsCode) => matchesQueueEntry(filter, tagsCode),
  });
  const offsets = {
    nextBeginOffset: got.nextBeginOffset,
    minOffset: got.minOffset,
    maxOffset: got.maxOffset,
  };

  let code: number;
  let body: Buffer | undefined;
  switch (got.status) {
    case 'FOUND': {
      // Only SQL92 has a record stage (message-filter.ts); tags were checked in the store.
      const kept =
        filter.type === 'TAG' ? got.messages : got.messages.filter((m) => matchesStoredRecord(filter, m));
      if (kept.length > 0) {
        ctx.stats.getTotal += kept.length;
        ctx.stats.noteGroupGet(req.topic, req.consumerGroup, kept.length);
        code = ResponseCode.SUCCESS;
        // Nothing filtered out: the store's buffer already holds them back to back.
        body = kept.length === got.messages.length && got.body ? got.body : Buffer.concat(kept);
      } else code = ResponseCode.PULL_RETRY_IMMEDIATELY;
      // A copied (or no) body leaves the store's buffer unread: back to the pool now.
      if (got.pooled !== undefined && body !== got.body) releaseWriteBuffer(got.pooled);
      break;
    }
    case 'NO_MESSAGE_IN_QUEUE':
      code = req.queueOffset !== 0 ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
      break;
    case 'OFFSET_FOUND_NULL':
    case 'OFFSET_OVERFLOW_ONE':
      code = ResponseCode.PULL_NOT_FOUND;
      break;
    case 'NO_MATCHED_MESSAGE':
      code = ResponseCode.PULL_RETRY_IMMEDIATELY;
      break;
    case 'OFFSET_OVERFLOW_BADLY':
    case 'OFFSET_TOO_SMALL':
      code = ResponseCode.PULL_OFFSET_MOVED;
      break;
    default:
      code = ResponseCode.PULL_NOT_FOUND;
  }

  if (
    code === ResponseCode.PULL_NOT_FOUND &&
    allowSuspend &&
    (req.sysFlag & PullSysFlag.FLAG_SUSPEND) !== 0
  ) {
    const wait = ctx.options.longPollingEnable ? req.suspendTimeoutMillis : ctx.options.shortPollingTimeMills;
    if (wait > 0) {
      await ctx.pullHold.hold(
        req.topic,
        req.queueId,
        req.queueOffset,
        wait,
        () => ctx.store.getMaxOffset(req.topic, req.queueId),
        conn,
      );
      if (ctx.stopping || conn.closed) return undefined;
      return processPull(ctx, request, conn, false);
    }
  }
  const response = pullResponse(
    request,
    code,
    code === ResponseCode.SUCCESS ? undefined : pullRemark(got.status),
    offsets,
    body,
  );
  if (body !== undefined && body === got.pooled) releaseAfterWrite(response, body);
  return response;
}

function pullRemark(status: string): string {
  return status === 'FOUND' ? 'FOUND' : status;
}
