/**
 * The push consumer's rebalance and pull loop, wired for lite pull (docs/consumers.md §2): no
 * orderly locks, no handler in flight, no commit offset in pulls, the consumed offset left alone
 * when a pull finds nothing, and pulled messages handed to the poll cache. Pulls go to the member
 * of the group the broker suggests (a slave while the consumer lags, the master otherwise or when
 * the slave fails), through the push consumer's PullBrokerSelection; offsets are committed apart,
 * always to the master (offset-store/remote-broker.ts).
 */
import type { MessageQueue } from '../../client/route.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import type { ConsumerScope } from '../core/client-port.js';
import { timedPulls, type ConsumeStats } from '../core/consume-stats.js';
import { queueThresholds } from '../core/flow-control.js';
import { userRebalanceEvent } from '../core/queue-names.js';
import type { LiteSubscription } from './subscriptions.js';
import type { ConsumerMessage } from '../core/message-view.js';
import type { OffsetStore } from '../offset-store/offset-store.js';
import { PullBrokerSelection } from '../core/pull-broker-selection.js';
import type { PullContext, QueueEntry } from '../core/pull-loop.js';
import { Rebalancer, type RebalanceEvent } from '../core/rebalance.js';

/** What the lite consumer supplies; the rest is the same for every lite consumer. */
export interface LiteHooks {
  offsetStore: OffsetStore;
  /** Topics to rebalance (none in assign mode). */
  topics(): string[];
  startQueue(entry: QueueEntry): void;
  /** Assign mode: the queue restarts at the broker's offset itself (no rebalance to re-add it). */
  assignMode(): boolean;
  restartQueue(mq: MessageQueue, offset: number): void;
  isRunning(): boolean;
  isPaused(mq: MessageQueue): boolean;
  /** Messages waiting for poll() in all queues exceed pullThresholdForAll. */
  overAllThreshold(): boolean;
  subscription(topic: string): LiteSubscription | undefined;
  /** When `topic` was subscribed or first assigned (a LAST_OFFSET start, start-position.ts). */
  subscribedAt?(topic: string): number | undefined;
  dispatch(entry: QueueEntry, messages: ConsumerMessage[]): void;
  later(ms: number, fn: () => void): void;
  sleep(ms: number): Promise<void>;
  /** Pull round trips and pulled counts, for GET_CONSUMER_RUNNING_INFO's pullRT / pullTPS. */
  stats: ConsumeStats;
  /** The rebalance changed the queues held (the 'rebalance' event; user names). */
  rebalanced(event: RebalanceEvent): void;
}

export function liteParts(
  scope: ConsumerScope,
  hooks: LiteHooks,
): { rebalancer: Rebalancer; pullCtx: PullContext } {
  const members = scope.client.groupMembers?.bind(scope.client);
  const pullFrom = members === undefined ? undefined : new PullBrokerSelection(members);
  const rebalancer = new Rebalancer({
    ...scope,
    offsetStore: hooks.offsetStore,
    topics: hooks.topics,
    startQueue: hooks.startQueue,
    changed: (event) => {
      for (const mq of event.removed) pullFrom?.forget(mqKey(mq));
      scope.logger.info('rebalance changed the queues held', {
        topic: event.topic,
        added: event.added.length,
        removed: event.removed.length,
      });
      hooks.rebalanced(userRebalanceEvent(event, scope.options.namespace));
      return Promise.resolve();
    },
    isConsuming: () => false,
    later: hooks.later,
    subscribedAt: hooks.subscribedAt,
  });
  const pullCtx: PullContext = {
    ...scope,
    client: timedPulls(scope.client, hooks.stats),
    lite: true,
    isRunning: hooks.isRunning,
    isPaused: hooks.isPaused,
    overAllThreshold: hooks.overAllThreshold,
    subscription: hooks.subscription,
    thresholds: () => queueThresholds(scope.options, 1),
    committedOffset: () => -1,
    // Java's lite pull leaves the consumed offset alone when a pull finds nothing.
    updateOffset: () => undefined,
    dispatch: (entry, messages) => {
      hooks.stats.recordPulled(entry.mq.topic, messages.length);
      hooks.dispatch(entry, messages);
    },
    prepareOrderly: () => Promise.resolve(true),
    offsetMoved: (entry, nextOffset) => {
      if (hooks.assignMode()) hooks.restartQueue(entry.mq, nextOffset);
      else rebalancer.offsetMoved(entry, nextOffset);
    },
    subscriptionMissing: () => undefined,
    sleep: hooks.sleep,
    ...(pullFrom === undefined ? {} : { pullFrom }),
  };
  return { rebalancer, pullCtx };
}
