/**
 * END_TRANSACTION (37, oneway): commit puts the half message into its real topic, rollback drops
 * it. Either way the half message is marked resolved so the check service leaves it alone.
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { decodeProperties, encodeProperties, PropertyKey } from '../../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import { MessageSysFlag, resetTransactionValue } from '../../../protocol/message/sysflag.js';
import { SystemTopic } from '../../../protocol/validation.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { withOptionalFields } from '../../../protocol/headers/fields.js';
import { EndTransaction } from '../../../protocol/headers/transaction.js';
import { Perm } from '../../acl/permission.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';
import { putStatusToResponse } from '../message-util.js';

/** The broker finds the half message by commitLogOffset; the ids are informational. */
const EndTransactionRequest = withOptionalFields(EndTransaction, 'tranStateTableOffset', 'msgId');

export function transactionProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [[EndTransaction.code, (r) => endTransaction(ctx, r)]];
}

async function endTransaction(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const {
    producerGroup,
    commitLogOffset,
    commitOrRollback: type,
  } = requestHeader(EndTransactionRequest, request);
  if (type === MessageSysFlag.TRANSACTION_NOT_TYPE) return createResponse(request, ResponseCode.SUCCESS);
  if (type !== MessageSysFlag.TRANSACTION_COMMIT_TYPE && type !== MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `commitOrRollback ${type} is illegal`);
  }
  const ledger = ctx.transactions;
  if (ledger.isResolved(commitLogOffset)) return createResponse(request, ResponseCode.SUCCESS);
  // Two answers for one half message (a check sent again before the first answer landed) must
  // not both commit it: they run one after the other, and the later one finds it resolved.
  let chains = ending.get(ctx);
  if (chains === undefined) ending.set(ctx, (chains = new Map()));
  const previous = chains.get(commitLogOffset);
  const work = (previous ?? Promise.resolve(undefined))
    .catch(() => undefined)
    .then(() =>
      ledger.isResolved(commitLogOffset)
        ? createResponse(request, ResponseCode.SUCCESS)
        : end(ctx, request, producerGroup, commitLogOffset, type),
    );
  chains.set(commitLogOffset, work);
  try {
    return await work;
  } finally {
    if (chains.get(commitLogOffset) === work) chains.delete(commitLogOffset);
  }
}

/** END_TRANSACTIONs being applied, by half-message commit-log offset, per broker. */
const ending = new WeakMap<BrokerContext, Map<number, Promise<RemotingCommand>>>();

async function end(
  ctx: BrokerContext,
  request: RemotingCommand,
  producerGroup: string,
  commitLogOffset: number,
  type: number,
): Promise<RemotingCommand> {
  const ledger = ctx.transactions;
  const record = await ctx.store.readMessageAt(commitLogOffset);
  if (!record)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, 'Find prepared transaction message failed');
  const half = decodeStoredMessage(record).message;
  const props = decodeProperties(half.properties);
  if (half.topic !== SystemTopic.RMQ_SYS_TRANS_HALF_TOPIC) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, 'Find prepared transaction message failed');
  }
  if (props[PropertyKey.PGROUP] !== undefined && props[PropertyKey.PGROUP] !== producerGroup) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, 'The producer group wrong');
  }
  const realTopic = props[PropertyKey.REAL_TOPIC];
  // Stricter than Java (request-rules.ts): PUB on the half message's real topic, so an account
  // cannot commit or roll back another's transaction by its offset (the 4.9 header names no
  // topic). The remark does not name the topic.
  if (
    ctx.options.acl !== undefined &&
    realTopic !== undefined &&
    !ctx.aclAllows(request, realTopic, Perm.PUB)
  )
    return createResponse(
      request,
      ResponseCode.NO_PERMISSION,
      `No PUB permission on the topic of the half message at offset ${commitLogOffset}`,
    );
  if (type === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) {
    ledger.resolve(commitLogOffset);
    return createResponse(request, ResponseCode.SUCCESS);
  }
  const realQid = Number(props[PropertyKey.REAL_QID] ?? '0');
  if (realTopic === undefined)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, 'half message has no REAL_TOPIC');
  // Java endMessageTransaction: the committed copy loses the half-message routing and the
  // delay, and is stored with WAIT=false (nobody waits on this put).
  delete props[PropertyKey.TRAN_MSG];
  delete props[PropertyKey.DELAY];
  delete props[PropertyKey.REAL_TOPIC];
  delete props[PropertyKey.REAL_QID];
  props[PropertyKey.WAIT] = 'false';
  const result = await ctx.store.putMessage({
    topic: realTopic,
    queueId: Number.isInteger(realQid) ? realQid : 0,
    flag: half.flag,
    sysFlag: resetTransactionValue(half.sysFlag, MessageSysFlag.TRANSACTION_COMMIT_TYPE),
    bornTimestamp: half.bornTimestamp,
    bornHost: half.bornHost,
    storeHost: ctx.storeHost,
    reconsumeTimes: half.reconsumeTimes,
    preparedTransactionOffset: commitLogOffset,
    body: half.body,
    properties: encodeProperties(props),
  });
  if (result.status === 'PUT_OK' || result.status === 'FLUSH_DISK_TIMEOUT') {
    ledger.resolve(commitLogOffset);
    return createResponse(request, ResponseCode.SUCCESS);
  }
  const mapped = putStatusToResponse(result.status, result.error);
  return createResponse(request, mapped.code, mapped.remark);
}
