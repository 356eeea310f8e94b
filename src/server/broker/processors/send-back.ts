/**
 * CONSUMER_SEND_MSG_BACK (36): a consumer gives a message back. It goes to `%RETRY%<group>` with
 * delay level 3 + reconsumeTimes (unless the consumer chose one), or to `%DLQ%<group>` once it has
 * been retried maxReconsumeTimes times (Java `SendMessageProcessor.consumerSendMsgBack`).
 */
import { MQVersion, ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { encodeOffsetMsgId } from '../../../protocol/message/message-id.js';
import { decodeProperties, encodeProperties, PropertyKey } from '../../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../../protocol/message/stored-message.js';
import { isWriteable, PermName } from '../../../protocol/perm.js';
import { DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX } from '../../../protocol/validation.js';
import type { RequestHandler } from '../../../remoting/options.js';
import { ConsumerSendMsgBack } from '../../../protocol/headers/consumer.js';
import { requestHeader } from '../request-header.js';
import type { BrokerContext } from '../context.js';
import { putStatusToResponse } from '../message-util.js';

const RW = PermName.PERM_READ | PermName.PERM_WRITE;

export function retryProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [[ConsumerSendMsgBack.code, (r) => sendMsgBack(ctx, r)]];
}

async function sendMsgBack(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  const h = requestHeader(ConsumerSendMsgBack, request);
  const { offset, group, maxReconsumeTimes: headerMaxReconsume } = h;
  let delayLevel = h.delayLevel;

  let topic = RETRY_GROUP_TOPIC_PREFIX + group;
  // Retry and DLQ topics made here join the table only once the message is stored, so a refused
  // request changes nothing (found by the broker fuzzer; Java creates them up front).
  const retryConfig = ctx.topics.createTopicInSendMessageBackMethod(topic, 1, RW, 0, false);
  let config = retryConfig;
  if (!isWriteable(config.perm))
    return createResponse(
      request,
      ResponseCode.NO_PERMISSION,
      `the topic[${topic}] sending message is forbidden`,
    );

  const record = offset >= 0 ? await ctx.store.readMessageAt(offset) : undefined;
  if (!record)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, `look message by offset failed, ${offset}`);
  const msg = decodeStoredMessage(record).message;
  const props = decodeProperties(msg.properties);
  if (props[PropertyKey.RETRY_TOPIC] === undefined) props[PropertyKey.RETRY_TOPIC] = msg.topic;
  props[PropertyKey.WAIT] = 'false';

  const maxReconsumeTimes =
    // From V3_4_9 on the header's maxReconsumeTimes is honoured (Java consumerSendMsgBack).
    request.version >= MQVersion.V3_4_9 && headerMaxReconsume !== undefined
      ? headerMaxReconsume
      : ctx.options.maxReconsumeTimes;
  let queueId = 0;
  if (msg.reconsumeTimes >= maxReconsumeTimes || delayLevel < 0) {
    topic = DLQ_GROUP_TOPIC_PREFIX + group;
    config = ctx.topics.createTopicInSendMessageBackMethod(topic, 1, RW, 0, false);
    queueId = 0;
    delete props[PropertyKey.DELAY];
  } else {
    if (delayLevel === 0) delayLevel = 3 + msg.reconsumeTimes;
    props[PropertyKey.DELAY] = String(delayLevel);
    queueId = Math.floor(Math.random() * Math.max(1, config.writeQueueNums));
  }
  const originMsgId =
    props[PropertyKey.ORIGIN_MESSAGE_ID] ??
    h.originMsgId ??
    encodeOffsetMsgId(msg.storeHost.address, msg.storeHost.port, msg.physicalOffset);
  props[PropertyKey.ORIGIN_MESSAGE_ID] = originMsgId;
  props[PropertyKey.RECONSUME_TIME] = String(msg.reconsumeTimes + 1);

  const result = await ctx.putMessage({
    topic,
    queueId,
    flag: msg.flag,
    sysFlag: msg.sysFlag,
    bornTimestamp: msg.bornTimestamp,
    bornHost: msg.bornHost,
    storeHost: ctx.storeHost,
    reconsumeTimes: msg.reconsumeTimes + 1,
    preparedTransactionOffset: msg.preparedTransactionOffset,
    body: msg.body,
    properties: encodeProperties(props),
  });
  const mapped = putStatusToResponse(result.status, result.error);
  if (result.status === 'PUT_OK' || result.status === 'FLUSH_DISK_TIMEOUT') {
    ctx.topics.commitCreated(retryConfig);
    ctx.topics.commitCreated(config);
  }
  if (result.status === 'FLUSH_DISK_TIMEOUT') return createResponse(request, ResponseCode.SUCCESS);
  return createResponse(request, mapped.code, mapped.remark);
}
