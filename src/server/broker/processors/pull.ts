/**
 * PULL_MESSAGE (11) with long polling (docs/protocol.md §10.1): a pull that finds nothing and carries
 * FLAG_SUSPEND is held until a message arrives or `suspendTimeoutMillis` passes.
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { isReadable } from '../../../protocol/perm.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { BrokerContext } from '../context.js';
import { withOptionalFields, type HeaderOf } from '../../../protocol/headers/fields.js';
import { PullMessage, PullMessageResponse, PullSysFlag } from '../../../protocol/headers/pull.js';
import { requestHeader } from '../../namesrv/decode-request.js';
import { matchesTagsCode, parseSubscription, SUBSCRIBE_ALL, type Subscription } from '../tag-filter.js';
import { APPLY_TOPIC_HINT } from './send.js';

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

/** Java's answer to a non-TAG filter when `enablePropertyFilter` is off, which this broker always is. */
export function filterUnsupportedRemark(expressionType: string): string {
  return `The broker does not support consumer to filter message by ${expressionType}`;
}

/** True for a filter type this broker evaluates (TAG, or none given, which means TAG). */
export function isTagExpression(expressionType: string | undefined): boolean {
  return expressionType === undefined || expressionType === '' || expressionType === 'TAG';
}

/** The header's filter type when FLAG_SUBSCRIPTION, else the one the group registered. */
function effectiveExpressionType(ctx: BrokerContext, req: PullRequest): string | undefined {
  if ((req.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION) !== 0) return req.expressionType;
  const registered = ctx.clients.consumerGroup(req.consumerGroup)?.subscriptions.get(req.topic);
  return registered?.expressionType ?? req.expressionType;
}

/** The tag filter: the header's expression when FLAG_SUBSCRIPTION, else the group's registered one. */
function subscriptionOf(ctx: BrokerContext, req: PullRequest): Subscription {
  if ((req.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION) !== 0 && req.subscription !== undefined)
    return parseSubscription(req.subscription);
  const registered = ctx.clients.consumerGroup(req.consumerGroup)?.subscriptions.get(req.topic);
  return (
    registered?.filter ??
    (req.subscription !== undefined ? parseSubscription(req.subscription) : SUBSCRIBE_ALL)
  );
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
  const expressionType = effectiveExpressionType(ctx, req);
  if (!isTagExpression(expressionType))
    return pullResponse(request, ResponseCode.SYSTEM_ERROR, filterUnsupportedRemark(expressionType ?? ''));
  const sub = subscriptionOf(ctx, req);
  const maxNums = Math.min(req.maxMsgNums, 1024);
  const got = await ctx.store.getMessages(req.topic, req.queueId, req.queueOffset, maxNums, req.maxMsgBytes);
  const offsets = {
    nextBeginOffset: got.nextBeginOffset,
    minOffset: got.minOffset,
    maxOffset: got.maxOffset,
  };

  if ((req.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0 && allowSuspend && req.commitOffset >= 0) {
    ctx.store.consumerOffsets.set(req.consumerGroup, req.topic, req.queueId, req.commitOffset);
  }

  let code: number;
  let body: Buffer | undefined;
  switch (got.status) {
    case 'FOUND': {
      const kept: Buffer[] = [];
      got.messages.forEach((m, i) => {
        if (matchesTagsCode(sub, got.tagsCodes[i] ?? 0)) kept.push(m);
      });
      if (kept.length > 0) {
        ctx.stats.getTotal += kept.length;
        code = ResponseCode.SUCCESS;
        body = kept.length === 1 ? kept[0] : Buffer.concat(kept);
      } else code = ResponseCode.PULL_RETRY_IMMEDIATELY;
      break;
    }
    case 'NO_MESSAGE_IN_QUEUE':
      code = req.queueOffset !== 0 ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
      break;
    case 'OFFSET_FOUND_NULL':
    case 'OFFSET_OVERFLOW_ONE':
      code = ResponseCode.PULL_NOT_FOUND;
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
  return pullResponse(
    request,
    code,
    code === ResponseCode.SUCCESS ? undefined : pullRemark(got.status),
    offsets,
    body,
  );
}

function pullRemark(status: string): string {
  return status === 'FOUND' ? 'FOUND' : status;
}
