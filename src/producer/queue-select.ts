/**
 * Sends to one chosen queue (Java `send(msg, mq)` and `send(msg, selector, arg)`): an explicit
 * queue, a message group (`Message.messageGroup` or the `shardingKey` option: one thing, property
 * `__SHARDINGKEY`) hashed as Java's `SelectMessageQueueByHash`, or the caller's selector.
 * The queue list is the topic's publish queues in Java's order (route.ts `publishQueues`), so a
 * Java producer and this one put one key on the same queue. Like Java's `sendSelectImpl`, a
 * selected-queue send makes one attempt and never moves to another queue: order wins over
 * availability, and a failure names the queue.
 */
import { InvalidArgumentError, MessageTypeMismatchError, QueueSendFailedError } from '../errors.js';
import { javaStringHashCode } from '../protocol/java-string-hash.js';
import { withoutNamespace } from '../client/namespace.js';
import type { MessageQueue } from '../client/route.js';
import type { TopicPublishInfo } from '../client/topic-publish-info.js';
import { checkObject, keyList, rejectUnknownKeys } from '../options.js';
import type { Message } from './message.js';
import type { CallOptions } from '../remoting/abort.js';
import { checkMessageGroup, checkOneMessageType } from './group-priority.js';

/** Picks the queue for `message` among the topic's publish queues (names as the application wrote them). */
export type QueueSelector = (queues: readonly MessageQueue[], message: Message) => MessageQueue | undefined;

/**
 * Per-send options of `Producer.send` and `sendOneway`: at most one of `queue`, `shardingKey`
 * and `selector`, and the caller's `signal` (CallOptions): an aborted send rejects with
 * AbortError, is not retried and gives back its backpressure room at once.
 */
export interface SendOptions extends CallOptions {
  /** Send to exactly this queue (its topic must be the message's topic). */
  queue?: MessageQueue | undefined;
  /**
   * Java `SelectMessageQueueByHash`: `abs(hashCode(key) % queueCount)`; one key, one queue, one
   * order. The message group by another name: the message goes out with `__SHARDINGKEY` = key and
   * the rules of `Message.messageGroup`; both given and different is an InvalidArgumentError.
   */
  shardingKey?: string | undefined;
  /** Custom choice; called once per send with the publish queues in Java's order. */
  selector?: QueueSelector | undefined;
}

const SEND_OPTION_NAMES = keyList<SendOptions>({
  queue: true,
  shardingKey: true,
  selector: true,
  signal: true,
});

/** Java `SelectMessageQueueByHash` over `queues` (non-empty). */
export function selectByHash<Q>(queues: readonly Q[], key: string): Q {
  const value = Math.abs(javaStringHashCode(key) % queues.length);
  return queues[value] as Q;
}

/** The application's view of a queue: namespace removed from the topic. */
function userQueue(mq: MessageQueue, namespace: string | undefined): MessageQueue {
  return { topic: withoutNamespace(mq.topic, namespace), brokerName: mq.brokerName, queueId: mq.queueId };
}

function checkQueue(q: unknown, field: string): MessageQueue {
  if (q === null || typeof q !== 'object')
    throw new InvalidArgumentError(field, 'must be a MessageQueue object');
  const mq = q as Partial<MessageQueue>;
  if (typeof mq.topic !== 'string' || mq.topic.length === 0)
    throw new InvalidArgumentError(`${field}.topic`, 'must be a non-empty string');
  if (typeof mq.brokerName !== 'string' || mq.brokerName.length === 0)
    throw new InvalidArgumentError(`${field}.brokerName`, 'must be a non-empty string');
  if (!Number.isInteger(mq.queueId) || (mq.queueId as number) < 0)
    throw new InvalidArgumentError(`${field}.queueId`, 'must be a non-negative integer');
  return mq as MessageQueue;
}

/**
 * A selected-queue send in progress: `pick` chooses the wire queue once the publish view is known,
 * `wrap` turns a failure into QueueSendFailedError naming that queue.
 */
export interface QueueSelection {
  pick(tp: TopicPublishInfo): MessageQueue;
  wrap(err: unknown): unknown;
}

/** The message group of `message` when it is an object with one (checked later with the message). */
function groupOf(message: Message): unknown {
  return message !== null && typeof message === 'object' ? message.messageGroup : undefined;
}

/**
 * The group a send goes out with: `message.messageGroup`, or the `shardingKey` option checked
 * as one (undefined when neither is given). The two given and different disagree on the queue.
 */
export function sendGroup(message: Message, shardingKey: unknown): string | undefined {
  const group = groupOf(message);
  if (shardingKey === undefined) return undefined;
  const key = checkMessageGroup(shardingKey, 'shardingKey');
  if (group !== undefined && group !== key)
    throw new InvalidArgumentError('shardingKey', `is "${key}", but messageGroup is "${String(group)}"`);
  if (message !== null && typeof message === 'object') checkOneMessageType(message, 'shardingKey');
  return key;
}

/**
 * Validates `options` for `message`; undefined when no queue is selected (normal send). A
 * message with `messageGroup` is a selected-queue send by the group's hash.
 */
export function queueSelection(
  options: SendOptions | undefined,
  message: Message,
  namespace: string | undefined,
): QueueSelection | undefined {
  const group = groupOf(message);
  if (options === undefined && group === undefined) return undefined;
  const o = options ?? {};
  if (options !== undefined) {
    checkObject('options', options);
    rejectUnknownKeys(options, SEND_OPTION_NAMES, 'send option');
  }
  const given = (['queue', 'shardingKey', 'selector'] as const).filter((k) => o[k] !== undefined);
  if (given.length === 0 && group === undefined) return undefined;
  if (given.length > 1)
    throw new InvalidArgumentError(given[1] as string, `cannot be combined with ${given[0] as string}`);
  const { queue, selector } = o;
  // A group picks its queue by hash, so Java producers and this one agree on it.
  if (group !== undefined && (queue !== undefined || selector !== undefined))
    throw new InvalidArgumentError(given[0] as string, 'cannot be combined with messageGroup');
  // Checked with the message when it has its own group; a string here is only hashed.
  const shardingKey = o.shardingKey !== undefined ? o.shardingKey : (group as string | undefined);
  if (queue !== undefined) {
    const mq = checkQueue(queue, 'queue');
    if (mq.topic !== message.topic)
      throw new InvalidArgumentError(
        'queue.topic',
        `is ${mq.topic}, not the message's topic ${message.topic}`,
      );
  }
  if (o.shardingKey !== undefined) sendGroup(message, o.shardingKey);
  if (selector !== undefined && typeof selector !== 'function')
    throw new InvalidArgumentError('selector', 'must be a function (queues, message) => queue');

  let chosen: MessageQueue | undefined;
  return {
    pick(tp) {
      const queues = tp.queues.map((q) => userQueue(q, namespace));
      let picked: MessageQueue;
      if (queue !== undefined) picked = queue as MessageQueue;
      else if (shardingKey !== undefined) picked = selectByHash(queues, String(shardingKey));
      else {
        let out: unknown;
        try {
          out = (selector as QueueSelector)(Object.freeze(queues), message);
        } catch (err) {
          throw new InvalidArgumentError('selector', `threw: ${(err as Error).message}`, { cause: err });
        }
        if (out === undefined || out === null)
          throw new InvalidArgumentError('selector', 'returned no queue');
        picked = checkQueue(out, 'selector result');
        if (picked.topic !== message.topic) {
          throw new InvalidArgumentError(
            'selector',
            `returned a queue of topic ${picked.topic}, not the message's topic ${message.topic}`,
          );
        }
      }
      chosen = picked;
      return { topic: tp.topic, brokerName: picked.brokerName, queueId: picked.queueId };
    },
    wrap(err) {
      // A topic's type refuses the message on every queue: the queue is not the story.
      if (
        chosen === undefined ||
        err instanceof InvalidArgumentError ||
        err instanceof MessageTypeMismatchError
      )
        return err;
      return new QueueSendFailedError(chosen, err);
    },
  };
}
