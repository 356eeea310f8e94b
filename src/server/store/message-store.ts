/**
 * The broker's message store: a commit log of fixed-size segment files holding stored-format
 * records (docs/protocol.md §6.2, see `commit-log.ts`), a consume queue per (topic, queueId), a key
 * index and the consumer offsets. Layout under `dataDir`, as in Java:
 *
 *   commitlog/00000000000000000000        segments named by their first physical offset
 *   consumequeue/<topic>/<queueId>/<20 digits>   20-byte entries
 *   index/<yyyyMMddHHmmssSSS>             key index files (key-index.ts)
 *   checkpoint, abort                     restart state (checkpoint.ts, restart.ts)
 *   config/consumerOffset.json
 *
 * All writes go through one append path: puts queued in the same tick are encoded, given their
 * physical and queue offsets, and written with one positional write per segment; the consume
 * queue entries of the batch are written next, one write per queue. With `flush: 'sync'` the
 * batch is fdatasync'ed before any of its puts resolve (group commit). A failed write rolls the
 * files back to where the batch started, so later puts continue on a clean log.
 *
 * Over 500 lines on purpose: its core is one state machine. The put queue, its drain, the batch
 * append with its rollback, the disk-full flag, and the open, timers and close around them share
 * the same fields (pending puts and bytes, the commit log, the consume-queue table), and each
 * invariant (a put settles exactly once, a failed batch leaves the files where it started, close
 * waits for the drain) spans them. Everything separable already lives beside it: encoding (prepare.ts,
 * batch-records.ts), reads (reader.ts), the consume-queue table (consume-queue-table.ts),
 * recovery and restart, retention, checkpoint, key index, consumer offsets.
 */
import { totalmem } from 'node:os';
import { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { IllegalStateError } from '../../errors.js';
import { encodeStoredMessage } from '../../protocol/message/stored-message.js';
import { CommitLog, type LogAppend } from './commit-log.js';
import { CqEntries, type ConsumeQueue } from './consume-queue.js';
import { ConsumeQueueTable } from './consume-queue-table.js';
import { KeyIndex } from './key-index.js';
import { ConsumerOffsetStore } from './offset-store.js';
import { resolveStoreOptions, type StoreOptions } from './options.js';
import { DEFAULT_GET_MAX_BYTES, StoreReader } from './reader.js';
import { END_FILE_MIN_BLANK_LENGTH } from './recovery.js';
import { abortFile, StoreCheckpoint } from './checkpoint.js';
import { loadConsumeQueues, recoverStore, type RecoveryInfo } from './restart.js';
import { FIRST_CLEAN_DELAY_MS, Retention, type CleanResult, type RetentionPin } from './retention.js';
import { checkPlacement, failed, prepareMessage, type Prepared } from './prepare.js';
import { patchBatchRecords, type EncodedBatch } from './batch-records.js';
import { releaseRecordsBuffer } from './records-pool.js';
import type { GetMessagesResult, MessageToStore, PullSelection, PutResult, PutStatus } from './types.js';

export { DEFAULT_GET_MAX_BYTES };

/** Target bytes per append batch; a batch always takes at least one put. */
const BATCH_TARGET_BYTES = 4 * 1024 * 1024;

interface PendingPut {
  /** Messages encoded at append time; empty for an `encoded` batch. */
  messages: Prepared[];
  /** A batch already encoded as stored records (batch-records.ts): one result for all. */
  encoded: EncodedBatch | undefined;
  totalSize: number;
  resolve: (results: PutResult[]) => void;
}

/** Settles `put` with one failure per message (one for an encoded batch). */
function failPut(put: PendingPut, status: PutStatus, err: Error): void {
  put.resolve(
    put.encoded !== undefined ? [failed(status, err)] : put.messages.map(() => failed(status, err)),
  );
}

interface QueuePlan {
  queue: ConsumeQueue;
  first: number;
  /** The entries to add at `first` (encoded into one buffer at write time). */
  entries: CqEntries;
}

/** The encoded batches' record buffers go back to the pool: written (or rolled back), never read again. */
function releaseRecords(batch: readonly PendingPut[]): void {
  for (const put of batch) if (put.encoded !== undefined) releaseRecordsBuffer(put.encoded.records);
}

function firstResult(results: PutResult[]): PutResult {
  return results[0]!;
}

/**
 * Java's SEND remark while the disk is full (`SendMessageProcessor`), after the "service not
 * available now." the broker puts first.
 */
const DISK_FULL =
  "It may be caused by one of the following reasons: the broker's disk is full, messages are put to the slave, message store has been shut down, etc.";

const IO_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG']);

/** Events of {@link MessageStore}. */
export interface MessageStoreEvents {
  /** A put became durable per the flush policy; `maxOffset` is the queue's new max offset. */
  messageArrived: [topic: string, queueId: number, maxOffset: number];
}

export class MessageStore extends EventEmitter<MessageStoreEvents> {
  readonly options: Readonly<StoreOptions>;
  readonly consumerOffsets: ConsumerOffsetStore;
  private readonly log: CommitLog;
  private readonly queues: ConsumeQueueTable;
  private readonly keyIndex: KeyIndex;
  private readonly reader: StoreReader;
  private readonly checkpoint: StoreCheckpoint;
  private readonly retention: Retention;
  private readonly retentionPins = new Map<string, () => Iterable<RetentionPin>>();
  private checkpointing: Promise<void> | undefined;
  private lastStoreTimestamp = 0;
  private diskFull = false;
  private recoveryInfo: RecoveryInfo | undefined;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private cleanTimer: NodeJS.Timeout | undefined;
  private pending: PendingPut[] = [];
  private pendingBytes = 0;
  private drainScheduled = false;
  private draining: Promise<void> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private offsetTimer: NodeJS.Timeout | undefined;

  private constructor(options: StoreOptions, log: CommitLog, keyIndex: KeyIndex) {
    super();
    this.options = Object.freeze({ ...options });
    this.log = log;
    this.keyIndex = keyIndex;
    this.checkpoint = new StoreCheckpoint(options.dataDir);
    this.queues = new ConsumeQueueTable(this.options);
    this.reader = new StoreReader(log.file, this.keyIndex, {
      queueOf: (topic, queueId) => this.queues.get(topic, queueId),
      confirmedPos: () => log.confirmedOffset,
      transferLimits: this.options,
      inMemoryBytes: Math.floor((totalmem() * options.accessMessageInMemoryMaxRatio) / 100),
    });
    this.consumerOffsets = new ConsumerOffsetStore(
      join(options.dataDir, 'config', 'consumerOffset.json'),
      options.logger,
    );
    this.retention = new Retention({
      options: this.options,
      log: log.file,
      keyIndex,
      consumerOffsets: this.consumerOffsets,
      queues: () => this.queues.all(),
      queueOf: (topic, queueId) => this.queues.get(topic, queueId),
      pins: this.retentionPins,
      setDiskFull: (full) => this.setDiskFull(full),
    });
  }

  /**
   * Opens (creating) the store under `dataDir` and recovers (restart.ts): consume queues and key
   * index files are loaded, and the commit log is validated and re-dispatched only from the
   * last checkpoint; a torn or corrupt tail is cut off.
   */
  static async open(input: Partial<StoreOptions> & { dataDir: string }): Promise<MessageStore> {
    const options = resolveStoreOptions(input);
    await mkdir(options.dataDir, { recursive: true });
    const log = await CommitLog.open(options);
    const { index, usable } = await KeyIndex.open(
      join(options.dataDir, 'index'),
      { hashSlotNum: options.maxHashSlotNum, indexNum: options.maxIndexNum },
      () => options.testHooks?.now?.() ?? Date.now(),
      options.logger,
    );
    const store = new MessageStore(options, log, index);
    try {
      await store.consumerOffsets.load();
      for (const q of await loadConsumeQueues(store.options)) store.queues.add(q);
      const { info, lastStoreTimestamp } = await recoverStore({
        options: store.options,
        log,
        keyIndex: index,
        keyIndexUsable: usable,
        checkpoint: store.checkpoint,
        queues: () => store.queues.all(),
        dropQueues: () => store.queues.drop(),
        queueOf: (topic, queueId) => store.queues.get(topic, queueId),
        createQueue: (topic, queueId) => store.queues.create(topic, queueId),
      });
      store.recoveryInfo = info;
      store.lastStoreTimestamp = lastStoreTimestamp;
      await store.writeCheckpoint();
      await abortFile.mark(options.dataDir);
    } catch (err) {
      await store.closeFiles();
      throw err;
    }
    store.startTimers();
    return store;
  }

  /** How the last `open` recovered (for logs, tests and the restart benchmark). */
  get lastRecovery(): RecoveryInfo | undefined {
    return this.recoveryInfo;
  }

  // ---------------------------------------------------------------- checkpoint, retention

  /**
   * Makes the commit log, the consume queues and the key index durable up to the current end
   * of the log and records that offset in `checkpoint`; a restart re-dispatches only what
   * follows. Runs every `checkpointIntervalMs` and at close; calls are serialized.
   */
  checkpointNow(): Promise<void> {
    const run = (this.checkpointing ?? Promise.resolve()).then(() => this.writeCheckpoint());
    this.checkpointing = run.catch(() => undefined);
    return run;
  }

  private async writeCheckpoint(): Promise<void> {
    // Everything below `offset` is written to the queues and the index before it is confirmed.
    const recoverOffset = this.log.confirmedOffset;
    const timestamp = this.lastStoreTimestamp;
    await this.log.sync();
    for (const q of this.queues.all()) if (q.hasDirty) await q.sync();
    await this.keyIndex.flush();
    await this.checkpoint.write({ recoverOffset, timestamp });
  }

  /**
   * One retention pass (retention.ts) now; it also runs every `cleanResourceIntervalMs`, the
   * first 60 s after open.
   */
  cleanExpiredFiles(): Promise<CleanResult> {
    return this.retention.run();
  }

  /**
   * Lets a broker mechanism that reads a queue like a consumer (the timer wheel, ...) keep what
   * it has not processed from time-based retention, as a group's committed offset does; `pins`
   * is asked at each pass. Registering again under the same `owner` replaces it.
   */
  registerRetentionPin(owner: string, pins: () => Iterable<RetentionPin>): void {
    this.retentionPins.set(owner, pins);
  }

  /** Set when the disk is above `diskSpaceWarningLevelRatio`: puts are refused. */
  get isDiskFull(): boolean {
    return this.diskFull;
  }

  private setDiskFull(full: boolean): void {
    if (full === this.diskFull) return;
    this.diskFull = full;
    if (full) this.options.logger.error('message store: disk nearly full, refusing puts', {});
    else this.options.logger.info('message store: disk space OK again, accepting puts', {});
  }

  private startTimers(): void {
    this.checkpointTimer = setInterval(() => {
      this.checkpointNow().catch((err: unknown) => this.options.logger.error('checkpoint failed', { err }));
    }, this.options.checkpointIntervalMs);
    this.checkpointTimer.unref();
    const clean = (): void => {
      this.retention
        .run()
        .catch((err: unknown) => this.options.logger.error('retention pass failed', { err }));
    };
    this.cleanTimer = setTimeout(
      () => {
        clean();
        this.cleanTimer = setInterval(clean, this.options.cleanResourceIntervalMs);
        this.cleanTimer.unref();
      },
      Math.min(FIRST_CLEAN_DELAY_MS, this.options.cleanResourceIntervalMs * 6),
    );
    this.cleanTimer.unref();
    if (this.options.flush === 'async') {
      this.flushTimer = setInterval(() => void this.log.backgroundFlush(), this.options.flushIntervalMs);
      this.flushTimer.unref();
    }
    this.offsetTimer = setInterval(() => {
      this.consumerOffsets.persist().catch((err: unknown) => {
        this.options.logger.error('persisting consumer offsets failed', { err });
      });
    }, this.options.offsetPersistIntervalMs);
    this.offsetTimer.unref();
  }

  // ---------------------------------------------------------------- queues

  getMinOffset(topic: string, queueId: number): number {
    return this.queues.get(topic, queueId)?.minOffset ?? 0;
  }

  getMaxOffset(topic: string, queueId: number): number {
    return this.queues.get(topic, queueId)?.maxOffset ?? 0;
  }

  /** Topics with at least one stored message. */
  topics(): string[] {
    return this.queues.topics();
  }

  /** Queue ids of `topic` that hold messages. */
  queueIds(topic: string): number[] {
    return this.queues.queueIds(topic);
  }

  /** Physical offset of the first stored byte. */
  get minPhysicalOffset(): number {
    return this.log.minOffset;
  }

  /** Physical offset just past the last visible record. */
  get maxPhysicalOffset(): number {
    return this.log.confirmedOffset;
  }

  // ---------------------------------------------------------------- put

  putMessage(msg: MessageToStore): Promise<PutResult> {
    return this.enqueue([msg]).then(firstResult);
  }

  /** Stores `msgs` contiguously with consecutive queue offsets; all succeed or all fail. */
  putMessages(msgs: MessageToStore[]): Promise<PutResult[]> {
    if (msgs.length === 0) return Promise.resolve([]);
    return this.enqueue(msgs);
  }

  /**
   * @internal The broker's batch path.
   * Stores a batch encoded by `encodeBatchRecords` with one write: contiguous records,
   * consecutive queue offsets, all or nothing. The result gives the first record's offsets and
   * the whole batch's size; record i is at `physicalOffset + batch.starts[i]`, queue offset
   * `queueOffset + i`.
   */
  putEncodedBatch(batch: EncodedBatch): Promise<PutResult> {
    const refuse = (r: PutResult): Promise<PutResult> => {
      releaseRecordsBuffer(batch.records);
      return Promise.resolve(r);
    };
    if (this.closed)
      return refuse(failed('SERVICE_NOT_AVAILABLE', new IllegalStateError('message store is closed')));
    const placement = checkPlacement(batch.topic, batch.queueId);
    if (placement !== undefined) return refuse(placement);
    if (batch.maxBodyLength > this.options.maxMessageSize) {
      return refuse(
        failed(
          'MESSAGE_ILLEGAL',
          new RangeError(
            `body of ${batch.maxBodyLength} bytes exceeds maxMessageSize ${this.options.maxMessageSize}`,
          ),
        ),
      );
    }
    const totalSize = batch.records.length;
    if (totalSize + END_FILE_MIN_BLANK_LENGTH > this.options.segmentSize) {
      return refuse(failed('MESSAGE_ILLEGAL', new RangeError('batch larger than a commit-log segment')));
    }
    if (this.diskFull) return refuse(failed('SERVICE_NOT_AVAILABLE', new IllegalStateError(DISK_FULL)));
    if (this.pendingBytes + totalSize > this.options.maxPendingBytes) {
      return refuse(failed('SERVICE_NOT_AVAILABLE', new IllegalStateError('store write queue is full')));
    }
    return new Promise<PutResult[]>((resolve) => {
      this.pending.push({ messages: [], encoded: batch, totalSize, resolve });
      this.pendingBytes += totalSize;
      this.scheduleDrain();
    }).then(firstResult);
  }

  private enqueue(msgs: MessageToStore[]): Promise<PutResult[]> {
    const all = (r: PutResult): PutResult[] => msgs.map(() => ({ ...r }));
    if (this.closed) {
      return Promise.resolve(
        all(failed('SERVICE_NOT_AVAILABLE', new IllegalStateError('message store is closed'))),
      );
    }
    const prepared: Prepared[] = [];
    let totalSize = 0;
    for (const msg of msgs) {
      const p = prepareMessage(msg, this.options);
      if ('status' in p) return Promise.resolve(all(p));
      prepared.push(p);
      totalSize += p.size;
    }
    if (totalSize + END_FILE_MIN_BLANK_LENGTH > this.options.segmentSize) {
      return Promise.resolve(
        all(failed('MESSAGE_ILLEGAL', new RangeError('batch larger than a commit-log segment'))),
      );
    }
    if (this.diskFull) {
      return Promise.resolve(all(failed('SERVICE_NOT_AVAILABLE', new IllegalStateError(DISK_FULL))));
    }
    if (this.pendingBytes + totalSize > this.options.maxPendingBytes) {
      return Promise.resolve(
        all(failed('SERVICE_NOT_AVAILABLE', new IllegalStateError('store write queue is full'))),
      );
    }
    return new Promise((resolve) => {
      this.pending.push({ messages: prepared, encoded: undefined, totalSize, resolve });
      this.pendingBytes += totalSize;
      this.scheduleDrain();
    });
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.draining !== undefined) return;
    this.drainScheduled = true;
    // setImmediate, not a microtask: every request parsed in this I/O phase joins the batch.
    setImmediate(() => {
      this.drainScheduled = false;
      this.draining ??= this.drain().finally(() => {
        this.draining = undefined;
        if (this.pending.length > 0) this.scheduleDrain();
      });
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      let bytes = 0;
      let n = 0;
      while (
        n < this.pending.length &&
        (n === 0 || bytes + this.pending[n]!.totalSize <= BATCH_TARGET_BYTES)
      ) {
        bytes += this.pending[n]!.totalSize;
        n++;
      }
      const batch = this.pending.splice(0, n);
      this.pendingBytes -= bytes;
      try {
        await this.appendBatch(batch);
      } catch (err) {
        // appendBatch settles every put itself; this is a last line of defence.
        this.options.logger.error('append batch failed unexpectedly', { err });
        for (const put of batch) failPut(put, 'UNKNOWN_ERROR', err as Error);
      }
    }
  }

  private async appendBatch(batch: PendingPut[]): Promise<void> {
    const settleAll = (status: PutStatus, err: Error): void => {
      for (const put of batch) failPut(put, status, err);
    };
    let append: LogAppend;
    try {
      append = await this.log.beginAppend();
    } catch (err) {
      settleAll('SERVICE_NOT_AVAILABLE', err as Error);
      return;
    }
    const now = Date.now();
    const plans = new Map<ConsumeQueue, QueuePlan>();
    const planOf = (queue: ConsumeQueue): QueuePlan => {
      let plan = plans.get(queue);
      if (plan === undefined) {
        plan = { queue, first: queue.maxOffset, entries: new CqEntries() };
        plans.set(queue, plan);
      }
      return plan;
    };
    const results: PutResult[][] = [];
    try {
      for (const put of batch) {
        append.reserve(put.totalSize);
        const e = put.encoded;
        if (e !== undefined) {
          const plan = planOf(
            this.queues.get(e.topic, e.queueId) ?? (await this.queues.create(e.topic, e.queueId)),
          );
          const pos = append.pos;
          const queueOffset = plan.first + plan.entries.count;
          patchBatchRecords(e, pos, queueOffset, now);
          plan.entries.addBatch(pos, e.starts, e.tagsCodes, e.count);
          append.add(e.records);
          results.push([
            {
              status: 'PUT_OK',
              physicalOffset: pos,
              queueOffset,
              wroteBytes: e.records.length,
              storeTimestamp: now,
            },
          ]);
          continue;
        }
        const out: PutResult[] = [];
        for (const p of put.messages) {
          const plan = planOf(
            this.queues.get(p.stored.topic, p.stored.queueId) ??
              (await this.queues.create(p.stored.topic, p.stored.queueId)),
          );
          const pos = append.pos;
          const queueOffset = plan.first + plan.entries.count;
          p.stored.queueOffset = queueOffset;
          p.stored.physicalOffset = pos;
          p.stored.storeTimestamp = now;
          const record = encodeStoredMessage(p.stored);
          plan.entries.addOne(pos, record.length, p.tagsCode);
          append.add(record);
          out.push({
            status: 'PUT_OK',
            physicalOffset: pos,
            queueOffset,
            wroteBytes: record.length,
            storeTimestamp: now,
          });
        }
        results.push(out);
      }
      await this.log.write(append);
      // The fsync of the log and the consume-queue writes overlap; both must succeed.
      const settled = await Promise.allSettled([
        this.options.flush === 'sync' ? this.log.syncWithTimeout() : Promise.resolve<PutStatus>('PUT_OK'),
        ...[...plans.values()].map((plan) => plan.queue.write(plan.first, plan.entries.encode())),
      ]);
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      const status = (settled[0] as PromiseFulfilledResult<PutStatus>).value;
      if (status !== 'PUT_OK') for (const out of results) for (const r of out) r.status = status;
    } catch (err) {
      await this.rollback(append, plans);
      const code = (err as NodeJS.ErrnoException).code;
      const status: PutStatus =
        code !== undefined && IO_FULL_CODES.has(code) ? 'SERVICE_NOT_AVAILABLE' : 'UNKNOWN_ERROR';
      this.options.logger.error('commit log append failed; batch rolled back', {
        err,
        messages: results.length,
      });
      releaseRecords(batch);
      settleAll(status, err instanceof Error ? err : new Error(String(err)));
      return;
    }
    releaseRecords(batch);

    this.log.confirm(append);
    this.lastStoreTimestamp = now;
    for (const plan of plans.values()) plan.queue.maxOffset = plan.first + plan.entries.count;
    batch.forEach((put, i) => {
      const e = put.encoded;
      if (e === undefined) {
        for (const p of put.messages)
          for (const key of p.keys) this.keyIndex.add(p.stored.topic, key, p.stored.physicalOffset, now);
        return;
      }
      const base = (results[i] as PutResult[])[0]!.physicalOffset;
      for (let k = 0; k < e.keyHashes.length; k++)
        this.keyIndex.addHash(e.keyHashes[k]!, base + e.starts[e.keyRecords[k]!]!, now);
    });
    batch.forEach((put, i) => put.resolve(results[i]!));
    for (const plan of plans.values()) {
      try {
        this.emit('messageArrived', plan.queue.topic, plan.queue.queueId, plan.queue.maxOffset);
      } catch (err) {
        this.options.logger.error('messageArrived listener threw', { err });
      }
    }
  }

  private async rollback(append: LogAppend, plans: Map<ConsumeQueue, QueuePlan>): Promise<void> {
    await this.log.rollback(append);
    for (const plan of plans.values()) {
      // Entries past maxOffset are never read and get overwritten, so a failure here is harmless.
      await plan.queue.truncate(plan.first).catch(() => undefined);
    }
  }

  // ---------------------------------------------------------------- reads

  /**
   * Up to `maxNums` records of a queue from `offset`, within `maxBytes` (at least one record is
   * returned when any is available). Statuses and `nextBeginOffset` follow Java's
   * `DefaultMessageStore.getMessage` on a master. A consumer's pull passes `pull` (Java's
   * transfer limits and consume-queue filtering, reader.ts). I/O errors reject.
   */
  getMessages(
    topic: string,
    queueId: number,
    offset: number,
    maxNums: number,
    maxBytes: number = DEFAULT_GET_MAX_BYTES,
    pull?: PullSelection,
  ): Promise<GetMessagesResult> {
    return this.reader.getMessages(topic, queueId, offset, maxNums, maxBytes, pull);
  }

  /** The record at a commit-log offset (VIEW_MESSAGE_BY_ID), or undefined when there is none. */
  readMessageAt(physicalOffset: number): Promise<Buffer | undefined> {
    return this.reader.readMessageAt(physicalOffset);
  }

  /**
   * First queue offset whose store timestamp is >= `timestamp` (binary search over the queue);
   * `maxOffset` when every message is older, `minOffset` when all are newer, 0 for an empty queue.
   */
  getOffsetByTimestamp(topic: string, queueId: number, timestamp: number): Promise<number> {
    return this.reader.getOffsetByTimestamp(topic, queueId, timestamp);
  }

  /** Java `checkInDiskByConsumeOffset` (outside the in-memory zone; false for no such entry). */
  checkInDiskByConsumeOffset(topic: string, queueId: number, offset: number): Promise<boolean> {
    return this.reader.checkInDiskByConsumeOffset(topic, queueId, offset);
  }

  /**
   * Stored records of `topic` whose KEYS (space separated) or UNIQ_KEY equal `key` and whose
   * store timestamp is in [begin, end], newest first, at most `maxNum`.
   */
  queryMessagesByKey(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<Buffer[]> {
    return this.reader.queryMessagesByKey(topic, key, maxNum, begin, end);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Waits for queued puts and fdatasyncs the commit log. */
  async flush(): Promise<void> {
    while (this.draining !== undefined || this.drainScheduled || this.pending.length > 0) {
      await (this.draining ?? new Promise((r) => setImmediate(r)));
    }
    await this.log.sync();
  }

  /** Rejects new puts, finishes queued ones, flushes, persists consumer offsets and closes files. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.closed = true;
    clearInterval(this.flushTimer);
    clearInterval(this.offsetTimer);
    clearInterval(this.checkpointTimer);
    clearTimeout(this.cleanTimer);
    clearInterval(this.cleanTimer);
    let clean = true;
    try {
      await this.flush();
      await this.retention.idle();
      await this.checkpointNow();
    } catch (err) {
      clean = false;
      this.options.logger.error('final flush or checkpoint failed', { err });
    }
    try {
      await this.consumerOffsets.persist();
    } catch (err) {
      this.options.logger.error('persisting consumer offsets failed', { err });
    }
    await this.closeFiles();
    // Without the final checkpoint the next open must treat this run as a crash.
    if (clean) await abortFile.clear(this.options.dataDir);
  }

  private async closeFiles(): Promise<void> {
    for (const q of this.queues.all()) await q.close();
    await this.keyIndex.close();
    await this.checkpoint.close().catch(() => undefined);
    await this.log.close();
  }
}
