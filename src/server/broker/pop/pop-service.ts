/**
 * POP on the embedded broker (docs/consumers.md §3.2): reading a queue for a pop (checkpoint or orderly
 * lock, consumer offset committed at once as Java does with `enablePopBufferMerge=false`), ack,
 * change of invisible time, and the revive of expired checkpoints into the retry topic
 * `%RETRY%<group>_<topic>` (V1 naming, the 5.x default) with reconsumeTimes + 1, or into
 * `%DLQ%<group>` once a message was delivered `maxReconsumeTimes` times after its first — Java's
 * broker leaves the DLQ to the gRPC proxy; without a proxy the embedded broker decides.
 */
import { join } from 'node:path';
import { decodeProperties, encodeProperties, PropertyKey } from '../../../protocol/message/properties.js';
import {
  decodeStoredMessage,
  encodeStoredMessage,
  StoredField,
  storedInt64,
} from '../../../protocol/message/stored-message.js';
import { PermName } from '../../../protocol/perm.js';
import { releaseWriteBuffer } from '../../../remoting/write-buffer-pool.js';
import { POP_ORDER_REVIVE_QUEUE } from '../../../protocol/headers/pop.js';
import { buildExtraInfo, popRetryTopicV1, retryFlagOf } from '../../../protocol/pop/extra-info.js';
import {
  DLQ_GROUP_TOPIC_PREFIX,
  hasIllegalTopicChars,
  RETRY_GROUP_TOPIC_PREFIX,
} from '../../../protocol/validation.js';
import type { MessageToStore, PutResult } from '../../store/types.js';
import type { BrokerContext } from '../context.js';
import { isPermanentRefusal, logSkippedMessage } from '../message-util.js';
import { matchesQueueEntry, matchesStoredRecord, type MessageFilter } from '../message-filter.js';
import { lockVisibleAt, PopState, type PopCheckpoint } from './pop-state.js';
import { PopWaiters } from './pop-waiters.js';

const RW = PermName.PERM_READ | PermName.PERM_WRITE;
/** reviveQid of normal pops: the embedded broker keeps one revive list, not 8 revive queues. */
export const NORMAL_REVIVE_QID = 0;

export interface PopRead {
  /** The real topic read (subscribed or retry). */
  topic: string;
  queueId: number;
  startOffset: number;
  /** The popTime of the checkpoint / lock (the receipt handles carry it). */
  popTime: number;
  /** Records as sent to the client (retry-topic records re-encoded with the subscribed topic and POP_CK). */
  records: Buffer[];
  /** When `records` are every record the store read, as read: them back to back, a POP body as it is. */
  body?: Buffer;
  /** The store's pooled buffer `records` are views of, for the response to release once written. */
  pooled?: Buffer;
  offsets: number[];
  /** Orderly: deliveries before this one, per offset. */
  counts: number[];
  /** Messages left in the queue after this read. */
  rest: number;
}

export interface PopRequestContext {
  group: string;
  /** The subscribed topic. */
  topic: string;
  maxNums: number;
  invisibleTime: number;
  popTime: number;
  order: boolean;
  initMode: number;
  filter: MessageFilter;
}

export class PopService {
  readonly state: PopState;
  readonly waiters = new PopWaiters();
  /** `topic@group@queueId` being read by a pop right now (Java `QueueLockManager`). */
  private readonly busy = new Set<string>();
  /** Busy keys another pop skipped: their release wakes the long polls (one may have found only busy queues). */
  private readonly contended = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private reviving: Promise<void> | undefined;
  private removeOffsetBarrier: (() => void) | undefined;

  constructor(private readonly ctx: BrokerContext) {
    this.state = new PopState(join(ctx.options.storePathRootDir, 'config', 'pop.json'), ctx.logger);
  }

  async start(): Promise<void> {
    await this.state.load();
    // A long-invisible message must outlive time-based retention (docs/consumers.md §3.5).
    this.ctx.store.registerRetentionPin('pop', () => this.state.retentionPins());
    // The POP state's writes are coalesced: the offsets file waits for it (pop-state.ts).
    this.removeOffsetBarrier = this.ctx.store.consumerOffsets.setWriteBarrier(() => this.state.flushNow());
    this.waiters.start();
    this.ctx.store.on('messageArrived', (topic: string) => this.waiters.notify(topic));
    this.timer = setInterval(() => this.tick(), this.ctx.options.reviveInterval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.waiters.stop();
    await this.reviving;
    this.state.persist();
    await this.state.settled();
    this.removeOffsetBarrier?.();
    this.removeOffsetBarrier = undefined;
  }

  private tick(): void {
    if (this.reviving) return;
    this.reviving = this.revive(Date.now())
      .catch((err: unknown) => this.ctx.logger.warn('POP revive failed', { error: err }))
      .finally(() => {
        this.reviving = undefined;
      });
  }

  /** Where a group without a committed offset starts (`PopMessageProcessor#getInitOffset`). */
  private initOffset(topic: string, queueId: number, initMode: number): number {
    const min = this.ctx.store.getMinOffset(topic, queueId);
    // Java: MIN or a retry topic → the queue's min; MAX → 0 while offset 0 is still in memory
    // (here: still in the store), else max − 1.
    if (initMode === 0 || topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) || min === 0) return min;
    return Math.max(0, this.ctx.store.getMaxOffset(topic, queueId) - 1);
  }

  /** True when `topic`/`queueId` has messages the group could pop now (NOTIFICATION). */
  hasMessage(group: string, topic: string, queueId: number, order: boolean): boolean {
    const now = Date.now();
    if (order) {
      const lock = this.state.orderLock(group, topic, queueId);
      if (lock && lockVisibleAt(lock) > now) return false;
    }
    const offset =
      this.ctx.store.consumerOffsets.get(group, topic, queueId) ?? this.initOffset(topic, queueId, 0);
    return this.ctx.store.getMaxOffset(topic, queueId) > offset;
  }

  /**
   * Reads up to `req.maxNums` messages of one queue for a pop and records them (checkpoint, or
   * orderly lock); undefined when the queue is busy (`onBusy` is told: its release wakes the
   * long polls), blocked (orderly) or has nothing. Without a promise when that is known at once
   * (busy, blocked, at the queue's end): most queues a POP passes are, and an await each is not free.
   */
  popQueue(
    req: PopRequestContext,
    topic: string,
    queueId: number,
    brokerName: string,
    onBusy?: () => void,
  ): Promise<PopRead | undefined> | undefined {
    const key = `${topic}@${req.group}@${queueId}`;
    if (this.busy.has(key)) {
      this.contended.add(key);
      onBusy?.();
      return undefined;
    }
    const offset = this.readOffset(req, topic, queueId);
    if (offset === undefined) return undefined;
    this.busy.add(key);
    return this.readQueue(req, topic, queueId, brokerName, offset).finally(() => {
      this.busy.delete(key);
      // A pop that skipped this queue may be long-polling with messages left here: wake it now,
      // not when a new message arrives or its poll time ends.
      if (this.contended.delete(key)) this.waiters.notify(topic);
    });
  }

  /**
   * Where a pop of the queue reads (a group's first commits its start, as Java does); undefined
   * when it would find nothing: an orderly queue blocked by its batch in flight, or the group at
   * the queue's end (where the store finds nothing and moves nothing).
   */
  private readOffset(req: PopRequestContext, topic: string, queueId: number): number | undefined {
    const { store } = this.ctx;
    if (req.order) {
      const lock = this.state.orderLock(req.group, topic, queueId);
      if (lock && lockVisibleAt(lock) > req.popTime) return undefined;
    }
    let offset = store.consumerOffsets.get(req.group, topic, queueId);
    if (offset === undefined) {
      offset = this.initOffset(topic, queueId, req.initMode);
      store.consumerOffsets.set(req.group, topic, queueId, offset);
    }
    return offset === store.getMaxOffset(topic, queueId) ? undefined : offset;
  }

  private async readQueue(
    req: PopRequestContext,
    topic: string,
    queueId: number,
    brokerName: string,
    offset: number,
  ): Promise<PopRead | undefined> {
    const { store } = this.ctx;
    const now = req.popTime;
    const lock = req.order ? this.state.orderLock(req.group, topic, queueId) : undefined;
    const got = await store.getMessages(topic, queueId, offset, req.maxNums);
    const records: Buffer[] = [];
    const offsets: number[] = [];
    got.messages.forEach((m, i) => {
      if (matchesQueueEntry(req.filter, got.tagsCodes[i] ?? 0) && matchesStoredRecord(req.filter, m)) {
        records.push(m);
        // The offset alone, read in place, not a full decode of every record just for it.
        offsets.push(storedInt64(m, StoredField.QUEUEOFFSET));
      }
    });
    const next = got.nextBeginOffset;
    const rest = Math.max(0, store.getMaxOffset(topic, queueId) - next);
    if (records.length === 0) {
      if (got.pooled !== undefined) releaseWriteBuffer(got.pooled);
      // Filtered out or a moved offset: skip ahead, as a pull would.
      if (next !== offset && (!req.order || !lock))
        store.consumerOffsets.set(req.group, topic, queueId, next);
      return undefined;
    }
    const counts = offsets.map((o) => lock?.counts[String(o)] ?? 0);
    const retryFlag = retryFlagOf(topic);
    const reviveQid = req.order ? POP_ORDER_REVIVE_QUEUE : NORMAL_REVIVE_QID;
    if (req.order) {
      const newCounts: Record<string, number> = {};
      offsets.forEach((o, i) => (newCounts[String(o)] = (counts[i] ?? 0) + 1));
      this.state.setOrderLock({
        group: req.group,
        topic,
        queueId,
        popTime: now,
        invisibleTime: req.invisibleTime,
        offsets,
        acked: [],
        counts: newCounts,
      });
    } else {
      this.state.addCheckpoint({
        group: req.group,
        topic,
        queueId,
        startOffset: offset,
        popTime: now,
        invisibleTime: req.invisibleTime,
        reviveQid,
        offsets,
        acked: [],
      });
      store.consumerOffsets.set(req.group, topic, queueId, next);
    }
    const read: PopRead = {
      topic,
      queueId,
      startOffset: offset,
      popTime: now,
      records,
      offsets,
      counts,
      rest,
    };
    if (retryFlag === '0') {
      // As stored: the response sends the store's buffer when nothing was filtered out.
      if (records.length === got.messages.length) read.body = got.body;
      read.pooled = got.pooled;
      return read;
    }
    // Retry-topic records go out under the subscribed topic with their receipt handle already set
    // (Java `popMsgFromQueue`, popResponseReturnActualRetryTopic=false): copies, so the store's
    // buffer is free at once.
    read.records = records.map((r, i) =>
      this.asSubscribedTopic(r, req.topic, {
        ckQueueOffset: offset,
        popTime: now,
        invisibleTime: req.invisibleTime,
        reviveQid,
        retryFlag,
        brokerName,
        queueId,
        msgQueueOffset: offsets[i] ?? 0,
      }),
    );
    if (got.pooled !== undefined) releaseWriteBuffer(got.pooled);
    return read;
  }

  private asSubscribedTopic(
    record: Buffer,
    topic: string,
    handle: Parameters<typeof buildExtraInfo>[0],
  ): Buffer {
    const m = decodeStoredMessage(record).message;
    const props = decodeProperties(m.properties);
    props[PropertyKey.POP_CK] = buildExtraInfo(handle);
    return encodeStoredMessage({ ...m, topic, properties: encodeProperties(props) });
  }

  /** Normal-mode ack; false when no checkpoint holds the offset un-acked. */
  ack(
    group: string,
    topic: string,
    queueId: number,
    start: number,
    popTime: number,
    offset: number,
  ): boolean {
    const ck = this.state.findCheckpoint(group, topic, queueId, start, popTime);
    return ck !== undefined && this.state.ack(ck, offset);
  }

  /**
   * Orderly ack (`ConsumerOrderInfoManager#commitAndNext`): the consumer offset moves to the
   * first un-acked offset of the batch; a fully acked batch unblocks the queue.
   */
  ackOrderly(group: string, topic: string, queueId: number, popTime: number, offset: number): boolean {
    const lock = this.state.orderLock(group, topic, queueId);
    if (!lock || lock.popTime !== popTime || !lock.offsets.includes(offset)) return false;
    if (!lock.acked.includes(offset)) lock.acked.push(offset);
    const pending = lock.offsets.filter((o) => !lock.acked.includes(o));
    const last = lock.offsets[lock.offsets.length - 1] ?? offset;
    this.ctx.store.consumerOffsets.set(group, topic, queueId, pending[0] ?? last + 1);
    if (pending.length === 0) {
      this.state.removeOrderLock(lock);
      this.waiters.notify(topic);
    } else this.state.persist();
    return true;
  }

  /**
   * Orderly CHANGE_INVISIBLE_TIME (Java `updateNextVisibleTime`): this offset becomes visible
   * `invisibleTime` from now; the queue stays blocked while any un-acked offset is invisible.
   * The handle keeps its popTime; the answer's invisibleTime is counted from it.
   */
  changeOrderly(
    group: string,
    topic: string,
    queueId: number,
    popTime: number,
    offset: number,
    invisibleTime: number,
  ): { popTime: number; invisibleTime: number } | undefined {
    const lock = this.state.orderLock(group, topic, queueId);
    if (!lock || lock.popTime !== popTime || !lock.offsets.includes(offset) || lock.acked.includes(offset))
      return undefined;
    const next = Date.now() + invisibleTime;
    lock.nextVisible = { ...lock.nextVisible, [String(offset)]: next };
    this.state.persist();
    return { popTime, invisibleTime: next - popTime };
  }

  /** Revives every expired checkpoint; wakes pollers of queues whose orderly lock expired. */
  async revive(now: number): Promise<void> {
    for (const lock of this.state.expiredOrderLocks(now)) this.waiters.notify(lock.topic);
    for (const ck of this.state.expiredCheckpoints(now)) {
      // Dropped first: an ack arriving while the messages are re-put finds no checkpoint.
      this.state.removeCheckpoint(ck);
      for (const offset of ck.offsets) if (!ck.acked.includes(offset)) await this.reviveOne(ck, offset);
    }
  }

  private async reviveOne(ck: PopCheckpoint, offset: number): Promise<void> {
    const got = await this.ctx.store.getMessages(ck.topic, ck.queueId, offset, 1);
    const record = got.status === 'FOUND' ? got.messages[0] : undefined;
    if (!record) {
      this.ctx.logger.warn('POP revive: message gone', { topic: ck.topic, queueId: ck.queueId, offset });
      return;
    }
    const msg = decodeStoredMessage(record).message;
    const props = decodeProperties(msg.properties);
    delete props[PropertyKey.POP_CK];
    if (msg.reconsumeTimes === 0 || props[PropertyKey.FIRST_POP_TIME] === undefined)
      props[PropertyKey.FIRST_POP_TIME] = String(ck.popTime);
    const original = ck.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)
      ? (props[PropertyKey.RETRY_TOPIC] ?? ck.topic)
      : ck.topic;
    if (props[PropertyKey.RETRY_TOPIC] === undefined) props[PropertyKey.RETRY_TOPIC] = original;
    let topic: string;
    if (msg.reconsumeTimes >= this.ctx.options.maxReconsumeTimes) {
      topic = DLQ_GROUP_TOPIC_PREFIX + ck.group;
      props[PropertyKey.DLQ_ORIGIN_TOPIC] = original;
      const uniq = props[PropertyKey.UNIQ_KEY];
      if (uniq !== undefined) props[PropertyKey.DLQ_ORIGIN_MESSAGE_ID] = uniq;
    } else {
      topic = ck.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) ? ck.topic : popRetryTopicV1(ck.topic, ck.group);
    }
    const retry: MessageToStore = {
      topic,
      queueId: 0,
      flag: msg.flag,
      sysFlag: msg.sysFlag,
      bornTimestamp: msg.bornTimestamp,
      bornHost: msg.bornHost,
      storeHost: this.ctx.storeHost,
      reconsumeTimes: msg.reconsumeTimes + 1,
      preparedTransactionOffset: msg.preparedTransactionOffset,
      body: msg.body,
      properties: encodeProperties(props),
    };
    // A group or topic the store cannot hold (a checkpoint from before the names were checked
    // at the edge) gets no topic config, and is skipped rather than retried every round.
    if (hasIllegalTopicChars(topic)) {
      const refused: Pick<PutResult, 'status' | 'error'> = {
        status: 'MESSAGE_ILLEGAL',
        error: new RangeError(`illegal topic ${topic}`),
      };
      logSkippedMessage(this.ctx.logger, 'POP revive', msg, retry, refused);
      return;
    }
    this.ctx.topics.createTopicInSendMessageBackMethod(topic, 1, RW);
    const result = await this.ctx.store.putMessage(retry);
    if (isPermanentRefusal(result.status)) {
      logSkippedMessage(this.ctx.logger, 'POP revive', msg, retry, result);
    } else if (result.status !== 'PUT_OK' && result.status !== 'FLUSH_DISK_TIMEOUT') {
      // Not lost: a checkpoint for just this offset comes back for the next round.
      this.state.addCheckpoint({
        ...ck,
        startOffset: offset,
        offsets: [offset],
        acked: [],
        popTime: Date.now(),
        invisibleTime: 1000,
      });
    }
  }
}
