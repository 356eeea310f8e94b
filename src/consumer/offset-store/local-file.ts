/**
 * BROADCASTING offsets in a local file (Java `LocalFileOffsetStore`, docs/consumers.md §1.8): every
 * consumer of a broadcasting group reads every message, so each keeps its own offsets at
 * `<localOffsetStoreDir>/<clientId>/<group>/offsets.json`.
 *
 * The file is our own readable JSON, an array of `{topic, brokerName, queueId, offset}` sorted
 * like Java's `MessageQueue#compareTo` (Java's file uses fastjson object keys, which are not JSON).
 * Writes are atomic: a temporary file is written and fsynced, the previous good file becomes
 * `offsets.json.bak`, then the temporary file is renamed into place. A corrupt file falls back to
 * the `.bak`, then to no offsets, with a logged warning either way.
 */
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { MessageQueue } from '../../client/route.js';
import { InvalidArgumentError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { silentLogger } from '../../observability/logger.js';
import { compareMessageQueue } from '../allocate/order.js';
import {
  MemoryOffsetTable,
  messageQueueKey,
  OFFSET_NOT_FOUND,
  type OffsetStore,
  type ReadOffsetType,
  type StoredOffset,
} from './offset-store.js';

export interface LocalFileOffsetStoreOptions {
  /** The consumer's client id (`ip@instanceName`; broadcasting keeps `DEFAULT`, so it is stable). */
  clientId: string;
  /** The consumer group (wire name). */
  consumerGroup: string;
  /**
   * Root directory (Java system property `rocketmq.client.localOffsetStoreDir`).
   * @default `~/.rocketmq_offsets`
   */
  localOffsetStoreDir: string;
  /** @default silentLogger */
  logger: Logger;
}

export const LOCAL_FILE_OFFSET_STORE_DEFAULTS: Readonly<Pick<LocalFileOffsetStoreOptions, 'logger'>> =
  Object.freeze({
    logger: silentLogger,
  });

/** Java's default root, `${user.home}/.rocketmq_offsets`. */
export function defaultLocalOffsetStoreDir(): string {
  return join(homedir(), '.rocketmq_offsets');
}

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'clientId',
  'consumerGroup',
  'localOffsetStoreDir',
  'logger',
]);

function pathSegment(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new InvalidArgumentError(field, 'must be a non-empty string');
  // The value becomes one directory name: it must not climb out of or split the store directory.
  if (/[/\\\0]/.test(value) || value === '.' || value === '..') {
    throw new InvalidArgumentError(field, `cannot be used as a directory name: ${JSON.stringify(value)}`);
  }
  return value;
}

export function validateLocalFileOffsetStoreOptions(
  options: Partial<LocalFileOffsetStoreOptions> &
    Pick<LocalFileOffsetStoreOptions, 'clientId' | 'consumerGroup'>,
): LocalFileOffsetStoreOptions {
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new InvalidArgumentError(key, 'unknown local offset store option');
  }
  const dir = options.localOffsetStoreDir ?? defaultLocalOffsetStoreDir();
  if (typeof dir !== 'string' || dir.length === 0) {
    throw new InvalidArgumentError('localOffsetStoreDir', 'must be a non-empty path');
  }
  const logger = options.logger ?? LOCAL_FILE_OFFSET_STORE_DEFAULTS.logger;
  if (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function') {
    throw new InvalidArgumentError('logger', 'must be a Logger');
  }
  return {
    clientId: pathSegment('clientId', options.clientId),
    consumerGroup: pathSegment('consumerGroup', options.consumerGroup),
    localOffsetStoreDir: dir,
    logger,
  };
}

interface FileEntry {
  topic: string;
  brokerName: string;
  queueId: number;
  offset: number;
}

/** Parses the file; anything but a well-formed array of entries throws. */
function parseOffsetFile(text: string): FileEntry[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error('not a JSON array');
  return value.map((raw: unknown, i) => {
    const e = raw as Partial<FileEntry> | null;
    if (
      typeof e !== 'object' ||
      e === null ||
      typeof e.topic !== 'string' ||
      typeof e.brokerName !== 'string' ||
      !Number.isInteger(e.queueId) ||
      !Number.isSafeInteger(e.offset)
    ) {
      throw new Error(`entry ${i} is not {topic, brokerName, queueId, offset}`);
    }
    return { topic: e.topic, brokerName: e.brokerName, queueId: e.queueId!, offset: e.offset! };
  });
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

export class LocalFileOffsetStore implements OffsetStore {
  readonly options: LocalFileOffsetStoreOptions;
  /** `<dir>/<clientId>/<group>/offsets.json`. */
  readonly storePath: string;
  private readonly memory = new MemoryOffsetTable();
  /** File operations run one after another, so a read never sees a half-done replace. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    options: Partial<LocalFileOffsetStoreOptions> &
      Pick<LocalFileOffsetStoreOptions, 'clientId' | 'consumerGroup'>,
  ) {
    this.options = validateLocalFileOffsetStoreOptions(options);
    this.storePath = join(
      this.options.localOffsetStoreDir,
      this.options.clientId,
      this.options.consumerGroup,
      'offsets.json',
    );
  }

  async load(): Promise<void> {
    const { entries } = await this.serial(() => this.readFileEntries());
    for (const e of entries) this.memory.update(e, e.offset, false);
  }

  async readOffset(mq: MessageQueue, type: ReadOffsetType = 'MEMORY_THEN_STORE'): Promise<number> {
    if (type !== 'STORE') {
      const offset = this.memory.get(mq);
      if (offset !== undefined) return offset;
      if (type === 'MEMORY') return OFFSET_NOT_FOUND;
    }
    const { entries } = await this.serial(() => this.readFileEntries());
    const key = messageQueueKey(mq);
    const found = entries.find((e) => messageQueueKey(e) === key);
    if (found === undefined) return OFFSET_NOT_FOUND;
    this.memory.update(mq, found.offset, false);
    return found.offset;
  }

  /** The file's offset; a 0 in our own file is always a stored 0. */
  async readStoredOffset(mq: MessageQueue): Promise<StoredOffset> {
    return { offset: await this.readOffset(mq, 'STORE'), ambiguousZero: false };
  }

  memoryOffset(mq: MessageQueue): number {
    return this.memory.get(mq) ?? OFFSET_NOT_FOUND;
  }

  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.memory.update(mq, offset, increaseOnly);
  }

  /** Writes the memory offsets of `heldMqs` into the file, keeping its other entries (Java). */
  async persistAll(heldMqs: Iterable<MessageQueue>): Promise<void> {
    const updates = new Map<string, FileEntry>();
    for (const mq of heldMqs) {
      const offset = this.memory.get(mq);
      if (offset !== undefined) updates.set(messageQueueKey(mq), { ...pick(mq), offset });
    }
    if (updates.size === 0) return;
    await this.serial(() => this.writeMerged(updates));
  }

  async persist(mq: MessageQueue): Promise<void> {
    await this.persistAll([mq]);
  }

  /** One file write for all of `mqs`: each is confirmed when it had an offset and the write succeeded. */
  async commitAll(mqs: readonly MessageQueue[]): Promise<boolean[]> {
    const has = mqs.map((mq) => this.memory.get(mq) !== undefined);
    try {
      await this.persistAll(mqs);
    } catch (err) {
      this.options.logger.warn('writing the local offset file failed', { path: this.storePath, error: err });
      return mqs.map(() => false);
    }
    return has;
  }

  /** Forgets the memory offset; the file keeps its entry, as Java's store does. */
  removeOffset(mq: MessageQueue): void {
    this.memory.remove(mq);
  }

  /** Memory offsets, optionally of one topic (Java `cloneOffsetTable`). */
  offsets(topic?: string): { mq: MessageQueue; offset: number }[] {
    return this.memory.entries(topic);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The main file, else the `.bak`, else nothing; `mainGood` says whether the main file parsed. */
  private async readFileEntries(): Promise<{ entries: FileEntry[]; mainGood: boolean }> {
    const main = await this.tryRead(this.storePath);
    if (main.entries !== undefined) return { entries: main.entries, mainGood: true };
    const bak = await this.tryRead(`${this.storePath}.bak`);
    if (main.problem !== undefined) {
      this.options.logger.warn(
        bak.entries !== undefined
          ? 'local offset file unreadable; using its .bak'
          : 'local offset file and its .bak unreadable; starting without stored offsets',
        { path: this.storePath, problem: main.problem, bakProblem: bak.problem },
      );
    } else if (bak.problem !== undefined) {
      this.options.logger.warn(
        'local offset file missing and its .bak unreadable; starting without stored offsets',
        {
          path: this.storePath,
          bakProblem: bak.problem,
        },
      );
    }
    return { entries: bak.entries ?? [], mainGood: false };
  }

  /** `entries` when the file parsed; `problem` when it exists but cannot be used; neither when absent. */
  private async tryRead(path: string): Promise<{ entries?: FileEntry[]; problem?: string }> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      return isNotFound(err) ? {} : { problem: (err as Error).message };
    }
    try {
      return { entries: parseOffsetFile(text) };
    } catch (err) {
      return { problem: (err as Error).message };
    }
  }

  private async writeMerged(updates: ReadonlyMap<string, FileEntry>): Promise<void> {
    const { entries, mainGood } = await this.readFileEntries();
    const merged = new Map(entries.map((e) => [messageQueueKey(e), e] as const));
    for (const [key, e] of updates) merged.set(key, e);
    const sorted = [...merged.values()].sort(compareMessageQueue);
    const dir = dirname(this.storePath);
    await mkdir(dir, { recursive: true });
    const tmp = `${this.storePath}.tmp`;
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(`${JSON.stringify(sorted, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    // Only a file that parsed may become the fallback; a corrupt one is simply replaced.
    if (mainGood) await rename(this.storePath, `${this.storePath}.bak`);
    await rename(tmp, this.storePath);
    await syncDirectory(dir);
  }
}

function pick(mq: MessageQueue): MessageQueue {
  return { topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId };
}

/** Makes the renames durable; some platforms cannot open a directory, which only costs durability. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // EISDIR/EPERM on Windows: nothing more to do.
  }
}
