/** The push consumer's public types: handlers, events, lag. */
import type { ClientInstanceEvents } from '../../client/instance-events.js';
import type { MessageQueue } from '../../client/route.js';
import { keyList } from '../../options.js';
import type { ConsumerMessage } from '../core/message-view.js';
import type { RebalanceEvent } from '../core/rebalance.js';

/** Resolve = consumed; throw or reject = consume later (retry). */
export type MessageHandler = (message: ConsumerMessage) => unknown;
export type BatchHandler = (messages: ConsumerMessage[]) => unknown;
export type ConsumeHandler = MessageHandler | { eachBatch: BatchHandler };

export interface QueueLag {
  topic: string;
  brokerName: string;
  queueId: number;
  /** The broker's max offset (next offset to be written). */
  brokerOffset: number;
  /** The offset this consumer committed (in memory, sent every persistConsumerOffsetInterval). */
  consumerOffset: number;
  /** Messages pulled and not yet finished. */
  inFlight: number;
  /** brokerOffset − consumerOffset. */
  lag: number;
}

export interface HandlerErrorEvent {
  error: unknown;
  /** True when the call outlived consumeTimeout. */
  timedOut: boolean;
  messages: ConsumerMessage[];
  queue: MessageQueue;
}

export interface OffsetsCommittedEvent {
  offsets: Array<{ queue: MessageQueue; offset: number }>;
}

/** A background commit of consumed offsets failed (the interval's or shutdown's); retried next interval. */
export interface CommitFailedEvent {
  error: unknown;
  /** The queues whose offsets were not confirmed (user names). */
  queues: MessageQueue[];
}

/** docs/events.md: routeUpdated, connect, disconnect come from the client instance. */
export interface PushConsumerEvents extends ClientInstanceEvents {
  rebalance: [RebalanceEvent];
  handlerError: [HandlerErrorEvent];
  offsetsCommitted: [OffsetsCommittedEvent];
  commitFailed: [CommitFailedEvent];
}

/** Every event a PushConsumer emits; docs/events.md lists the same. */
export const PUSH_CONSUMER_EVENTS = keyList<PushConsumerEvents>({
  rebalance: true,
  handlerError: true,
  offsetsCommitted: true,
  commitFailed: true,
  routeUpdated: true,
  connect: true,
  disconnect: true,
});
