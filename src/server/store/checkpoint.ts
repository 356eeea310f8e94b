/**
 * `<dataDir>/checkpoint` and `<dataDir>/abort` (Java `StoreCheckpoint` and the abort file).
 *
 * The checkpoint is one 4 KiB page. Bytes 0–39 are Java's: physicMsgTimestamp, logicsMsgTimestamp,
 * indexMsgTimestamp, masterFlushedOffset, confirmPhyOffset (int64 each). Ours follow: at 64 the
 * magic `RMTS` and a version (int32 each), at 72 `recoverOffset` (int64) — the commit-log offset
 * below which the commit log, every consume queue and the key index were fdatasync'ed when the
 * page was written — and at 80 the CRC-32 of bytes 0–79. A restart re-dispatches the log only
 * from `recoverOffset`; a page that fails its CRC counts as missing (full rebuild).
 *
 * `abort` exists while the store is open; finding it at open means the last run did not close.
 */
import { open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from '../../protocol/message/crc32.js';
import { readInt64, writeInt64 } from '../../protocol/message/int64.js';

const PAGE = 4096;
const MAGIC = 0x524d5453; // 'RMTS'
const VERSION = 1;
const CRC_AT = 80;

export interface CheckpointState {
  /** Store time of the last record below `recoverOffset` (Java's three timestamps). */
  timestamp: number;
  recoverOffset: number;
}

export class StoreCheckpoint {
  private handle: FileHandle | undefined;
  private readonly page = Buffer.alloc(PAGE);

  constructor(readonly dir: string) {}

  get path(): string {
    return join(this.dir, 'checkpoint');
  }

  /** The stored state; undefined when the file is missing, short or fails its CRC. */
  async load(): Promise<CheckpointState | undefined> {
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const buf = Buffer.alloc(PAGE);
      const { bytesRead } = await fh.read(buf, 0, PAGE, 0);
      if (bytesRead < CRC_AT + 4) return undefined;
      if (buf.readInt32BE(64) !== MAGIC || buf.readInt32BE(68) !== VERSION) return undefined;
      if (buf.readUInt32BE(CRC_AT) !== crc32(buf.subarray(0, CRC_AT))) return undefined;
      const recoverOffset = readInt64(buf, 72);
      if (recoverOffset === undefined || recoverOffset < 0) return undefined;
      return { timestamp: readInt64(buf, 0) ?? 0, recoverOffset };
    } finally {
      await fh.close();
    }
  }

  /** Overwrites the page in place and fdatasyncs it. */
  async write(state: CheckpointState): Promise<void> {
    const p = this.page;
    p.fill(0);
    for (const at of [0, 8, 16]) writeInt64(p, state.timestamp, at);
    writeInt64(p, state.recoverOffset, 24);
    writeInt64(p, state.recoverOffset, 32);
    p.writeInt32BE(MAGIC, 64);
    p.writeInt32BE(VERSION, 68);
    writeInt64(p, state.recoverOffset, 72);
    p.writeUInt32BE(crc32(p.subarray(0, CRC_AT)), CRC_AT);
    // 'a+' would force appends; create the file once, then write the page in place.
    if (this.handle === undefined) {
      await (await open(this.path, 'a')).close();
      this.handle = await open(this.path, 'r+');
    }
    const handle = this.handle;
    await handle.write(p, 0, PAGE, 0);
    await handle.datasync();
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    await h?.close();
  }
}

/** The abort marker: `mark()` at open, `clear()` after a clean close. */
export const abortFile = {
  path: (dir: string): string => join(dir, 'abort'),
  async exists(dir: string): Promise<boolean> {
    try {
      await (await open(join(dir, 'abort'), 'r')).close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  },
  mark: (dir: string): Promise<void> => writeFile(join(dir, 'abort'), ''),
  clear: (dir: string): Promise<void> => rm(join(dir, 'abort'), { force: true }),
};
