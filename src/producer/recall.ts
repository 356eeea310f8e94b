/**
 * [5.x 5.3.2+] Recalling a timer message before its time (docs/producer.md §3.5), as Java 5's
 * `DefaultMQProducer.recallMessage`: the topic gets the namespace, the handle names the broker
 * that stored the message, RECALL_MESSAGE (370) goes to that broker's master (through a 5.x
 * Proxy the route gives the Proxy's address for every broker name, and the Proxy forwards by
 * `bname`). Everything that can be checked without the network is checked first.
 */
import {
  BrokerNotFoundError,
  InvalidArgumentError,
  RecallDisabledError,
  RecallRejectedError,
} from '../errors.js';
import { accessDenied, errorFromResponse } from '../client/response-error.js';
import type { ClientInstance } from '../client/client-instance.js';
import { Deadline } from '../client/deadline.js';
import { DLQ_PREFIX, RETRY_PREFIX, wrapNamespace } from '../client/namespace.js';
import { RequestCode, ResponseCode } from '../protocol/codes.js';
import { createRequest, type CommandDefaults } from '../protocol/command.js';
import { RecallMessage, RecallMessageResponse } from '../protocol/headers/recall.js';
import { decodeRecallHandle } from '../protocol/message/recall-handle.js';
import { validateTopic } from '../protocol/validation.js';
import { signalOf, throwIfAborted, type CallOptions } from '../remoting/abort.js';

/** What a recall needs of its producer. */
export interface RecallContext {
  instance: ClientInstance;
  namespace: string | undefined;
  /** The producer group, namespace applied (the broker writes it into its marker). */
  producerGroup: string;
  /** Java uses `sendMsgTimeout` for the whole call. */
  timeoutMs: number;
  commandDefaults: Readonly<CommandDefaults>;
}

/**
 * The wire topic and the decoded handle, or InvalidArgumentError: a bad topic, a retry or DLQ
 * topic (Java: "topic is not supported"), a handle Java would not decode, or a handle for another
 * topic (the broker would refuse it; the handle carries the wire topic).
 */
export function checkRecall(
  namespace: string | undefined,
  topic: unknown,
  recallHandle: unknown,
): { wireTopic: string; brokerName: string } {
  validateTopic(topic);
  if (topic.startsWith(RETRY_PREFIX) || topic.startsWith(DLQ_PREFIX))
    throw new InvalidArgumentError('topic', `${topic}: retry and DLQ topics have no recallable messages`);
  const handle = decodeRecallHandle(recallHandle);
  if (handle === undefined) {
    throw new InvalidArgumentError(
      'recallHandle',
      'recall handle is invalid (want the recallHandle of a timer send\'s SendResult: URL-safe base64 of "v1 <topic> <brokerName> <time> <msgId>")',
    );
  }
  const wireTopic = wrapNamespace(namespace, topic);
  if (handle.topic !== wireTopic) {
    throw new InvalidArgumentError('recallHandle', `is for topic ${handle.topic}, not ${wireTopic}`);
  }
  return { wireTopic, brokerName: handle.brokerName };
}

/** Resolves with the recalled message's msgId (its UNIQ_KEY). */
export async function recallMessage(
  ctx: RecallContext,
  topic: string,
  recallHandle: string,
  options?: CallOptions,
): Promise<string> {
  const signal = signalOf(options);
  const { wireTopic, brokerName } = checkRecall(ctx.namespace, topic, recallHandle);
  throwIfAborted(signal, 'recall');
  const deadline = Deadline.after(ctx.timeoutMs, Date.now, signal);
  // Java `tryToFindTopicPublishInfo`: the topic's route brings its brokers' addresses.
  await ctx.instance.routes.get(wireTopic, deadline);
  const address = ctx.instance.routes.masterAddress(brokerName);
  if (address === undefined)
    throw new BrokerNotFoundError(
      brokerName,
      `(named by the recall handle) has no master in the route of ${topic}`,
    );
  const request = createRequest(
    RequestCode.RECALL_MESSAGE,
    RecallMessage.encode({
      producerGroup: ctx.producerGroup,
      topic: wireTopic,
      recallHandle,
      bname: brokerName,
    }),
    undefined,
    ctx.commandDefaults,
  );
  const response = await ctx.instance.masterRequest(
    address,
    request,
    Math.max(1, deadline.remaining()),
    signal,
  );
  if (response.code === ResponseCode.SUCCESS) return RecallMessageResponse.decode(response.extFields).msgId;
  const denied = accessDenied(response, address, 'PUB');
  if (denied !== undefined) throw denied;
  // NO_PERMISSION without an ACL reason is the broker's "recall failed, operation is forbidden".
  if (response.code === ResponseCode.NO_PERMISSION)
    throw new RecallDisabledError(brokerName, address, response.remark);
  if (response.code === ResponseCode.ILLEGAL_OPERATION)
    throw new RecallRejectedError(topic, address, response.remark);
  throw errorFromResponse(response, {
    address,
    permission: 'PUB',
    topic,
    requestCode: RequestCode.RECALL_MESSAGE,
  });
}
