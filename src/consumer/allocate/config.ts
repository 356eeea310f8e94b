/**
 * Java `AllocateMessageQueueByConfig` (`CONFIG`): every consumer takes the configured queues,
 * whatever the group looks like. Sharing a group then relies on each consumer's configuration.
 */
import type { MessageQueue } from '../../client/route.js';
import type { AllocateStrategy } from './types.js';

export function configStrategy(messageQueues: readonly MessageQueue[]): AllocateStrategy {
  const configured = messageQueues.map((mq) => ({
    topic: mq.topic,
    brokerName: mq.brokerName,
    queueId: mq.queueId,
  }));
  return () => configured.map((mq) => ({ ...mq }));
}
