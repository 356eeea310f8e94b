/**
 * Reads a topic back for tests, through the library's own read path for tools: Admin.topicStats
 * for the queues and their offsets, Admin.messagesOfQueue for the messages (no group, no
 * committed offsets, no rebalancing). What a test uses to check what a broker stored.
 */
import { Admin } from '../src/admin/admin.js';
import type { AdminMessage } from '../src/admin/types.js';

/** One message as read back, with the broker and queue it was read from. */
export interface ReadMessage extends AdminMessage {
  readonly brokerName: string;
}

/** A readable queue of a topic, with its offsets when listed. */
export interface ReadQueue {
  readonly brokerName: string;
  readonly queueId: number;
  readonly minOffset: number;
  readonly maxOffset: number;
}

export class TopicReader {
  private readonly admin: Admin;

  constructor(
    namesrvAddr: string,
    /** Messages per messagesOfQueue call (small values exercise the paging). */
    private readonly pageSize = 32,
  ) {
    this.admin = new Admin({ namesrvAddr });
  }

  /** Every queue of `topic` on every master, sorted by broker and id. */
  async queues(topic: string): Promise<ReadQueue[]> {
    return (await this.admin.topicStats(topic)).queues.map((q) => ({
      brokerName: q.brokerName,
      queueId: q.queueId,
      minOffset: q.minOffset,
      maxOffset: q.maxOffset,
    }));
  }

  /** Reads every message of `topic`, queue after queue, from each queue's first offset to its end. */
  async *readTopic(topic: string): AsyncGenerator<ReadMessage> {
    for (const q of await this.queues(topic)) yield* this.readQueue(topic, q, q.minOffset);
  }

  /** Reads one queue from `fromOffset` to the end it has now. */
  async *readQueue(
    topic: string,
    queue: Pick<ReadQueue, 'brokerName' | 'queueId'>,
    fromOffset = 0,
  ): AsyncGenerator<ReadMessage> {
    let offset = fromOffset;
    for (;;) {
      const page = await this.admin.messagesOfQueue(
        { topic, brokerName: queue.brokerName, queueId: queue.queueId },
        offset,
        this.pageSize,
      );
      for (const m of page.messages) yield { ...m, brokerName: queue.brokerName };
      if (page.messages.length === 0 || page.nextOffset <= offset || page.nextOffset >= page.maxOffset)
        return;
      offset = page.nextOffset;
    }
  }

  close(): Promise<void> {
    return this.admin.close();
  }
}
