/**
 * Request-reply, responder side (RIP-16, Java `MessageUtil.createReplyMessage`): the reply to a request message goes to
 * `<CLUSTER>_REPLY_TOPIC` with MSG_TYPE=reply and the request's CORRELATION_ID, REPLY_TO_CLIENT
 * and TTL, as SEND_REPLY_MESSAGE_V2 (325) to the master of the broker the request came from;
 * that broker pushes it to the requester (which sent its request there, so it heartbeats it).
 */
import { InvalidArgumentError, ReplyNotPossibleError } from '../../errors.js';
import { AUTO_CREATE_DEFAULTS } from '../../client/client-options.js';
import { errorFromResponse } from '../../client/response-error.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { replyTopicOf } from '../../protocol/headers/reply.js';
import { SendReplyMessageV2 } from '../../protocol/headers/send.js';
import { encodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { checkUserProperty } from '../../protocol/validation.js';
import type { ConsumerClient } from './client-port.js';
import type { ConsumerMessage } from './message-view.js';

/** `MixAll.REPLY_MESSAGE_FLAG`. */
export const REPLY_MESSAGE_TYPE = 'reply';

export interface ReplySettings {
  /** Group named in the send header (the consumer group; brokers do not check it). */
  group: string;
  timeoutMs: number;
  /** The caller's signal (remoting/abort.ts): aborts the wait for the broker's answer. */
  signal?: AbortSignal | undefined;
}

/** Sends `body` as the reply to `request`; resolves when the broker has pushed it to the requester. */
export async function sendReply(
  client: ConsumerClient,
  s: ReplySettings,
  request: ConsumerMessage,
  body: Buffer | Uint8Array | string,
  properties: Readonly<Record<string, string>> = {},
): Promise<void> {
  const sys = request?.systemProperties;
  if (sys === undefined)
    throw new InvalidArgumentError('request', 'must be a message received by a consumer');
  const cluster = sys[PropertyKey.CLUSTER];
  const correlationId = sys[PropertyKey.CORRELATION_ID];
  const replyTo = sys[PropertyKey.REPLY_TO_CLIENT];
  if (cluster === undefined) throw new ReplyNotPossibleError('the request message has no CLUSTER property');
  if (correlationId === undefined || replyTo === undefined)
    throw new ReplyNotPossibleError('the message is not a request (no CORRELATION_ID / REPLY_TO_CLIENT)');
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (!(bytes instanceof Uint8Array))
    throw new InvalidArgumentError('body', 'must be a Buffer, Uint8Array or string');
  const props: Record<string, string> = {};
  for (const [name, value] of Object.entries(properties)) {
    const problem = typeof value === 'string' ? checkUserProperty(name, value) : 'value must be a string';
    if (problem !== undefined) throw new InvalidArgumentError(`properties.${name}`, problem);
    props[name] = value;
  }
  props[PropertyKey.MSG_TYPE] = REPLY_MESSAGE_TYPE;
  props[PropertyKey.CORRELATION_ID] = correlationId;
  props[PropertyKey.REPLY_TO_CLIENT] = replyTo;
  const ttl = sys[PropertyKey.TTL];
  if (ttl !== undefined) props[PropertyKey.TTL] = ttl;
  props[PropertyKey.WAIT] = 'true';
  const brokerName = request.queue.brokerName;
  const address = client.masterAddress(brokerName);
  if (address === undefined) throw new ReplyNotPossibleError(`no master address for broker ${brokerName}`);
  const header = SendReplyMessageV2.encode({
    producerGroup: s.group,
    topic: replyTopicOf(cluster),
    defaultTopic: AUTO_CREATE_DEFAULTS.createTopicKey,
    defaultTopicQueueNums: AUTO_CREATE_DEFAULTS.defaultTopicQueueNums,
    queueId: 0,
    sysFlag: 0,
    bornTimestamp: Date.now(),
    flag: 0,
    properties: encodeProperties(props),
    reconsumeTimes: 0,
    bname: brokerName,
  });
  const response = await client.request(
    address,
    createRequest(SendReplyMessageV2.code, header, Buffer.from(bytes), client.commandDefaults),
    s.timeoutMs,
    s.signal,
  );
  if (response.code !== ResponseCode.SUCCESS)
    throw errorFromResponse(response, { address, permission: 'PUB', requestCode: SendReplyMessageV2.code });
}
