/**
 * Clustering offsets kept by the broker (Java `RemoteBrokerOffsetStore`, docs/consumers.md §1.4, §1.5):
 * an in-memory table updated as messages finish, read from the broker when a queue is taken, and
 * written back every persistConsumerOffsetInterval, on drop and on shutdown.
 *
 * Reads keep Java's distinction: −1 = the broker has no offset for the group (start per
 * consumeFromWhere), −2 = the broker could not be asked (skip the queue this round, never guess).
 * A pre-5.0 broker's 0 is ambiguous (docs/consumers.md §1.5): it is read as "not found" only when the
 * group has no offset at all for the topic on that broker (GET_CONSUME_STATS without a topic
 * lists the topics it has offsets for), so a group that committed 0 on an empty queue resumes
 * there after a restart instead of skipping what arrived meanwhile.
 * Deviation: persistence waits for the broker's answer (Java sends oneway), so shutdown knows the
 * offsets are stored before it unregisters.
 */
import { MQVersion, ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { parseConsumeStats } from '../../protocol/body/consumer-admin.js';
import { GetConsumeStats } from '../../protocol/headers/consumer-admin.js';
import { OffsetResponse, QueryConsumerOffset, UpdateConsumerOffset } from '../../protocol/headers/offset.js';
import { OffsetCommitError } from '../../errors.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import type { ConsumerClient } from '../core/client-port.js';
import {
  MemoryOffsetTable,
  messageQueueKey,
  OFFSET_NOT_FOUND,
  OFFSET_READ_ERROR,
  type OffsetStore,
  type ReadOffsetType,
  type StoredOffset,
} from './offset-store.js';

export class RemoteBrokerOffsetStore implements OffsetStore {
  private readonly memory = new MemoryOffsetTable();

  constructor(
    private readonly client: ConsumerClient,
    private readonly group: string,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  load(): Promise<void> {
    return Promise.resolve();
  }

  async readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<number> {
    if (type !== 'STORE') {
      const cached = this.memory.get(mq);
      if (cached !== undefined || type === 'MEMORY') return cached ?? OFFSET_NOT_FOUND;
    }
    return (await this.readStoredOffset(mq)).offset;
  }

  memoryOffset(mq: MessageQueue): number {
    return this.memory.get(mq) ?? OFFSET_NOT_FOUND;
  }

  /** QUERY_CONSUMER_OFFSET from the queue's master; caches a found offset. */
  async readStoredOffset(mq: MessageQueue): Promise<StoredOffset> {
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
            // [5.x] brokers then answer QUERY_NOT_FOUND instead of an ambiguous 0.
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
      this.memory.update(mq, offset, false);
      const ambiguousZero =
        offset === 0 &&
        response.version < MQVersion.V5_0_0 &&
        !(await this.groupHasOffsetsFor(address, mq.topic));
      return { offset, ambiguousZero };
    } catch (err) {
      this.logger.warn('reading the consumer offset failed', { mq, error: err });
      return { offset: OFFSET_READ_ERROR, ambiguousZero: false };
    }
  }

  /**
   * Whether the broker at `address` stores an offset of this group for `topic` (any queue). False
   * when it cannot say: the 0 then stays ambiguous, read as "not found" (a new group).
   */
  private async groupHasOffsetsFor(address: string, topic: string): Promise<boolean> {
    try {
      const response = await this.client.request(
        address,
        createRequest(
          GetConsumeStats.code,
          GetConsumeStats.encode({ consumerGroup: this.group }),
          undefined,
          this.client.commandDefaults,
        ),
        this.timeoutMs,
      );
      if (response.code !== ResponseCode.SUCCESS || response.body === undefined) return false;
      for (const e of parseConsumeStats(response.body).offsetTable.values())
        if (e.mq.topic === topic) return true;
      return false;
    } catch (err) {
      this.logger.warn('asking whether the group has stored offsets failed', { topic, error: err });
      return false;
    }
  }

  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.memory.update(mq, offset, increaseOnly);
  }

  removeOffset(mq: MessageQueue): void {
    this.memory.remove(mq);
  }

  /** Memory offsets (of one topic). */
  entries(topic?: string): Array<{ mq: MessageQueue; offset: number }> {
    return this.memory.entries(topic);
  }

  async persist(mq: MessageQueue): Promise<void> {
    await this.commit(mq);
  }

  /** UPDATE_CONSUMER_OFFSET for one queue; resolves true when the broker stored it. */
  async commit(mq: MessageQueue): Promise<boolean> {
    const offset = this.memory.get(mq);
    if (offset === undefined || offset < 0) return false;
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
            commitOffset: offset,
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
   * UPDATE_CONSUMER_OFFSET for several queues; resolves, per queue, whether the broker stored it.
   *
   * Per broker and topic the first update goes alone and the rest follow once it is answered: the
   * real broker's `ConsumerOffsetManager#commitOffset` creates a group's topic map with an
   * unguarded get-then-put, so concurrent first updates of one topic@group (its executor runs
   * them on several threads) can each create a map and all but the last queue's offset is lost,
   * while every update answers SUCCESS. Java's `persistAll` sends one queue after another.
   */
  async commitAll(mqs: readonly MessageQueue[]): Promise<boolean[]> {
    const groups = new Map<string, number[]>();
    for (const [i, mq] of mqs.entries()) {
      const key = `${this.client.masterAddress(mq.brokerName) ?? mq.brokerName}\u0000${mq.topic}`;
      const list = groups.get(key);
      if (list === undefined) groups.set(key, [i]);
      else list.push(i);
    }
    const ok = new Array<boolean>(mqs.length).fill(false);
    await Promise.all(
      [...groups.values()].map(async ([first, ...rest]) => {
        ok[first!] = await this.commit(mqs[first!]!);
        await Promise.all(rest.map(async (i) => (ok[i] = await this.commit(mqs[i]!))));
      }),
    );
    return ok;
  }

  /**
   * Persists the offsets of the queues still held and forgets the others (Java `persistAll`,
   * which only logs a failure): OffsetCommitError naming the queues no broker confirmed, so the
   * push consumer can report 'commitFailed'.
   */
  async persistAll(held: Iterable<MessageQueue>): Promise<void> {
    const keep = new Set([...held].map(messageQueueKey));
    for (const { mq } of this.memory.entries()) if (!keep.has(messageQueueKey(mq))) this.memory.remove(mq);
    const mqs = this.memory.entries().map((e) => e.mq);
    const ok = await this.commitAll(mqs);
    const failed = mqs.filter((_, i) => !ok[i]);
    if (failed.length > 0) throw new OffsetCommitError(failed);
  }
}
