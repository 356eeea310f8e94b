/**
 * Client-side flow control (docs/consumers.md §1.1, §1.3): a queue is not pulled while its cache holds
 * more than the count or size threshold, or (concurrent mode) spans more offsets than
 * consumeConcurrentlyMaxSpan. Topic thresholds, when set, are split over the queues held
 * (Java `RebalancePushImpl#messageQueueChanged`).
 */
import type { ResolvedPushConsumerOptions } from '../push/options.js';
import type { ProcessQueue } from './process-queue.js';

export interface QueueThresholds {
  count: number;
  sizeMiB: number;
}

type ThresholdOptions = Pick<
  ResolvedPushConsumerOptions,
  | 'pullThresholdForQueue'
  | 'pullThresholdSizeForQueue'
  | 'pullThresholdForTopic'
  | 'pullThresholdSizeForTopic'
>;

/** Per-queue thresholds for a topic of which `held` queues are held. */
export function queueThresholds(o: ThresholdOptions, held: number): QueueThresholds {
  const n = Math.max(1, held);
  return {
    count:
      o.pullThresholdForTopic === -1
        ? o.pullThresholdForQueue
        : Math.max(1, Math.floor(o.pullThresholdForTopic / n)),
    sizeMiB:
      o.pullThresholdSizeForTopic === -1
        ? o.pullThresholdSizeForQueue
        : Math.max(1, Math.floor(o.pullThresholdSizeForTopic / n)),
  };
}

/** Why the queue must wait, or undefined when it may be pulled. */
export function flowControlReason(
  pq: ProcessQueue,
  t: QueueThresholds,
  maxSpan: number | undefined,
): 'cached message count' | 'cached message size' | 'offset span' | undefined {
  if (pq.msgCount > t.count) return 'cached message count';
  if (pq.msgSize / (1024 * 1024) > t.sizeMiB) return 'cached message size';
  if (maxSpan !== undefined && pq.maxSpan() > maxSpan) return 'offset span';
  return undefined;
}
