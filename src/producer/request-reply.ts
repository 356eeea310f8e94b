/**
 * Request-reply, requester side (RIP-16; Java `DefaultMQProducerImpl#request`): `Producer.request(message,
 * timeoutMs)` sends the message with CORRELATION_ID, REPLY_TO_CLIENT (this client's id) and TTL,
 * and waits for the broker to push the responder's reply with PUSH_REPLY_MESSAGE_TO_CLIENT,
 * answered through the client instance's inbound table. Pending requests live in one
 * process-wide table by correlation id (Java `RequestFutureHolder`); every entry leaves it when
 * its reply arrives, its send fails, its timeout fires or its caller's signal aborts.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, RequestTimeoutError } from '../errors.js';
import { ResponseCode } from '../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../protocol/command.js';
import { PushReplyMessageToClient } from '../protocol/headers/reply.js';
import { appendProperty, PropertyKey } from '../protocol/message/properties.js';
import { Deadline } from '../client/deadline.js';
import type { ClientInstance } from '../client/client-instance.js';
import { wrapNamespace } from '../client/namespace.js';
import type { Message, PreparedMessage } from './message.js';
import { receivedMessage, type ReceivedMessage } from './received-message.js';
import type { SendResult } from './send-result.js';
import { raceAbort, signalOf, throwIfAborted, whenAborted, type CallOptions } from '../remoting/abort.js';

/** The reply to a request: the responder's message as the broker pushed it. */
export interface ReplyMessage extends ReceivedMessage {
  readonly correlationId: string;
  /** The request's own send result. */
  readonly request: SendResult;
}

/** What a requester needs of its producer. */
export interface Requester {
  readonly clientId: string;
  readonly options: { readonly namespace: string | undefined };
  readonly client: ClientInstance;
  sendWith(
    message: Message,
    adjust: (p: PreparedMessage) => PreparedMessage,
    options?: CallOptions,
  ): Promise<SendResult>;
}

interface Pending {
  resolve(reply: ReceivedMessage): void;
}

const pending = new Map<string, Pending>();

/** Requests waiting for a reply in this process (for tests and stats). */
export function pendingRequestCount(): number {
  return pending.size;
}

/** PUSH_REPLY_MESSAGE_TO_CLIENT: hand the reply to its waiting request; an unknown id is late or foreign. */
function onPushReply(request: RemotingCommand): RemotingCommand {
  const h = PushReplyMessageToClient.decode(request.extFields);
  const reply = receivedMessage({
    topic: h.topic,
    properties: h.properties,
    sysFlag: h.sysFlag,
    body: request.body,
    bornTimestamp: h.bornTimestamp,
    flag: h.flag,
    namespace: undefined,
  });
  const id = reply.systemProperties[PropertyKey.CORRELATION_ID];
  const waiting = id === undefined ? undefined : pending.get(id);
  if (id !== undefined && waiting !== undefined) {
    pending.delete(id);
    waiting.resolve(reply);
  }
  return createResponse(request, ResponseCode.SUCCESS);
}

/** Registers the reply handler on `client` (the same function each time: registering is idempotent). */
export function listenForReplies(client: ClientInstance): void {
  client.inbound.register(PushReplyMessageToClient.code, onPushReply);
}

export async function sendRequest(
  producer: Requester,
  message: Message,
  timeoutMs: number,
  options?: CallOptions,
): Promise<ReplyMessage> {
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new InvalidArgumentError('timeoutMs', 'must be a positive integer (milliseconds)');
  const signal = signalOf(options);
  throwIfAborted(signal, 'the request');
  const client = producer.client;
  const deadline = Deadline.after(timeoutMs);
  listenForReplies(client);
  const topic = typeof message?.topic === 'string' ? message.topic : '';
  // Java prepareSendRequest: the broker finds this client's channel by the heartbeat, so the
  // first request to a topic heartbeats every broker of its route before sending.
  const wireTopic = wrapNamespace(producer.options.namespace, topic);
  if (topic !== '' && client.routes.cached(wireTopic) === undefined) {
    await raceAbort(client.routes.get(wireTopic, deadline), signal, 'the request');
    await raceAbort(client.heartbeat.sendHeartbeatToAllBrokers(), signal, 'the request');
  }
  const correlationId = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  let dispose: (() => void) | undefined;
  const replied = new Promise<ReceivedMessage>((resolve, reject) => {
    pending.set(correlationId, { resolve });
    timer = setTimeout(() => {
      pending.delete(correlationId);
      reject(new RequestTimeoutError(topic, correlationId, timeoutMs));
    }, deadline.remaining());
    if (signal !== undefined)
      dispose = whenAborted(
        signal,
        (err) => {
          clearTimeout(timer);
          pending.delete(correlationId);
          reject(err);
        },
        'the request',
      );
  });
  // The reply can only come after the send, so a failed send settles the request by itself.
  replied.catch(() => undefined);
  try {
    const sent = await producer.sendWith(
      message,
      (p) => ({
        ...p,
        properties: appendProperty(
          appendProperty(
            appendProperty(p.properties, PropertyKey.CORRELATION_ID, correlationId),
            PropertyKey.REPLY_TO_CLIENT,
            producer.clientId,
          ),
          PropertyKey.TTL,
          String(timeoutMs),
        ),
      }),
      { signal },
    );
    const reply = await replied;
    return { ...reply, correlationId, request: sent };
  } finally {
    dispose?.();
    clearTimeout(timer);
    pending.delete(correlationId);
  }
}
