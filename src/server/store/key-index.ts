/**
 * The key index for QUERY_MESSAGE (Java `IndexService`): (topic, key) → commit-log offsets in
 * Java-layout index files under `<dataDir>/index/` (see `index-file.ts`), so a restart loads
 * them instead of rebuilding from the log. Only hashes are kept, so callers confirm each hit by
 * reading the record. Files are named by their creation time; the newest takes new keys and is
 * held in memory, the others are read from disk. Retention deletes files whose last offset is
 * below the commit log's first byte.
 */
import { mkdir, readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../observability/logger.js';
import { getProperty, PropertyKey } from '../../protocol/message/properties.js';
import { continueJavaStringHash, javaStringHashCode } from '../../protocol/java-string-hash.js';
import { IndexFile, type IndexGeometry } from './index-file.js';
import { continueAsciiHash, utf8Text } from './property-scan.js';

/** Key separator in the KEYS property (Java `MessageConst.KEY_SEPARATOR`). */
const KEY_SEPARATOR = ' ';
const FILE_NAME = /^\d{17}$/;

export class KeyIndex {
  private files: IndexFile[] = [];
  private sealing: Promise<void> = Promise.resolve();

  private constructor(
    readonly dir: string,
    private readonly geometry: IndexGeometry,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /**
   * Loads the index files. Returns `usable: false` (and no files) when some file does not
   * match `geometry` (the store was created with other index sizes): the caller rebuilds.
   */
  static async open(
    dir: string,
    geometry: IndexGeometry,
    now: () => number,
    logger: Logger,
  ): Promise<{ index: KeyIndex; usable: boolean }> {
    await mkdir(dir, { recursive: true });
    const index = new KeyIndex(dir, geometry, now, logger);
    const names = (await readdir(dir)).filter((n) => FILE_NAME.test(n)).sort();
    for (const name of names) {
      const file = await IndexFile.load(join(dir, name), geometry);
      if (file === undefined) {
        logger.warn('key index file does not match maxHashSlotNum/maxIndexNum; rebuilding', { file: name });
        await index.clear();
        return { index, usable: false };
      }
      index.files.push(file);
    }
    // Only the newest file takes keys; an older one that was never filled stays as it is.
    for (const f of index.files.slice(0, -1)) if (f.writable) await f.flush(true);
    return { index, usable: true };
  }

  /** Offset of the last record indexed (recovery re-adds only records after it). */
  get endPhyOffset(): number {
    for (let i = this.files.length - 1; i >= 0; i--) {
      const h = this.files[i]!.header;
      if (h.indexCount > 1) return h.endPhyOffset;
    }
    return -1;
  }

  get fileCount(): number {
    return this.files.length;
  }

  add(topic: string, key: string, physicalOffset: number, storeTimestamp: number): void {
    this.addHash(keyHash(topic, key), physicalOffset, storeTimestamp);
  }

  /** `add` with the key already hashed (`keyHash`). */
  addHash(hash: number, physicalOffset: number, storeTimestamp: number): void {
    let last = this.files[this.files.length - 1];
    if (last === undefined || !last.writable || last.isFull) {
      if (last?.writable === true) this.seal(last);
      last = IndexFile.create(this.nextPath(), this.geometry, physicalOffset);
      this.files.push(last);
    }
    last.put(hash, physicalOffset, storeTimestamp);
  }

  private seal(file: IndexFile): void {
    const flush = file.flush(true);
    this.sealing = this.sealing.then(() =>
      flush.catch((err: unknown) => this.logger.error('writing a full key index file failed', { err })),
    );
  }

  private nextPath(): string {
    const last = this.files[this.files.length - 1];
    let t = this.now();
    let name = timestampName(t);
    while (last !== undefined && name <= (last.path.slice(-17) ?? '')) name = timestampName(++t);
    return join(this.dir, name);
  }

  /** Candidate offsets for (topic, key) stored in [begin, end], newest first, at most `limit`. */
  async lookup(topic: string, key: string, limit: number, begin: number, end: number): Promise<number[]> {
    const hash = keyHash(topic, key);
    const out: number[] = [];
    for (let i = this.files.length - 1; i >= 0 && out.length < limit; i--) {
      const f = this.files[i]!;
      if (f.header.indexCount > 1 && f.timeMatches(begin, end)) await f.select(hash, limit, begin, end, out);
      if (f.header.beginTimestamp < begin) break;
    }
    return out;
  }

  /** The checkpoint's flush: full files finished, the newest written and fdatasync'ed. */
  async flush(): Promise<void> {
    await this.sealing;
    const last = this.files[this.files.length - 1];
    if (last?.writable === true) await last.flush();
  }

  /** Java `deleteExpiredFile`: files whose last offset is below `logMinOffset`, never the newest. */
  async deleteExpired(logMinOffset: number): Promise<number> {
    let deleted = 0;
    while (this.files.length > 1 && this.files[0]!.header.endPhyOffset < logMinOffset) {
      const f = this.files.shift()!;
      await f.close();
      await unlink(f.path).catch(() => undefined);
      deleted++;
    }
    return deleted;
  }

  /** Deletes every file (full rebuild). */
  async clear(): Promise<void> {
    await this.close();
    this.files = [];
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true });
  }

  async close(): Promise<void> {
    await this.sealing;
    for (const f of this.files) await f.close();
  }
}

/** `yyyyMMddHHmmssSSS` in local time, as Java names index files. */
function timestampName(t: number): string {
  const d = new Date(t);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    p(d.getFullYear(), 4) +
    p(d.getMonth() + 1) +
    p(d.getDate()) +
    p(d.getHours()) +
    p(d.getMinutes()) +
    p(d.getSeconds()) +
    p(d.getMilliseconds(), 3)
  );
}

/** Java `IndexService#buildKey` hashed as `IndexFile#indexKeyHashMethod`: |hashCode of topic#key|. */
export function keyHash(topic: string, key: string): number {
  return keyHashAfter(topicKeyPrefix(topic), key);
}

/** The hash state after `topic#`: a batch hashes its topic once (`keyHashAfter`). */
export function topicKeyPrefix(topic: string): number {
  return javaStringHashCode(topic + '#');
}

/** `keyHash(topic, key)` from `topicKeyPrefix(topic)`. */
export function keyHashAfter(prefix: number, key: string): number {
  return indexHash(continueJavaStringHash(prefix, key));
}

/** `keyHashAfter` of the key whose UTF-8 is `view[from, to)`, decoding it only when not ASCII. */
export function keyHashAfterBytes(prefix: number, view: DataView, from: number, to: number): number {
  const h = continueAsciiHash(prefix, view, from, to);
  return h !== undefined ? indexHash(h) : keyHashAfter(prefix, utf8Text(view, from, to));
}

/** Java `IndexFile#indexKeyHashMethod` of a String hashCode. */
function indexHash(hashCode: number): number {
  const h = Math.abs(hashCode);
  // Java's Math.abs(Integer.MIN_VALUE) stays negative and becomes 0.
  return h > 0x7fffffff ? 0 : h;
}

/** KEYS split by space plus UNIQ_KEY (what Java's IndexService indexes). */
export function keysOf(properties: string): string[] {
  const out: string[] = [];
  const keys = getProperty(properties, PropertyKey.KEYS);
  if (keys !== undefined) for (const k of keys.split(KEY_SEPARATOR)) if (k.length > 0) out.push(k);
  const uniq = getProperty(properties, PropertyKey.UNIQ_KEY);
  if (uniq !== undefined && !out.includes(uniq)) out.push(uniq);
  return out;
}
