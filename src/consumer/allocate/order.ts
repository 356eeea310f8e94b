/**
 * Java's orders for rebalance inputs (`RebalanceImpl#rebalanceByTopic` sorts both lists before
 * allocating). Every consumer of a group must see the same order, or two of them take one queue.
 */
import type { MessageQueue } from '../../client/route.js';

/** Java `String#compareTo`: UTF-16 code unit order (what `<` on JS strings does), never locale order. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Java `MessageQueue#compareTo`: topic, then brokerName, then queueId. */
export function compareMessageQueue(a: MessageQueue, b: MessageQueue): number {
  return (
    compareCodeUnits(a.topic, b.topic) ||
    compareCodeUnits(a.brokerName, b.brokerName) ||
    a.queueId - b.queueId
  );
}
