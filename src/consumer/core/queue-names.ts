/**
 * Message queues between the application and the wire: applications name topics without the
 * namespace, brokers with it (`<namespace>%<topic>`). Queues coming from applications are
 * checked here, so a bad one is an InvalidArgumentError naming the field.
 */
import { InvalidArgumentError } from '../../errors.js';
import { withoutNamespace, wrapNamespace } from '../../client/namespace.js';
import type { MessageQueue } from '../../client/route.js';
import { checkInt } from '../../options.js';
import { checkTopic } from '../../protocol/validation.js';

/** The queue as the application names it. */
export function userQueue(mq: MessageQueue, namespace: string | undefined): MessageQueue {
  return { topic: withoutNamespace(mq.topic, namespace), brokerName: mq.brokerName, queueId: mq.queueId };
}

/** A rebalance as the application names it (the 'rebalance' event of both consumers). */
export function userRebalanceEvent(
  event: { topic: string; added: readonly MessageQueue[]; removed: readonly MessageQueue[] },
  namespace: string | undefined,
): { topic: string; added: MessageQueue[]; removed: MessageQueue[] } {
  return {
    topic: withoutNamespace(event.topic, namespace),
    added: event.added.map((mq) => userQueue(mq, namespace)),
    removed: event.removed.map((mq) => userQueue(mq, namespace)),
  };
}

/** An application's queue, checked, with the namespace applied. */
export function wireQueue(queue: MessageQueue, namespace: string | undefined, field = 'queue'): MessageQueue {
  if (queue === null || typeof queue !== 'object')
    throw new InvalidArgumentError(field, 'must be a { topic, brokerName, queueId } object');
  const problem = checkTopic(queue.topic, `${field}.topic`);
  if (problem !== undefined) throw new InvalidArgumentError(`${field}.topic`, problem);
  if (typeof queue.brokerName !== 'string' || queue.brokerName === '')
    throw new InvalidArgumentError(`${field}.brokerName`, 'must be a non-empty string');
  checkInt(`${field}.queueId`, queue.queueId, 0);
  return {
    topic: wrapNamespace(namespace, queue.topic),
    brokerName: queue.brokerName,
    queueId: queue.queueId,
  };
}
