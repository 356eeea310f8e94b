/**
 * Message look-ups: by key (12 to every broker of the topic, hash collisions dropped as
 * `MQAdminImpl#queryMessage` does), by id (33 to the store host named by an offsetMsgId, else a
 * unique-key query), a range of a queue (11 as `TOOLS_CONSUMER`, nothing committed) and resend
 * to one consumer (309, relayed by the broker).
 */
import { InvalidArgumentError, ConsumerNotOnlineError, MessageNotFoundError } from '../errors.js';
import { parseConsumeMessageDirectlyResult } from '../protocol/body/consumer-running-info.js';
import { ResponseCode } from '../protocol/codes.js';
import { ConsumeMessageDirectly } from '../protocol/headers/consumer.js';
import { buildPullSysFlag, PullMessage, PullMessageResponse } from '../protocol/headers/pull.js';
import { QueryMessage, ViewMessageById } from '../protocol/headers/query.js';
import { decompressBody } from '../protocol/message/compression.js';
import { decodeOffsetMsgId } from '../protocol/message/message-id.js';
import { decodeProperties, PropertyKey } from '../protocol/message/properties.js';
import {
  decodeStoredMessages,
  storedMessageOffsetMsgId,
  type DecodedStoredMessage,
  type SocketAddress,
} from '../protocol/message/stored-message.js';
import { MessageSysFlag } from '../protocol/message/sysflag.js';
import { checkString } from '../options.js';
import { TOOLS_CONSUMER_GROUP, type AdminContext } from './admin-context.js';
import { checkGroupName } from './consumers.js';
import { checkTopicName } from './topics.js';
import type { AdminMessage, AdminQueue, ConsumeDirectlyResult, QueueMessages } from './types.js';

/** Java's per-broker cap on QUERY_MESSAGE (`maxMsgsNumBatch`). */
const MAX_QUERY_NUM = 64;
/** Most messages one `messagesOfQueue` call reads (Java `pullBatchSize` cap). */
const MAX_PULL_NUM = 1024;

function hostText(a: SocketAddress): string {
  return a.address.includes(':') ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

function toAdminMessage(m: DecodedStoredMessage): AdminMessage {
  const properties = decodeProperties(m.properties);
  let body = m.body;
  if ((m.sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0) {
    try {
      body = decompressBody(m.body, m.sysFlag);
    } catch {
      // LZ4/ZSTD (no runtime dependency here) or a corrupt stream: shown as stored.
    }
  }
  const offsetMsgId = storedMessageOffsetMsgId(m);
  const keys = properties[PropertyKey.KEYS];
  return {
    topic: m.topic,
    msgId: properties[PropertyKey.UNIQ_KEY] ?? offsetMsgId,
    offsetMsgId,
    tags: properties[PropertyKey.TAGS],
    keys: keys ? keys.split(' ').filter((k) => k !== '') : [],
    body: Buffer.from(body),
    properties,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    commitLogOffset: m.physicalOffset,
    reconsumeTimes: m.reconsumeTimes,
    bornTimestamp: m.bornTimestamp,
    storeTimestamp: m.storeTimestamp,
    bornHost: hostText(m.bornHost),
    storeHost: hostText(m.storeHost),
    sysFlag: m.sysFlag,
  };
}

function decodeBody(body: Uint8Array | undefined): AdminMessage[] {
  if (!body || body.length === 0) return [];
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return decodeStoredMessages(buf).map(toAdminMessage);
}

/** QUERY_MESSAGE on every master of the topic; `unique` looks the key up as a UNIQ_KEY. */
async function queryIndex(
  ctx: AdminContext,
  topic: string,
  key: string,
  maxNum: number,
  begin: number,
  end: number,
  unique: boolean,
): Promise<AdminMessage[]> {
  const route = await ctx.route(topic);
  const found: AdminMessage[] = [];
  const results = await Promise.all(
    [...ctx.routeMasters(route)].map(async ([brokerName, address]) => {
      const response = await ctx.send(address, QueryMessage, {
        topic,
        key,
        maxNum,
        beginTimestamp: begin,
        endTimestamp: end,
        uniqueKeyQuery: unique,
        bname: brokerName,
      });
      if (response.code === ResponseCode.QUERY_NOT_FOUND) return [];
      if (response.code !== ResponseCode.SUCCESS) throw ctx.failure(address, QueryMessage.code, response);
      return decodeBody(response.body);
    }),
  );
  for (const list of results) found.push(...list);
  // The index is a hash: keep exact matches only (Java MQAdminImpl#queryMessage).
  return found.filter((m) => m.topic === topic && (unique ? m.msgId === key : m.keys.includes(key)));
}

/** Messages of `topic` whose KEYS contain `key`, stored in [begin, end], at most `max`, oldest first. */
export async function queryMessagesByKey(
  ctx: AdminContext,
  topic: string,
  key: string,
  max = MAX_QUERY_NUM,
  begin = 0,
  end = Number.MAX_SAFE_INTEGER,
): Promise<AdminMessage[]> {
  checkTopicName(topic);
  checkString('key', key);
  if (!Number.isInteger(max) || max < 1)
    throw new InvalidArgumentError('max', `must be an integer >= 1, got ${max}`);
  if (!Number.isSafeInteger(begin) || !Number.isSafeInteger(end) || begin > end)
    throw new InvalidArgumentError('begin', `need 0 <= begin <= end, got ${begin}…${end}`);
  const found = await queryIndex(ctx, topic, key, Math.min(max, MAX_QUERY_NUM), begin, end, false);
  if (found.length === 0) throw new MessageNotFoundError(`key ${key} in topic ${topic}`);
  found.sort((a, b) => a.storeTimestamp - b.storeTimestamp || a.commitLogOffset - b.commitLogOffset);
  return found.slice(0, max);
}

/**
 * A message by offsetMsgId (its store host must be a broker the NameServer knows), or by msgId
 * (UNIQ_KEY) within `topic`. MessageNotFoundError when neither finds it.
 */
export async function viewMessage(ctx: AdminContext, id: string, topic?: string): Promise<AdminMessage> {
  checkString('msgId', id, { pattern: /^[0-9A-Fa-f]{32}$|^[0-9A-Fa-f]{56}$/ });
  if (topic !== undefined) checkTopicName(topic);
  let decoded: { host: string; port: number; offset: number } | undefined;
  try {
    decoded = decodeOffsetMsgId(id);
  } catch {
    decoded = undefined;
  }
  if (decoded) {
    const address = decoded.host.includes(':')
      ? `[${decoded.host}]:${decoded.port}`
      : `${decoded.host}:${decoded.port}`;
    // Only brokers the NameServer lists are contacted: a UNIQ_KEY read as an offsetMsgId names
    // the producer's host, which is no broker.
    if ((await ctx.knownAddresses()).has(address)) {
      const response = await ctx.send(address, ViewMessageById, { offset: decoded.offset, topic });
      if (response.code === ResponseCode.SUCCESS) {
        const m = decodeBody(response.body)[0];
        if (m && m.offsetMsgId.toUpperCase() === id.toUpperCase()) return m;
      } else if (response.code !== ResponseCode.SYSTEM_ERROR) {
        throw ctx.failure(address, ViewMessageById.code, response);
      }
    }
  }
  if (topic !== undefined) {
    const found = await queryIndex(ctx, topic, id, MAX_QUERY_NUM, 0, Number.MAX_SAFE_INTEGER, true);
    found.sort((a, b) => a.storeTimestamp - b.storeTimestamp);
    if (found[0]) return found[0];
  }
  throw new MessageNotFoundError(
    `message id ${id}${topic ? ` in topic ${topic}` : ' (pass the topic for a msgId)'}`,
  );
}

/** Up to `count` messages of one queue from `fromOffset`, read as TOOLS_CONSUMER without committing. */
export async function messagesOfQueue(
  ctx: AdminContext,
  queue: AdminQueue,
  fromOffset: number,
  count: number,
): Promise<QueueMessages> {
  const topic = checkTopicName(queue.topic, 'queue.topic');
  checkString('queue.brokerName', queue.brokerName);
  if (!Number.isInteger(queue.queueId) || queue.queueId < 0)
    throw new InvalidArgumentError('queue.queueId', `must be an integer >= 0, got ${queue.queueId}`);
  if (!Number.isSafeInteger(fromOffset) || fromOffset < 0)
    throw new InvalidArgumentError('fromOffset', `must be an integer >= 0, got ${fromOffset}`);
  if (!Number.isInteger(count) || count < 1 || count > MAX_PULL_NUM)
    throw new InvalidArgumentError('count', `must be an integer in [1, ${MAX_PULL_NUM}], got ${count}`);
  const { address } = await ctx.brokerAddress(queue.brokerName);
  const response = await ctx.send(address, PullMessage, {
    consumerGroup: TOOLS_CONSUMER_GROUP,
    topic,
    queueId: queue.queueId,
    queueOffset: fromOffset,
    maxMsgNums: count,
    sysFlag: buildPullSysFlag(false, false, true, false),
    commitOffset: 0,
    suspendTimeoutMillis: 0,
    subscription: '*',
    subVersion: 0,
    expressionType: 'TAG',
    bname: queue.brokerName,
  });
  const ok = [
    ResponseCode.SUCCESS,
    ResponseCode.PULL_NOT_FOUND,
    ResponseCode.PULL_RETRY_IMMEDIATELY,
    ResponseCode.PULL_OFFSET_MOVED,
  ] as number[];
  if (!ok.includes(response.code)) throw ctx.failure(address, PullMessage.code, response);
  const h = PullMessageResponse.decode(response.extFields);
  const messages = response.code === ResponseCode.SUCCESS ? decodeBody(response.body) : [];
  return {
    messages: messages.filter((m) => m.queueOffset >= fromOffset).slice(0, count),
    nextOffset: h.nextBeginOffset,
    minOffset: h.minOffset,
    maxOffset: h.maxOffset,
  };
}

/** CONSUME_MESSAGE_DIRECTLY: the message's broker hands it to `clientId` of `group`, which consumes it now. */
export async function resendMessage(
  ctx: AdminContext,
  msgId: string,
  group: string,
  clientId: string,
  topic?: string,
): Promise<ConsumeDirectlyResult> {
  checkGroupName(group);
  checkString('clientId', clientId);
  const m = await viewMessage(ctx, msgId, topic);
  const address = m.storeHost;
  const response = await ctx.call(
    address,
    ConsumeMessageDirectly,
    { consumerGroup: group, clientId, msgId: m.offsetMsgId },
    undefined,
    (r) =>
      r.code === ResponseCode.SYSTEM_ERROR && /not online/.test(r.remark ?? '')
        ? new ConsumerNotOnlineError(group, clientId)
        : undefined,
  );
  const r = parseConsumeMessageDirectlyResult(response.body ?? '{}');
  return {
    consumeResult: r.consumeResult,
    order: r.order,
    autoCommit: r.autoCommit,
    remark: r.remark,
    spentTimeMillis: r.spentTimeMills,
  };
}
