/**
 * SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): the broker's send path
 * as in Java 4.9.7 (docs/protocol.md §3.5, §6.1, §7.5, §11).
 */
import { RequestCode, ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import {
  decodeAnySendMessageRequestHeader,
  type SendMessageRequestHeader,
} from '../../../protocol/headers/send.js';
import { encodeOffsetMsgId, HEX_PAIR_CODES } from '../../../protocol/message/message-id.js';
import { encodeRecallHandle } from '../../../protocol/message/recall-handle.js';
import { decodeProperties, encodeProperties, PropertyKey } from '../../../protocol/message/properties.js';
import {
  MessageSysFlag,
  resetTransactionValue,
  transactionValue,
} from '../../../protocol/message/sysflag.js';
import { isWriteable, PermName, TopicSysFlag } from '../../../protocol/perm.js';
import {
  checkGroup,
  checkTopic,
  DLQ_GROUP_TOPIC_PREFIX,
  isNotAllowedSendTopic,
  RETRY_GROUP_TOPIC_PREFIX,
  SystemTopic,
  TOPIC_MAX_LENGTH,
} from '../../../protocol/validation.js';
import type { Connection } from '../../../remoting/connection.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { MessageToStore, PutResult } from '../../store/types.js';
import { encodeBatchRecords, type EncodedBatch } from '../../store/batch-records.js';
import { TopicFilterType, type TopicConfig } from '../../../protocol/headers/register.js';
import type { SocketAddress } from '../../../protocol/message/stored-message.js';
import type { BrokerContext } from '../context.js';
import type { TimerPutResult } from '../timer-service.js';
import { messageTypeRefusal } from '../message-type-check.js';
import { parseSocketAddress, putStatusToResponse } from '../message-util.js';
import { placeByPriority } from '../priority.js';

const RW = PermName.PERM_READ | PermName.PERM_WRITE;
export const APPLY_TOPIC_HINT = 'http://rocketmq.apache.org/docs/faq/';

export class SendRejection {
  constructor(
    readonly code: number,
    readonly remark: string,
  ) {}
}

export function sendProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  const handler: RequestHandler = (request, conn) => processSend(ctx, request, conn);
  return [
    [RequestCode.SEND_MESSAGE, handler],
    [RequestCode.SEND_MESSAGE_V2, handler],
    [RequestCode.SEND_BATCH_MESSAGE, handler],
  ];
}

/** extFields every send response carries, so a Java client never finds them missing. */
function responseExt(ctx: BrokerContext): Record<string, string> {
  return { MSG_REGION: ctx.options.regionId, TRACE_ON: ctx.options.traceOn ? 'true' : 'false' };
}

function reply(ctx: BrokerContext, request: RemotingCommand, code: number, remark?: string): RemotingCommand {
  const response = createResponse(request, code, remark);
  response.extFields = responseExt(ctx);
  return response;
}

/** The success answer, its extFields built in one literal (the hot path of every send). */
function replyStored(
  ctx: BrokerContext,
  request: RemotingCommand,
  code: number,
  remark: string | undefined,
  msgId: string,
  queueId: number,
  queueOffset: number,
): RemotingCommand {
  const response = createResponse(request, code, remark);
  response.extFields = {
    msgId,
    queueId: String(queueId),
    queueOffset: String(queueOffset),
    MSG_REGION: ctx.options.regionId,
    TRACE_ON: ctx.options.traceOn ? 'true' : 'false',
  };
  return response;
}

interface MsgIdPrefix {
  address: string;
  port: number;
  /** Hex of the store host's IP and port: every offsetMsgId of this broker starts with it. */
  prefix: string;
}
const msgIdPrefixes = new WeakMap<BrokerContext, MsgIdPrefix>();
const ZEROS16 = '0000000000000000';

/** `encodeOffsetMsgId` with the host part computed once per broker. */
function offsetMsgId(ctx: BrokerContext, physicalOffset: number): string {
  const { address, port } = ctx.storeHost;
  if (!Number.isSafeInteger(physicalOffset) || physicalOffset < 0)
    return encodeOffsetMsgId(address, port, physicalOffset);
  let cached = msgIdPrefixes.get(ctx);
  if (cached === undefined || cached.address !== address || cached.port !== port) {
    const full = encodeOffsetMsgId(address, port, 0);
    cached = { address, port, prefix: full.slice(0, full.length - 16) };
    msgIdPrefixes.set(ctx, cached);
  }
  const hex = physicalOffset.toString(16).toUpperCase();
  return cached.prefix + ZEROS16.slice(hex.length) + hex;
}

/** The peer of a connection as a SocketAddress, parsed once per connection. */
const bornHosts = new WeakMap<Connection, SocketAddress>();
export function bornHostOf(conn: Connection): SocketAddress {
  let host = bornHosts.get(conn);
  if (host === undefined) {
    host = parseSocketAddress(conn.remoteAddress);
    bornHosts.set(conn, host);
  }
  return host;
}

/** Response codes of a send whose message is in the store. */
const STORED: ReadonlySet<number> = new Set([
  ResponseCode.SUCCESS,
  ResponseCode.FLUSH_DISK_TIMEOUT,
  ResponseCode.FLUSH_SLAVE_TIMEOUT,
  ResponseCode.SLAVE_NOT_AVAILABLE,
]);

async function processSend(
  ctx: BrokerContext,
  request: RemotingCommand,
  conn: Connection,
): Promise<RemotingCommand> {
  const header = decodeAnySendMessageRequestHeader(request.code, request.extFields);
  try {
    const batch = request.code === RequestCode.SEND_BATCH_MESSAGE;
    const isNewTopic = ctx.topics.get(header.topic) === undefined;
    const topicConfig = checkMessage(ctx, header, batch);
    if (ctx.options.enableTopicMessageTypeCheck) {
      const refused = messageTypeRefusal(topicConfig, header.properties, batch ? request.body : undefined);
      if (refused !== undefined) throw new SendRejection(ResponseCode.MESSAGE_ILLEGAL, refused);
    }
    // Java marks single messages of a MULTI_TAG topic; batches keep the client's sysFlag.
    if (!batch && topicConfig.topicFilterType === TopicFilterType.MULTI_TAG) {
      header.sysFlag |= MessageSysFlag.MULTI_TAGS_FLAG;
    }
    let queueId = header.queueId;
    if (queueId < 0) queueId = Math.floor(Math.random() * Math.max(1, topicConfig.writeQueueNums));
    // [5.4+] A priority message goes to the queue of its priority (priority.ts); batches keep theirs.
    if (!batch) queueId = placeByPriority(header, topicConfig) ?? queueId;
    const body = request.body ?? new Uint8Array(0);
    // The 5.x broker's size rule: the body as stored (compressed when the producer compressed
    // it; the whole encoded batch for SEND_BATCH_MESSAGE) against maxMessageSize. Properties
    // over 32767 bytes are the store's PROPERTIES_SIZE_EXCEEDED (docs/protocol.md §3.5).
    if (body.length > ctx.options.maxMessageSize) {
      throw new SendRejection(
        ResponseCode.MESSAGE_ILLEGAL,
        `the message body size ${body.length} is over the limit ${ctx.options.maxMessageSize}`,
      );
    }
    const response = batch
      ? await sendBatch(ctx, request, conn, header, queueId, body)
      : await sendOne(ctx, request, conn, header, queueId, body);
    // An auto-created topic joins the table only once a message is in it: a rejected send
    // changes nothing (found by the broker fuzzer; Java creates it before checking).
    if (isNewTopic && STORED.has(response.code)) ctx.topics.commitCreated(topicConfig);
    return response;
  } catch (err) {
    if (err instanceof SendRejection) return reply(ctx, request, err.code, err.remark);
    throw err;
  }
}

/** Java `AbstractSendMessageProcessor.msgCheck` (+ auto-creation): the topic config to use. */
export function checkMessage(
  ctx: BrokerContext,
  header: SendMessageRequestHeader,
  batch: boolean,
): TopicConfig {
  const { topic } = header;
  if (!isWriteable(ctx.options.brokerPermission)) {
    throw new SendRejection(
      ResponseCode.NO_PERMISSION,
      `the broker[${ctx.options.brokerIP1}] sending message is forbidden`,
    );
  }
  const problem = checkTopic(topic) ?? checkGroup(header.producerGroup, 'producerGroup');
  if (problem !== undefined) throw new SendRejection(ResponseCode.SYSTEM_ERROR, problem);
  if (isNotAllowedSendTopic(topic))
    throw new SendRejection(ResponseCode.NO_PERMISSION, `Sending message to topic[${topic}] is forbidden.`);
  if (batch && topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) {
    throw new SendRejection(
      ResponseCode.MESSAGE_ILLEGAL,
      `batch request does not support retry group ${topic}`,
    );
  }
  let config = ctx.topics.get(topic);
  if (!config) {
    const retry = topic.startsWith(RETRY_GROUP_TOPIC_PREFIX);
    let topicSysFlag = 0;
    if (header.unitMode) topicSysFlag = retry ? TopicSysFlag.FLAG_UNIT_SUB : TopicSysFlag.FLAG_UNIT;
    config = retry
      ? ctx.topics.createTopicInSendMessageBackMethod(topic, 1, RW, topicSysFlag, false)
      : ctx.topics.createTopicInSendMessageMethod(
          topic,
          header.defaultTopic,
          header.defaultTopicQueueNums,
          topicSysFlag,
          false,
        );
    if (!config) {
      throw new SendRejection(
        ResponseCode.TOPIC_NOT_EXIST,
        `topic[${topic}] not exist, apply first please! ${APPLY_TOPIC_HINT}`,
      );
    }
  }
  const maxQueues = Math.max(config.readQueueNums, config.writeQueueNums);
  if (header.queueId >= maxQueues) {
    throw new SendRejection(
      ResponseCode.SYSTEM_ERROR,
      `request queueId[${header.queueId}] is illegal, topic:${topic} topicConfig.writeQueueNums: ${config.writeQueueNums} Producer: ${header.producerGroup}`,
    );
  }
  if (!isWriteable(config.perm))
    throw new SendRejection(ResponseCode.NO_PERMISSION, `the topic[${topic}] sending message is forbidden`);
  return config;
}

/** One of the two ways a checked send is stored: a single message or a batch. */
type SendPath = (
  ctx: BrokerContext,
  request: RemotingCommand,
  conn: Connection,
  header: SendMessageRequestHeader,
  queueId: number,
  body: Uint8Array,
) => Promise<RemotingCommand>;

function answerPut(
  ctx: BrokerContext,
  request: RemotingCommand,
  results: PutResult[],
  queueId: number,
): RemotingCommand {
  const first = results[0];
  if (!first) return reply(ctx, request, ResponseCode.SYSTEM_ERROR, 'nothing stored');
  const mapped = putStatusToResponse(first.status, first.error);
  if (first.status !== 'PUT_OK' && first.status !== 'FLUSH_DISK_TIMEOUT')
    return reply(ctx, request, mapped.code, mapped.remark);
  ctx.stats.putTotal += results.length;
  let msgId = offsetMsgId(ctx, first.physicalOffset);
  for (let i = 1; i < results.length; i++) msgId += ',' + offsetMsgId(ctx, results[i]!.physicalOffset);
  return replyStored(ctx, request, mapped.code, mapped.remark, msgId, queueId, first.queueOffset);
}

/** answerPut for a stored batch: one offsetMsgId per record, comma-joined. */
function answerBatchPut(
  ctx: BrokerContext,
  request: RemotingCommand,
  result: PutResult,
  batch: EncodedBatch,
  queueId: number,
): RemotingCommand {
  const mapped = putStatusToResponse(result.status, result.error);
  if (result.status !== 'PUT_OK' && result.status !== 'FLUSH_DISK_TIMEOUT')
    return reply(ctx, request, mapped.code, mapped.remark);
  ctx.stats.putTotal += batch.count;
  const msgId = batchOffsetMsgIds(ctx, result.physicalOffset, batch);
  return replyStored(ctx, request, mapped.code, mapped.remark, msgId, queueId, result.queueOffset);
}

/** Writes `v` (uint32) as 8 upper-case hex digits at `at`. */
function setHex32(view: DataView, at: number, v: number): void {
  view.setUint16(at, HEX_PAIR_CODES[v >>> 24]!);
  view.setUint16(at + 2, HEX_PAIR_CODES[(v >>> 16) & 0xff]!);
  view.setUint16(at + 4, HEX_PAIR_CODES[(v >>> 8) & 0xff]!);
  view.setUint16(at + 6, HEX_PAIR_CODES[v & 0xff]!);
}

/** The comma-joined offsetMsgIds of a stored batch (record i at `first + starts[i]`). */
function batchOffsetMsgIds(ctx: BrokerContext, first: number, batch: EncodedBatch): string {
  return joinOffsetMsgIds(offsetMsgId(ctx, first), first, batch.starts, batch.count);
}

const IDS_SCRATCH_MAX = 64 * 1024;
let idsScratch = Buffer.allocUnsafe(4096);

/**
 * The ids of `count` records from the first one's (`firstId`, at physical offset `first`: its
 * last 16 characters are that offset in hex) and each record's start relative to it, written
 * as bytes into one buffer: one string for the batch instead of several per record. The buffer
 * is first filled with copies of `firstId,` (doubling, a few copies per batch: the host part
 * and, nearly always, the high half of the offset are the same in every id); then each id's
 * low offset digits are written, and its high ones when they differ.
 */
export function joinOffsetMsgIds(firstId: string, first: number, starts: Int32Array, count: number): string {
  const idLen = firstId.length;
  const length = count * (idLen + 1) - 1;
  // The bytes only live until toString copies them out: one scratch buffer serves every batch
  // instead of kilobytes of Buffer pool per batch (an outsized list gets a buffer of its own).
  if (idsScratch.length < length && length <= IDS_SCRATCH_MAX)
    idsScratch = Buffer.allocUnsafe(Math.min(IDS_SCRATCH_MAX, Math.max(length, 2 * idsScratch.length)));
  const out = length <= idsScratch.length ? idsScratch.subarray(0, length) : Buffer.allocUnsafe(length);
  out.write(firstId, 0, 'latin1');
  if (count > 1) out[idLen] = 0x2c; // ','
  for (let filled = idLen + 1; filled < out.length; filled *= 2) out.copyWithin(filled, 0, filled);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  // A physical offset is a non-negative safe integer: 16 hex digits of two 32-bit halves.
  const firstHi = Math.floor(first / 0x1_0000_0000);
  for (let i = 1; i < count; i++) {
    const loAt = (i + 1) * (idLen + 1) - 9;
    const offset = first + starts[i]!;
    const hi = Math.floor(offset / 0x1_0000_0000);
    if (hi !== firstHi) setHex32(view, loAt - 8, hi);
    setHex32(view, loAt, offset - hi * 0x1_0000_0000);
  }
  return out.toString('latin1');
}

const sendOne: SendPath = async (ctx, request, conn, header, queueId, body) => {
  const props = decodeProperties(header.properties ?? '');
  let topic = header.topic;
  let storeQueueId = queueId;
  let sysFlag = header.sysFlag;
  const reconsumeTimes = header.reconsumeTimes ?? 0;
  let dlq: TopicConfig | undefined;

  if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) {
    const maxReconsumeTimes = header.maxReconsumeTimes ?? ctx.options.maxReconsumeTimes;
    if (reconsumeTimes >= maxReconsumeTimes) {
      topic = DLQ_GROUP_TOPIC_PREFIX + topic.slice(RETRY_GROUP_TOPIC_PREFIX.length);
      dlq = ctx.topics.createTopicInSendMessageBackMethod(topic, 1, RW, 0, false);
      storeQueueId = 0;
    }
  }

  let half = false;
  if (
    props[PropertyKey.TRAN_MSG] === 'true' &&
    transactionValue(sysFlag) === MessageSysFlag.TRANSACTION_PREPARED_TYPE
  ) {
    if (ctx.options.rejectTransactionMessage) {
      return reply(
        ctx,
        request,
        ResponseCode.NO_PERMISSION,
        `the broker[${ctx.options.brokerIP1}] sending transaction message is forbidden`,
      );
    }
    props[PropertyKey.REAL_TOPIC] = topic;
    props[PropertyKey.REAL_QID] = String(storeQueueId);
    topic = SystemTopic.RMQ_SYS_TRANS_HALF_TOPIC;
    storeQueueId = 0;
    sysFlag = resetTransactionValue(sysFlag, MessageSysFlag.TRANSACTION_NOT_TYPE);
    half = true;
  }

  props[PropertyKey.CLUSTER] = ctx.options.brokerClusterName;
  const msg: MessageToStore = {
    topic,
    queueId: storeQueueId,
    flag: header.flag,
    sysFlag,
    bornTimestamp: header.bornTimestamp,
    bornHost: bornHostOf(conn),
    storeHost: ctx.storeHost,
    reconsumeTimes,
    preparedTransactionOffset: 0,
    body,
    // WAIT is not stored; skipped while encoding, since `delete` would slow the object down.
    properties: encodeProperties(props, PropertyKey.WAIT),
  };
  const result: TimerPutResult = half ? await ctx.store.putMessage(msg) : await ctx.putMessage(msg);
  const response = answerPut(ctx, request, [result], queueId);
  if (dlq !== undefined && STORED.has(response.code)) ctx.topics.commitCreated(dlq);
  // Java `attachRecallHandle`: a single message that went to the timer wheel, not of a retry
  // topic, gets a handle naming its real topic, this broker, TIMER_OUT_MS + 1 ("consider of
  // floor") and its UNIQ_KEY (a message without one could never be matched, so it gets none).
  const uniqKey = props[PropertyKey.UNIQ_KEY];
  if (
    result.timerOutMs !== undefined &&
    uniqKey !== undefined &&
    STORED.has(response.code) &&
    !topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)
  ) {
    (response.extFields ??= {}).recallHandle = encodeRecallHandle({
      topic,
      brokerName: ctx.options.brokerName,
      timestamp: String(result.timerOutMs + 1),
      messageId: uniqKey,
    });
  }
  return response;
};

const sendBatch: SendPath = async (ctx, request, conn, header, queueId, body) => {
  if (Buffer.byteLength(header.topic) > TOPIC_MAX_LENGTH) {
    throw new SendRejection(
      ResponseCode.MESSAGE_ILLEGAL,
      `message topic length too long ${header.topic.length}`,
    );
  }
  if (transactionValue(header.sysFlag) !== MessageSysFlag.TRANSACTION_NOT_TYPE) {
    throw new SendRejection(ResponseCode.MESSAGE_ILLEGAL, 'batch message does not support transaction');
  }
  const batchProps = decodeProperties(header.properties ?? '');
  batchProps[PropertyKey.CLUSTER] = ctx.options.brokerClusterName;
  let encoded: EncodedBatch | PutResult;
  try {
    // One pass over the body: inner records become stored records in one buffer (batch-records.ts).
    encoded = encodeBatchRecords({
      topic: header.topic,
      queueId,
      sysFlag: header.sysFlag,
      bornTimestamp: header.bornTimestamp,
      bornHost: bornHostOf(conn),
      storeHost: ctx.storeHost,
      reconsumeTimes: header.reconsumeTimes ?? 0,
      body,
      batchProperties: batchProps,
    });
  } catch (err) {
    throw new SendRejection(ResponseCode.MESSAGE_ILLEGAL, `bad batch body: ${(err as Error).message}`);
  }
  if ('status' in encoded) return answerPut(ctx, request, [encoded], queueId);
  if (encoded.count === 0) throw new SendRejection(ResponseCode.MESSAGE_ILLEGAL, 'empty batch');
  if (encoded.delayed) {
    throw new SendRejection(ResponseCode.MESSAGE_ILLEGAL, 'batch message does not support delay level');
  }
  const result = await ctx.store.putEncodedBatch(encoded);
  return answerBatchPut(ctx, request, result, encoded, queueId);
};
