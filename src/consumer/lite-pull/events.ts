/** The lite pull consumer's events (docs/events.md): the same names and payloads as the push consumer's. */
import type { ClientInstanceEvents } from '../../client/instance-events.js';
import { keyList } from '../../options.js';
import type { RebalanceEvent } from '../core/rebalance.js';
import type { CommitFailedEvent, OffsetsCommittedEvent } from '../push/types.js';

export interface LitePullConsumerEvents extends ClientInstanceEvents {
  /** Subscribe mode: the group's rebalance changed the queues held. */
  rebalance: [RebalanceEvent];
  /** Offsets were stored: commit(), auto-commit, shutdown. */
  offsetsCommitted: [OffsetsCommittedEvent];
  /** A background commit (auto-commit, shutdown, a broker's reset) failed; commit() throws instead. */
  commitFailed: [CommitFailedEvent];
}

/** Every event a LitePullConsumer emits; docs/events.md lists the same. */
export const LITE_PULL_CONSUMER_EVENTS = keyList<LitePullConsumerEvents>({
  rebalance: true,
  offsetsCommitted: true,
  commitFailed: true,
  routeUpdated: true,
  connect: true,
  disconnect: true,
});
