/**
 * The shape every queue-allocation strategy shares (Java `AllocateMessageQueueStrategy`). A
 * strategy is a pure function; `allocate()` in index.ts sorts and checks its inputs first, so a
 * strategy may assume `mqAll` and `cidAll` are sorted like Java's and contain `currentCID`.
 */
import type { MessageQueue } from '../../client/route.js';

export interface AllocateContext {
  consumerGroup: string;
  /** This consumer's client id (`ip@instanceName`). */
  currentCID: string;
  /** Every queue of the topic to share out. */
  mqAll: readonly MessageQueue[];
  /** Every client id of the group, as the broker listed them. */
  cidAll: readonly string[];
}

/** The queues of `ctx.mqAll` this consumer (`ctx.currentCID`) takes. */
export type AllocateStrategy = (ctx: AllocateContext) => MessageQueue[];

/** Java's `AllocateMessageQueueStrategy#getName` values of the built-in strategies. */
export type AllocateStrategyName = 'AVG' | 'AVG_BY_CIRCLE' | 'CONSISTENT_HASH' | 'CONFIG' | 'MACHINE_ROOM';
