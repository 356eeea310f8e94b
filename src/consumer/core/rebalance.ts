/**
 * Rebalance (Java `RebalanceImpl` / `RebalancePushImpl`, docs/consumers.md §1.2, §1.5): which queues
 * this client holds. Per subscribed topic: the readable queues and the group's client ids, the
 * allocation strategy, then the queue table is brought in line — dropped queues persist their
 * offset (and unlock, orderly), stalled ones are re-created, new ones get their start offset and a
 * pull loop. Rounds never overlap: a trigger during a round runs one more round after it.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { MessageQueue } from '../../client/route.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { allocate } from '../allocate/index.js';
import { consumerIdList, lockQueues, unlockQueues } from './broker-queries.js';
import type { ConsumerScope } from './client-port.js';
import type { ConsumerMessage } from './message-view.js';
import { OFFSET_READ_ERROR, type OffsetStore } from '../offset-store/offset-store.js';
import { ProcessQueue } from './process-queue.js';
import { PULL_DELAY, type QueueEntry } from './pull-loop.js';
import { startPosition, type StartPosition } from './start-position.js';

/** Java `rocketmq.client.unlockDelayTimeMills`: unlock of a queue whose batch is still running. */
export const UNLOCK_DELAY_MS = 20_000;

export interface RebalanceEvent {
  topic: string;
  added: MessageQueue[];
  removed: MessageQueue[];
}

export interface RebalanceContext extends ConsumerScope {
  readonly offsetStore: OffsetStore;
  /** Wire names of the subscribed topics (retry topic included). */
  topics(): string[];
  /** Starts the pull loop of a new queue. */
  startQueue(entry: QueueEntry): void;
  /** The queue set of a topic changed: new subVersion, heartbeat, event. */
  changed(event: RebalanceEvent): Promise<void>;
  /** Orderly: a handler call is running on the queue. */
  isConsuming(key: string): boolean;
  later(ms: number, fn: () => void): void;
  /**
   * When the consumer subscribed `topic` (client clock, ms), where a LAST_OFFSET start without a
   * stored offset begins (start-position.ts); undefined: when this Rebalancer was made (start()).
   */
  subscribedAt?(topic: string): number | undefined;
  /**
   * `clientRebalance: false` (push/pop/assignment.ts): the broker's assignment of `topic`, the
   * PULL-mode queues returned (the POP-mode ones are consumed there); undefined = keep what is held.
   */
  brokerAssignment?(topic: string): Promise<MessageQueue[] | undefined>;
}

export class Rebalancer {
  readonly table = new Map<string, QueueEntry>();
  private round: Promise<void> | undefined;
  private again = false;
  private readonly createdAt = Date.now();

  constructor(private readonly ctx: RebalanceContext) {}

  /** Runs a rebalance round now (or right after the running one). */
  trigger(): Promise<void> {
    if (this.round !== undefined) {
      this.again = true;
      return this.round;
    }
    this.round = (async () => {
      do {
        this.again = false;
        for (const topic of this.ctx.topics()) {
          try {
            await this.rebalanceTopic(topic);
          } catch (err) {
            // The retry topic has no route until the broker registered it after our heartbeat.
            const log = topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)
              ? this.ctx.logger.debug
              : this.ctx.logger.warn;
            log.call(this.ctx.logger, 'rebalance of a topic failed', { topic, error: err });
          }
        }
      } while (this.again);
    })().finally(() => {
      this.round = undefined;
    });
    return this.round;
  }

  heldQueues(): MessageQueue[] {
    return [...this.table.values()].map((e) => e.mq);
  }

  private async rebalanceTopic(topic: string): Promise<void> {
    const { client, options, clustering, group, logger } = this.ctx;
    if (this.ctx.brokerAssignment !== undefined) {
      const pull = await this.ctx.brokerAssignment(topic);
      if (pull !== undefined) await this.updateTable(topic, pull);
      return;
    }
    const mqAll = await client.subscribeQueues(topic);
    let mine: MessageQueue[];
    if (!clustering) mine = [...mqAll];
    else {
      if (mqAll.length === 0) return;
      const cidAll = await this.consumerIds(mqAll);
      if (cidAll === undefined || cidAll.length === 0) {
        logger.warn('no consumer list for the group; rebalance of the topic skipped', { topic });
        return;
      }
      try {
        mine = allocate(
          options.allocate,
          { consumerGroup: group, currentCID: client.clientId, mqAll, cidAll },
          logger,
        );
      } catch (err) {
        if (err instanceof InvalidArgumentError) return;
        throw err;
      }
    }
    await this.updateTable(topic, mine);
  }

  /** GET_CONSUMER_LIST_BY_GROUP from a broker of the topic (random first, then the others). */
  private async consumerIds(mqAll: readonly MessageQueue[]): Promise<string[] | undefined> {
    const names = [...new Set(mqAll.map((mq) => mq.brokerName))];
    const start = Math.floor(Math.random() * names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[(start + i) % names.length]!;
      try {
        const ids = await consumerIdList(
          this.ctx.client,
          name,
          this.ctx.group,
          this.ctx.options.mqClientApiTimeout,
        );
        if (ids !== undefined) return ids;
      } catch (err) {
        this.ctx.logger.debug('consumer list query failed', { brokerName: name, error: err });
      }
    }
    return undefined;
  }

  private async updateTable(topic: string, mine: readonly MessageQueue[]): Promise<void> {
    const ctx = this.ctx;
    const wanted = new Map(mine.map((mq) => [mqKey(mq), mq]));
    const removed: MessageQueue[] = [];
    const added: MessageQueue[] = [];
    for (const [key, entry] of [...this.table]) {
      if (entry.mq.topic !== topic) continue;
      const stalled = entry.pq.isPullExpired(ctx.options.pullMaxIdleTime);
      if (wanted.has(key) && !stalled) continue;
      if (stalled && wanted.has(key))
        ctx.logger.warn('queue pull stalled; re-creating it', {
          mq: entry.mq,
          idleMs: Date.now() - entry.pq.lastPullTimestamp,
        });
      await this.remove(entry);
      if (!wanted.has(key)) removed.push(entry.mq);
    }
    const fresh = mine.filter((mq) => !this.table.has(mqKey(mq)));
    // Java skips a new orderly queue it could not lock; the next round tries again.
    const locks = ctx.orderly && ctx.clustering && fresh.length > 0 ? await this.lockFresh(fresh) : undefined;
    const entries: QueueEntry[] = [];
    for (const mq of fresh) {
      const key = mqKey(mq);
      const lockedAt = locks?.get(key);
      if (this.table.has(key) || (locks !== undefined && lockedAt === undefined)) continue;
      ctx.offsetStore.removeOffset(mq);
      const start = await this.startPosition(mq);
      if (start === undefined) continue;
      const pq = new ProcessQueue<ConsumerMessage>();
      if (lockedAt !== undefined) {
        pq.locked = true;
        pq.lastLockTimestamp = lockedAt;
      }
      const entry: QueueEntry = { key, mq, pq, nextOffset: start.offset, notBefore: start.notBefore };
      this.table.set(key, entry);
      entries.push(entry);
      added.push(mq);
    }
    if (added.length > 0 || removed.length > 0) await ctx.changed({ topic, added, removed });
    for (const e of entries) if (!e.pq.dropped) ctx.startQueue(e);
  }

  /** LOCK_BATCH_MQ for fresh orderly queues; returns key → lock time of those granted. */
  private async lockFresh(mqs: readonly MessageQueue[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [brokerName, group] of byBroker(mqs)) {
      try {
        const granted = await lockQueues(
          this.ctx.client,
          brokerName,
          this.ctx.group,
          group,
          this.ctx.options.mqClientApiTimeout,
        );
        const now = Date.now();
        for (const mq of granted) out.set(mqKey(mq), now);
      } catch (err) {
        this.ctx.logger.warn('locking queues failed', { brokerName, error: err });
      }
    }
    return out;
  }

  /** The queues of a topic no longer subscribed are dropped (Java `truncateMessageQueueNotMyTopic`). */
  async dropTopic(topic: string): Promise<void> {
    const gone = [...this.table.values()].filter((e) => e.mq.topic === topic);
    for (const e of gone) await this.remove(e);
    if (gone.length > 0) await this.ctx.changed({ topic, added: [], removed: gone.map((e) => e.mq) });
  }

  /** Where a new queue starts (start-position.ts); undefined = skip it this round (also the lite consumer's assign mode). */
  startPosition(mq: MessageQueue): Promise<StartPosition | undefined> {
    return startPosition(this.ctx, mq, this.ctx.subscribedAt?.(mq.topic) ?? this.createdAt);
  }

  /** Drops a held queue: persist its offset, forget it, unlock it (orderly). */
  async remove(entry: QueueEntry): Promise<void> {
    const ctx = this.ctx;
    entry.pq.dropped = true;
    if (this.table.get(entry.key) === entry) this.table.delete(entry.key);
    await ctx.offsetStore.persist(entry.mq);
    ctx.offsetStore.removeOffset(entry.mq);
    if (ctx.orderly && ctx.clustering) {
      const unlock = (): void => {
        unlockQueues(
          ctx.client,
          entry.mq.brokerName,
          ctx.group,
          [entry.mq],
          ctx.options.mqClientApiTimeout,
        ).catch((err: unknown) => ctx.logger.debug('unlock failed', { mq: entry.mq, error: err }));
      };
      if (ctx.isConsuming(entry.key)) ctx.later(UNLOCK_DELAY_MS, unlock);
      else unlock();
    }
  }

  /** Orderly: the queue's lock is held and fresh, or was just taken (clustering only). */
  async ensureLocked(entry: QueueEntry): Promise<boolean> {
    if (!this.ctx.clustering) return true;
    const pq = entry.pq;
    if (pq.locked && !pq.isLockExpired(this.ctx.options.lockMaxLiveTime)) return true;
    return this.lockOne(entry);
  }

  /** Orderly pull precondition: locked and, after the first lock, the offset re-read. */
  async prepareOrderly(entry: QueueEntry): Promise<boolean> {
    if (!this.ctx.clustering) return true;
    if (!(await this.ensureLocked(entry))) return false;
    if (!entry.pq.previouslyLocked) {
      // Another client may have consumed this queue until it lost the lock (apache/rocketmq#1825).
      const stored = (await this.ctx.offsetStore.readStoredOffset(entry.mq)).offset;
      if (stored === OFFSET_READ_ERROR) return false;
      // −1: nothing stored yet, so the start offset computed when the queue was taken stands.
      if (stored >= 0) entry.nextOffset = Math.max(stored, entry.pq.queueOffsetMax + 1);
      entry.pq.previouslyLocked = true;
    }
    return true;
  }

  /**
   * OFFSET_ILLEGAL (§2.3): the queue stops; after 10 s the broker's offset is stored and the queue
   * leaves the table, so the next round takes it again from there.
   */
  offsetMoved(entry: QueueEntry, nextOffset: number): void {
    entry.pq.dropped = true;
    this.ctx.later(PULL_DELAY.offsetMovedRemoval, () => {
      this.ctx.offsetStore.updateOffset(entry.mq, nextOffset, false);
      void this.ctx.offsetStore.persist(entry.mq);
      if (this.table.get(entry.key) === entry) this.table.delete(entry.key);
      void this.trigger();
    });
  }

  /**
   * RESET_CONSUMER_CLIENT_OFFSET: the topic's queues are dropped, the given offsets stored at
   * once, and a round takes the queues again from there.
   */
  async resetOffsets(
    topic: string,
    offsets: ReadonlyArray<{ mq: MessageQueue; offset: number }>,
  ): Promise<void> {
    const store = this.ctx.offsetStore;
    // Only the queues named (Java `resetOffset`): each broker sends its own queues, often at the
    // same moment, and dropping the whole topic here would drop queues another reset's rebalance
    // has just re-created at their new offsets.
    const named = new Set(offsets.map((e) => mqKey(e.mq)));
    for (const e of [...this.table.values()]) {
      if (e.mq.topic !== topic || !named.has(e.key)) continue;
      e.pq.dropped = true;
      e.pq.clear();
      this.table.delete(e.key);
    }
    for (const { mq, offset } of offsets) {
      store.updateOffset(mq, offset, false);
      await store.persist(mq);
      store.removeOffset(mq);
    }
    await this.trigger();
  }

  /** Orderly: LOCK_BATCH_MQ for every held queue, per broker (Java `lockAll`, every 20 s). */
  async lockAll(): Promise<void> {
    const entries = [...this.table.values()];
    for (const [brokerName, mqs] of byBroker(entries.map((e) => e.mq))) {
      try {
        const granted = new Set(
          (
            await lockQueues(
              this.ctx.client,
              brokerName,
              this.ctx.group,
              mqs,
              this.ctx.options.mqClientApiTimeout,
            )
          ).map(mqKey),
        );
        const now = Date.now();
        for (const e of entries) {
          if (e.mq.brokerName !== brokerName) continue;
          e.pq.locked = granted.has(e.key);
          if (e.pq.locked) e.pq.lastLockTimestamp = now;
        }
      } catch (err) {
        this.ctx.logger.warn('renewing queue locks failed', { brokerName, error: err });
      }
    }
  }

  /** Orderly: locks one queue now; true when granted. */
  async lockOne(entry: QueueEntry): Promise<boolean> {
    try {
      const granted = await lockQueues(
        this.ctx.client,
        entry.mq.brokerName,
        this.ctx.group,
        [entry.mq],
        this.ctx.options.mqClientApiTimeout,
      );
      const ok = granted.some((mq) => mqKey(mq) === entry.key);
      entry.pq.locked = ok;
      if (ok) entry.pq.lastLockTimestamp = Date.now();
      return ok;
    } catch (err) {
      this.ctx.logger.debug('locking a queue failed', { mq: entry.mq, error: err });
      return false;
    }
  }

  /** Shutdown: synchronous UNLOCK_BATCH_MQ for every held queue (Java `unlockAll(false)`). */
  async unlockAll(mqs: readonly MessageQueue[]): Promise<void> {
    await Promise.all(
      [...byBroker(mqs)].map(([brokerName, group]) =>
        unlockQueues(
          this.ctx.client,
          brokerName,
          this.ctx.group,
          group,
          this.ctx.options.mqClientApiTimeout,
        ).catch((err: unknown) =>
          this.ctx.logger.warn('unlocking queues failed', { brokerName, error: err }),
        ),
      ),
    );
  }
}

function byBroker(mqs: readonly MessageQueue[]): Map<string, MessageQueue[]> {
  const out = new Map<string, MessageQueue[]>();
  for (const mq of mqs) {
    let list = out.get(mq.brokerName);
    if (list === undefined) out.set(mq.brokerName, (list = []));
    list.push(mq);
  }
  return out;
}
