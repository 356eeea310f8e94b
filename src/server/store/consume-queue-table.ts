/**
 * The store's table of open consume queues, by topic then queue id: found, created on a
 * topic/queue's first put (`consumequeue/<topic>/<queueId>`), listed, and closed all at once.
 * The queues themselves are consume-queue.ts; loading them at open is restart.ts.
 */
import { join } from 'node:path';
import { ConsumeQueue } from './consume-queue.js';
import type { StoreOptions } from './options.js';

export class ConsumeQueueTable {
  private readonly byTopic = new Map<string, Map<number, ConsumeQueue>>();

  constructor(
    private readonly options: Readonly<
      Pick<StoreOptions, 'dataDir' | 'consumeQueueEntriesPerFile' | 'testHooks'>
    >,
  ) {}

  get(topic: string, queueId: number): ConsumeQueue | undefined {
    return this.byTopic.get(topic)?.get(queueId);
  }

  /** Opens (creating its folder) the queue of `topic`/`queueId` and adds it. */
  async create(topic: string, queueId: number): Promise<ConsumeQueue> {
    const dir = join(this.options.dataDir, 'consumequeue', topic, String(queueId));
    const queue = await ConsumeQueue.open(
      dir,
      topic,
      queueId,
      this.options.consumeQueueEntriesPerFile,
      this.options.testHooks,
    );
    this.add(queue);
    return queue;
  }

  add(queue: ConsumeQueue): void {
    let byId = this.byTopic.get(queue.topic);
    if (byId === undefined) {
      byId = new Map();
      this.byTopic.set(queue.topic, byId);
    }
    byId.set(queue.queueId, queue);
  }

  all(): ConsumeQueue[] {
    const out: ConsumeQueue[] = [];
    for (const byId of this.byTopic.values()) for (const q of byId.values()) out.push(q);
    return out;
  }

  /** Closes every queue and empties the table. */
  async drop(): Promise<void> {
    for (const q of this.all()) await q.close();
    this.byTopic.clear();
  }

  /** Topics with at least one queue. */
  topics(): string[] {
    return [...this.byTopic.keys()];
  }

  /** Queue ids of `topic`, ascending. */
  queueIds(topic: string): number[] {
    return [...(this.byTopic.get(topic)?.keys() ?? [])].sort((a, b) => a - b);
  }
}
