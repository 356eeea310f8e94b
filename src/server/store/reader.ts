/**
 * Read side of the message store: pulls by queue offset, reads by physical offset, search by
 * time and by key. Reads only what is visible (below the confirmed end of the log), with
 * positional fs reads; neighbouring records of one pull come back from a single read, and recent
 * ones from the in-memory blocks of block-cache.ts.
 */
import { InvalidArgumentError } from '../../errors.js';
import { readInt64 } from '../../protocol/message/int64.js';
import { MessageSysFlag } from '../../protocol/message/sysflag.js';
import {
  MESSAGE_MAGIC_CODE,
  MESSAGE_MAGIC_CODE_V2,
  decodeStoredMessage,
} from '../../protocol/message/stored-message.js';
import { CQ_ENTRY_SIZE, readCqEntry, type ConsumeQueue, type CqEntry } from './consume-queue.js';
import { keysOf, type KeyIndex } from './key-index.js';
import { BlockCache } from './block-cache.js';
import { MIN_RECORD_SIZE } from './recovery.js';
import type { SegmentedFile } from './segmented-file.js';
import type { GetMessagesResult, PullSelection, TransferLimits } from './types.js';
import { acquireWriteBuffer } from '../../remoting/write-buffer-pool.js';

/** Java `maxTransferBytesOnMessageInMemory`: default byte budget of one getMessages call. */
export const DEFAULT_GET_MAX_BYTES = 256 * 1024;
/** Upper bound on consume-queue entries read by one getMessages call. */
const MAX_ENTRIES_PER_GET = 2048;
/**
 * Consume-queue entries a filtered pull scans at most for matching ones (Java
 * `maxFilterMessageCount`: 16000 bytes of entries).
 */
const JAVA_FILTER_SCAN_ENTRIES = 16000 / CQ_ENTRY_SIZE;
/** Two records of one queue closer than this in the log are read with one read. */
const READ_MERGE_GAP = 16 * 1024;
const READ_MERGE_SPAN = 1024 * 1024;

let scratch = Buffer.allocUnsafe(0);
/** The shared buffer for synchronous run reads (at least `length` bytes). */
function scratchOf(length: number): Buffer {
  if (scratch.length < length) scratch = Buffer.allocUnsafe(Math.max(length, 256 * 1024));
  return scratch;
}

/** What the reader needs from the store. */
export interface ReadSource {
  queueOf(topic: string, queueId: number): ConsumeQueue | undefined;
  /** End of the visible log. */
  confirmedPos(): number;
  /** Java's limits of one pull's answer. */
  readonly transferLimits: TransferLimits;
  /**
   * Records this close to the end of the log are taken to be in the page cache (Java's in-memory
   * zone) and read on the event-loop thread; older ones go through the thread pool, so a cold
   * disk read never stalls the broker.
   */
  readonly inMemoryBytes: number;
}

export class StoreReader {
  private readonly blocks: BlockCache;

  constructor(
    private readonly log: SegmentedFile,
    private readonly keyIndex: KeyIndex,
    private readonly source: ReadSource,
  ) {
    this.blocks = new BlockCache(log);
  }

  /**
   * Up to `maxNums` records of a queue from `offset`, within `maxBytes` (at least one record is
   * returned when any is available). Statuses and `nextBeginOffset` follow Java's
   * `DefaultMessageStore.getMessage` on a master. With `pull` (a consumer's pull), Java's transfer
   * limits apply too, and entries the filter rejects on their tags code are skipped without
   * reading the log: up to JAVA_FILTER_SCAN_ENTRIES of them are scanned for matching ones.
   */
  async getMessages(
    topic: string,
    queueId: number,
    offset: number,
    maxNums: number,
    maxBytes: number = DEFAULT_GET_MAX_BYTES,
    pull?: PullSelection,
  ): Promise<GetMessagesResult> {
    if (!Number.isSafeInteger(offset)) throw new InvalidArgumentError('offset', `not an integer: ${offset}`);
    const queue = this.source.queueOf(topic, queueId);
    const minOffset = queue?.minOffset ?? 0;
    const maxOffset = queue?.maxOffset ?? 0;
    const result = (status: GetMessagesResult['status'], nextBeginOffset: number): GetMessagesResult => ({
      status,
      messages: [],
      tagsCodes: [],
      nextBeginOffset,
      minOffset,
      maxOffset,
    });
    if (queue === undefined || maxOffset === 0) return result('NO_MESSAGE_IN_QUEUE', 0);
    if (offset < minOffset) return result('OFFSET_TOO_SMALL', minOffset);
    if (offset === maxOffset) return result('OFFSET_OVERFLOW_ONE', offset);
    if (offset > maxOffset) return result('OFFSET_OVERFLOW_BADLY', minOffset === 0 ? minOffset : maxOffset);

    // Like Java, a request for 0 (or nonsense) still returns one message.
    const want = Number.isFinite(maxNums)
      ? Math.max(1, Math.min(Math.floor(maxNums), MAX_ENTRIES_PER_GET))
      : 1;
    const { entries, scanned } = await this.selectEntries(queue, offset, want, maxBytes, pull);
    if (entries.length === 0)
      return scanned > 0
        ? result('NO_MATCHED_MESSAGE', offset + scanned)
        : result('OFFSET_FOUND_NULL', offset);
    const { records, body } = await this.readRecords(entries);
    const out = result('FOUND', offset + scanned);
    out.pooled = body;
    records.forEach((rec, i) => {
      if (rec !== undefined) {
        out.messages.push(rec);
        out.tagsCodes.push(entries[i]!.tagsCode);
      }
    });
    if (out.messages.length === 0) out.status = 'OFFSET_FOUND_NULL';
    else if (out.messages.length === entries.length) out.body = body;
    return out;
  }

  /**
   * The entries a read returns (Java's loop with `isTheBatchFull`): at most `want`, within
   * `maxBytes` and, for a pull, the transfer limits of where each record is (in memory or on
   * disk only); `scanned` counts the entries passed, matching or not (the next offset).
   */
  private async selectEntries(
    queue: ConsumeQueue,
    offset: number,
    want: number,
    maxBytes: number,
    pull: PullSelection | undefined,
  ): Promise<{ entries: CqEntry[]; scanned: number }> {
    const entries: CqEntry[] = [];
    const limits = this.source.transferLimits;
    const confirmed = this.source.confirmedPos();
    const scanMax = pull === undefined ? want : Math.max(want, JAVA_FILTER_SCAN_ENTRIES);
    let scanned = 0;
    let bytes = 0;
    while (scanned < scanMax) {
      // The first read takes what a pull without filtering needs; a filtered one reads on.
      const raw = await queue.readEntries(
        offset + scanned,
        Math.min(scanMax - scanned, scanned === 0 ? want : 256),
        true,
      );
      if (raw.length === 0) break;
      for (let at = 0; at < raw.length; at += CQ_ENTRY_SIZE) {
        const e = readCqEntry(raw, at);
        if (entries.length > 0) {
          if (bytes + e.size > maxBytes) return { entries, scanned };
          if (pull !== undefined) {
            const inDisk = confirmed - e.physicalOffset > this.source.inMemoryBytes;
            const maxTransferBytes = inDisk
              ? limits.maxTransferBytesOnMessageInDisk
              : limits.maxTransferBytesOnMessageInMemory;
            const maxTransferCount = inDisk
              ? limits.maxTransferCountOnMessageInDisk
              : limits.maxTransferCountOnMessageInMemory;
            if (bytes + e.size > maxTransferBytes || entries.length >= maxTransferCount)
              return { entries, scanned };
          }
        }
        scanned++;
        if (pull !== undefined && !pull.matchesEntry(e.tagsCode)) continue;
        entries.push(e);
        bytes += e.size;
        if (entries.length >= want) return { entries, scanned };
      }
    }
    return { entries, scanned };
  }

  /**
   * Reads records in runs (neighbours in the log come back from one read) and copies each into
   * one buffer sized for them all, so a pull body needs no further concatenation. Hot runs come
   * from the block cache, or are read synchronously into a reused scratch buffer (nothing else can
   * use either before the copy); runs are cut at block boundaries so that they fit a block.
   */
  private async readRecords(
    entries: CqEntry[],
  ): Promise<{ records: Array<Buffer | undefined>; body: Buffer }> {
    const records: Array<Buffer | undefined> = new Array<Buffer | undefined>(entries.length);
    const positions: number[] = new Array<number>(entries.length);
    let total = 0;
    const runs: Array<{ from: number; to: number; start: number; end: number }> = [];
    entries.forEach((e, i) => {
      positions[i] = total;
      total += e.size;
      const last = runs[runs.length - 1];
      const segStart = e.physicalOffset - (e.physicalOffset % this.log.segmentSize);
      if (
        last !== undefined &&
        e.physicalOffset >= last.end &&
        e.physicalOffset - last.end <= READ_MERGE_GAP &&
        e.physicalOffset + e.size - last.start <= READ_MERGE_SPAN &&
        last.start >= segStart &&
        // A run within one block is served from memory (block-cache.ts): keep it there.
        (!this.blocks.holds(last.start, last.end) || this.blocks.holds(last.start, e.physicalOffset + e.size))
      ) {
        last.to = i + 1;
        last.end = e.physicalOffset + e.size;
      } else {
        runs.push({ from: i, to: i + 1, start: e.physicalOffset, end: e.physicalOffset + e.size });
      }
    });
    const body = acquireWriteBuffer(total);
    await Promise.all(
      runs.map(async (run) => {
        if (run.end > this.source.confirmedPos() || run.start < this.log.minOffset) return;
        const len = run.end - run.start;
        const confirmed = this.source.confirmedPos();
        const hot = confirmed - run.start <= this.source.inMemoryBytes;
        const buf =
          (hot
            ? (this.blocks.read(run.start, len, confirmed) ??
              this.log.readSyncIfOpen(run.start, len, scratchOf(len)))
            : undefined) ?? (await this.log.read(run.start, len));
        for (let i = run.from; i < run.to; i++) {
          const e = entries[i]!;
          const at = e.physicalOffset - run.start;
          if (at + e.size > buf.length || e.size < MIN_RECORD_SIZE) continue;
          const magic = buf.readInt32BE(at + 4);
          if (
            buf.readInt32BE(at) !== e.size ||
            (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2)
          )
            continue;
          const pos = positions[i]!;
          buf.copy(body, pos, at, at + e.size);
          records[i] = body.subarray(pos, pos + e.size);
        }
      }),
    );
    return { records, body };
  }

  /** The record at a commit-log offset (VIEW_MESSAGE_BY_ID), or undefined when there is none. */
  async readMessageAt(physicalOffset: number): Promise<Buffer | undefined> {
    if (!Number.isSafeInteger(physicalOffset) || physicalOffset < this.log.minOffset) return undefined;
    const segEnd = physicalOffset - (physicalOffset % this.log.segmentSize) + this.log.segmentSize;
    const limit = Math.min(this.source.confirmedPos(), segEnd);
    if (physicalOffset + MIN_RECORD_SIZE > limit) return undefined;
    let buf = await this.log.read(physicalOffset, Math.min(4096, limit - physicalOffset));
    if (buf.length < 8) return undefined;
    const size = buf.readInt32BE(0);
    const magic = buf.readInt32BE(4);
    if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) return undefined;
    if (size < MIN_RECORD_SIZE || physicalOffset + size > limit) return undefined;
    if (size > buf.length) buf = await this.log.read(physicalOffset, size);
    if (buf.length < size) return undefined;
    const rec = buf.subarray(0, size);
    try {
      decodeStoredMessage(rec, 0);
    } catch {
      return undefined;
    }
    return rec;
  }

  /**
   * Java `checkInDiskByConsumeOffset`: the message at `offset` lies further than
   * `inMemoryBytes` from the end of the log. False when the queue has no such entry.
   */
  async checkInDiskByConsumeOffset(topic: string, queueId: number, offset: number): Promise<boolean> {
    const e = await this.source.queueOf(topic, queueId)?.entryAt(offset);
    return e !== undefined && this.source.confirmedPos() - e.physicalOffset > this.source.inMemoryBytes;
  }

  /**
   * First queue offset whose store timestamp is >= `timestamp` (binary search over the queue);
   * `maxOffset` when every message is older, `minOffset` when all are newer, 0 for an empty queue.
   */
  async getOffsetByTimestamp(topic: string, queueId: number, timestamp: number): Promise<number> {
    const queue = this.source.queueOf(topic, queueId);
    if (queue === undefined || queue.maxOffset === 0) return 0;
    let lo = queue.minOffset;
    let hi = queue.maxOffset;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const t = await this.storeTimestampAt(queue, mid);
      if (t !== undefined && t < timestamp) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private async storeTimestampAt(queue: ConsumeQueue, offset: number): Promise<number | undefined> {
    const e = await queue.entryAt(offset);
    if (e === undefined || e.physicalOffset + e.size > this.source.confirmedPos()) return undefined;
    const head = await this.log.read(e.physicalOffset, Math.min(e.size, 96));
    if (head.length < 76) return undefined;
    const sysFlag = head.readInt32BE(36);
    const at = 48 + ((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0 ? 20 : 8);
    return readInt64(head, at);
  }

  /**
   * Stored records of `topic` whose KEYS (space separated) or UNIQ_KEY equal `key` and whose
   * store timestamp is in [begin, end], newest first, at most `maxNum`.
   */
  async queryMessagesByKey(
    topic: string,
    key: string,
    maxNum: number,
    begin: number,
    end: number,
  ): Promise<Buffer[]> {
    const out: Buffer[] = [];
    if (maxNum <= 0) return out;
    const candidates = await this.keyIndex.lookup(topic, key, Math.max(256, maxNum * 8), begin, end);
    for (const offset of candidates) {
      if (out.length >= maxNum) break;
      const rec = await this.readMessageAt(offset);
      if (rec === undefined) continue;
      const { message } = decodeStoredMessage(rec, 0);
      if (message.topic !== topic || message.storeTimestamp < begin || message.storeTimestamp > end) continue;
      if (keysOf(message.properties).includes(key)) out.push(rec);
    }
    return out;
  }
}
