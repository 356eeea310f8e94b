/**
 * Clustering offsets kept by the broker (Java `RemoteBrokerOffsetStore`, consumer.md §1.4, §2.4):
 * an in-memory table updated as messages finish, read from the broker when a queue is taken, and
 * written back every persistConsumerOffsetInterval, on drop and on shutdown.
 *
 * Reads keep Java's distinction: −1 = the broker has no offset for the group (start per
 * consumeFromWhere), −2 = the broker could not be asked (skip the queue this round, never guess).
 * Deviation: persistence waits for the broker's answer (Java sends oneway), so shutdown knows the
 * offsets are stored before it unregisters.
 */
import { MQVersion, ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { OffsetResponse, QueryConsumerOffset, UpdateConsumerOffset } from '../../protocol/headers/offset.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import type { ConsumerClient } from '../client-port.js';
import { mqKey } from '../message-queue.js';

export const OFFSET_NOT_FOUND = -1;
export const OFFSET_READ_ERROR = -2;

export interface StoredOffset {
  offset: number;
  /**
   * The broker is older than 5.0 and answered 0, which it also does for a group it does not
   * know while message 0 is in memory (consumer.md §1.4): the 0 may mean "not found".
   */
  ambiguousZero: boolean;
}

export class RemoteBrokerOffsetStore {
  private readonly table = new Map<string, { mq: MessageQueue; offset: number }>();

  constructor(
    private readonly client: ConsumerClient,
    private readonly group: string,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** In-memory offset, −1 when none. */
  readOffset(mq: MessageQueue): number {
    return this.table.get(mqKey(mq))?.offset ?? OFFSET_NOT_FOUND;
  }

  /** QUERY_CONSUMER_OFFSET from the queue's master; caches a found offset. */
  async readOffsetFromBroker(mq: MessageQueue): Promise<StoredOffset> {
    const address = this.client.masterAddress(mq.brokerName);
    if (address === undefined) return { offset: OFFSET_READ_ERROR, ambiguousZero: false };
    try {
      const response = await this.client.request(
        address,
        createRequest(
          QueryConsumerOffset.code,
          QueryConsumerOffset.encode({
            consumerGroup: this.group,
            topic: mq.topic,
            queueId: mq.queueId,
            setZeroIfNotFound: false,
            bname: mq.brokerName,
          }),
          undefined,
          this.client.commandDefaults,
        ),
        this.timeoutMs,
      );
      if (response.code !== ResponseCode.SUCCESS) return { offset: OFFSET_NOT_FOUND, ambiguousZero: false };
      const { offset } = OffsetResponse.decode(response.extFields);
      this.updateOffset(mq, offset, false);
      return { offset, ambiguousZero: offset === 0 && response.version < MQVersion.V5_0_0 };
    } catch (err) {
      this.logger.warn('reading the consumer offset failed', { mq, error: err });
      return { offset: OFFSET_READ_ERROR, ambiguousZero: false };
    }
  }

  /** Sets the in-memory offset; with `increaseOnly` it never moves back. */
  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    const key = mqKey(mq);
    const entry = this.table.get(key);
    if (entry === undefined) this.table.set(key, { mq, offset });
    else if (!increaseOnly || offset > entry.offset) entry.offset = offset;
  }

  removeOffset(mq: MessageQueue): void {
    this.table.delete(mqKey(mq));
  }

  /** Offsets of `topic` (for RESET / running info). */
  offsets(): Array<{ mq: MessageQueue; offset: number }> {
    return [...this.table.values()];
  }

  /** UPDATE_CONSUMER_OFFSET for one queue; resolves true when the broker stored it. */
  async persist(mq: MessageQueue): Promise<boolean> {
    const entry = this.table.get(mqKey(mq));
    if (entry === undefined || entry.offset < 0) return false;
    const address = this.client.masterAddress(mq.brokerName);
    if (address === undefined) return false;
    try {
      const response = await this.client.request(
        address,
        createRequest(
          UpdateConsumerOffset.code,
          UpdateConsumerOffset.encode({
            consumerGroup: this.group,
            topic: mq.topic,
            queueId: mq.queueId,
            commitOffset: entry.offset,
            bname: mq.brokerName,
          }),
          undefined,
          this.client.commandDefaults,
        ),
        this.timeoutMs,
      );
      return response.code === ResponseCode.SUCCESS;
    } catch (err) {
      this.logger.warn('committing the consumer offset failed', { mq, error: err });
      return false;
    }
  }

  /**
   * Persists the offsets of the queues still held and forgets the others (Java `persistAll`);
   * returns the offsets the broker stored.
   */
  async persistAll(held: readonly MessageQueue[]): Promise<Array<{ mq: MessageQueue; offset: number }>> {
    const keep = new Set(held.map(mqKey));
    for (const key of [...this.table.keys()]) if (!keep.has(key)) this.table.delete(key);
    const entries = [...this.table.values()].filter((e) => e.offset >= 0);
    const done = await Promise.all(entries.map((e) => this.persist(e.mq)));
    return entries.filter((_, i) => done[i]).map((e) => ({ mq: e.mq, offset: e.offset }));
  }
}
