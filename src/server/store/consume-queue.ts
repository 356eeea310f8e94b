/**
 * One consume queue: the index of a (topic, queueId) into the commit log. Entry `n` lives at
 * byte `n * 20` of the queue's segmented file and is Java's layout:
 * int64 commitLogOffset, int32 size, int64 tagsCode.
 */
import { readInt64, writeInt64 } from '../../protocol/message/int64.js';
import { SegmentedFile } from './segmented-file.js';
import type { StoreTestHooks } from './options.js';
import { javaStringHashCode } from '../../protocol/java-string-hash.js';

export const CQ_ENTRY_SIZE = 20;

export interface CqEntry {
  physicalOffset: number;
  size: number;
  tagsCode: number;
}

/** The tagsCode of a message with TAGS (0 without): Java `String.hashCode()` of the tags. */
export const tagsHashCode = javaStringHashCode;

export function writeCqEntry(
  buf: Buffer,
  at: number,
  physicalOffset: number,
  size: number,
  tagsCode: number,
): void {
  writeInt64(buf, physicalOffset, at);
  buf.writeInt32BE(size, at + 8);
  writeInt64(buf, tagsCode, at + 12);
}

export function readCqEntry(buf: Buffer, at: number): CqEntry {
  return {
    physicalOffset: readInt64(buf, at) ?? -1,
    size: buf.readInt32BE(at + 8),
    tagsCode: readInt64(buf, at + 12) ?? 0,
  };
}

export class ConsumeQueue {
  readonly topic: string;
  readonly queueId: number;
  /** Offset of the first entry. */
  minOffset = 0;
  /** Offset one past the last entry that is written and visible to readers. */
  maxOffset = 0;
  private readonly file: SegmentedFile;

  private constructor(topic: string, queueId: number, file: SegmentedFile) {
    this.topic = topic;
    this.queueId = queueId;
    this.file = file;
  }

  /** Opens (creating) the queue folder; the store rebuilds queues from the log, so it starts empty. */
  static async create(
    dir: string,
    topic: string,
    queueId: number,
    entriesPerFile: number,
    hooks?: StoreTestHooks,
  ): Promise<ConsumeQueue> {
    const file = await SegmentedFile.open(dir, entriesPerFile * CQ_ENTRY_SIZE, hooks);
    await file.truncate(0);
    return new ConsumeQueue(topic, queueId, file);
  }

  /** Writes entries starting at queue offset `first`, which must be `maxOffset` or pending past it. */
  async write(first: number, entries: Buffer): Promise<void> {
    await this.file.write(first * CQ_ENTRY_SIZE, entries);
  }

  /**
   * Raw entries `[offset, offset + count)` clipped to what is visible. Read synchronously when
   * the file is open: entries are 20 bytes, written moments ago, and a pull needs them before
   * anything else, so the thread-pool round trip would only add latency.
   */
  async readEntries(offset: number, count: number): Promise<Buffer> {
    const n = Math.max(0, Math.min(count, this.maxOffset - offset));
    if (n === 0 || offset < this.minOffset) return Buffer.alloc(0);
    const at = offset * CQ_ENTRY_SIZE;
    const len = n * CQ_ENTRY_SIZE;
    const buf = this.file.readSyncIfOpen(at, len) ?? (await this.file.read(at, len));
    return buf.subarray(0, buf.length - (buf.length % CQ_ENTRY_SIZE));
  }

  async entryAt(offset: number): Promise<CqEntry | undefined> {
    const buf = await this.readEntries(offset, 1);
    return buf.length === CQ_ENTRY_SIZE ? readCqEntry(buf, 0) : undefined;
  }

  /** Drops entries at or after `offset` (rollback of a failed append). */
  async truncate(offset: number): Promise<void> {
    await this.file.truncate(offset * CQ_ENTRY_SIZE);
    if (this.maxOffset > offset) this.maxOffset = offset;
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
