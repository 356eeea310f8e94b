/**
 * Options of {@link MessageStore}. Names follow Java's `MessageStoreConfig` where one exists.
 */
import { silentLogger, type Logger } from '../../observability/logger.js';
import { InvalidArgumentError } from '../../errors.js';
import {
  checkBoolean,
  checkEnum,
  checkInt,
  checkPositive,
  checkLogger,
  checkObject,
  checkString,
  withDefaults,
} from '../../options.js';

/** Called before the store touches a file; throwing makes that operation fail. Tests only. */
export interface StoreTestHooks {
  /** Before every positional write to a commit-log or consume-queue file. */
  beforeWrite?(file: string, position: number, length: number): void;
  /** Before every `fdatasync` of a commit-log segment. May return a promise to delay it. */
  beforeSync?(file: string): void | Promise<void>;
  /** The clock retention reads (hour of `deleteWhen`, file age). @default Date.now */
  now?(): number;
  /** Used fraction (0..1) of the disk holding `dir`; replaces the `statfs` probe of retention. */
  diskUsedRatio?(dir: string): number | Promise<number>;
}

export interface StoreOptions {
  /** Root folder holding `commitlog/`, `consumequeue/` and `config/`. Required. */
  dataDir: string;
  /**
   * Size of one commit-log segment file in bytes (Java `mappedFileSizeCommitLog`, 1 GiB there).
   * @default 67108864 (64 MiB)
   */
  segmentSize: number;
  /**
   * `'sync'`: `putMessage` resolves only after the record is written *and* fdatasync'ed, so an
   * acknowledged message survives SIGKILL and power loss; concurrent puts share one fsync
   * (group commit). `'async'`: resolves once written to the OS (survives SIGKILL of the process,
   * not a power loss); dirty segments are fdatasync'ed every `flushIntervalMs`.
   * @default 'async'
   */
  flush: 'async' | 'sync';
  /** Period of the background fdatasync in async mode (Java `flushIntervalCommitLog`). @default 500 */
  flushIntervalMs: number;
  /** Largest message body accepted; bigger bodies give `MESSAGE_ILLEGAL`. @default 4194304 (4 MiB) */
  maxMessageSize: number;
  /** @default silentLogger */
  logger: Logger;
  /** In sync mode, a put whose fsync takes longer resolves with `FLUSH_DISK_TIMEOUT`. @default 5000 */
  syncFlushTimeoutMs: number;
  /** Entries per consume-queue file (20 bytes each; Java 300000). @default 300000 */
  consumeQueueEntriesPerFile: number;
  /**
   * Hash slots per key-index file (Java `maxHashSlotNum`, 5000000 there). The writable index
   * file is held in memory (4 bytes per slot + 20 per entry), so ours are smaller.
   * @default 262144
   */
  maxHashSlotNum: number;
  /** Entries per key-index file (Java `maxIndexNum`, 20000000 there). @default 1048576 */
  maxIndexNum: number;
  /**
   * Period of the checkpoint: consume queues and the key index are fdatasync'ed and
   * `checkpoint` records the commit-log offset they cover, so a restart after a crash rescans
   * only the log written since (Java flushes consume queues every `flushIntervalConsumeQueue`,
   * 1000 ms, and writes its checkpoint every 60 s). @default 1000
   */
  checkpointIntervalMs: number;
  /** Hours a commit-log file is kept after its last write (Java `fileReservedTime`). @default 72 */
  fileReservedTime: number;
  /** Hours of day, `;`-separated, when expired files are deleted (Java `deleteWhen`). @default '04' */
  deleteWhen: string;
  /** Disk use (percent) above which expired files are deleted at any hour (Java). @default 75 */
  diskMaxUsedSpaceRatio: number;
  /**
   * Disk use (fraction) above which files are deleted even if not expired and even if a
   * consumer group has not consumed them (Java `diskSpaceCleanForciblyRatio`). @default 0.85
   */
  diskSpaceCleanForciblyRatio: number;
  /** Disk use (fraction) above which puts are refused as disk full (Java). @default 0.9 */
  diskSpaceWarningLevelRatio: number;
  /** Allow the forced deletion above `diskSpaceCleanForciblyRatio` (Java). @default true */
  cleanFileForciblyEnable: boolean;
  /**
   * Period of the retention pass (Java `cleanResourceInterval`); the first runs 60 s after open
   * (Java), or after 6 periods when that is sooner. @default 10000
   */
  cleanResourceIntervalMs: number;
  /** Pause between two file deletions (Java `deleteCommitLogFilesInterval`). @default 100 */
  deleteCommitLogFilesIntervalMs: number;
  /** Most commit-log files deleted per pass (Java 5 `deleteFileBatchMax`). @default 10 */
  deleteFileBatchMax: number;
  /** Period of the consumer-offset file persistence (Java `flushConsumerOffsetInterval`). @default 5000 */
  offsetPersistIntervalMs: number;
  /** Bytes of accepted but not yet written messages above which puts get `SERVICE_NOT_AVAILABLE`. @default 67108864 */
  maxPendingBytes: number;
  /**
   * Percent of RAM, counted back from the end of the commit log, taken to be in the page cache
   * (Java `accessMessageInMemoryMaxRatio`): such records are read on the event-loop thread, and a
   * new group's message 0 beyond it makes QUERY_CONSUMER_OFFSET answer QUERY_NOT_FOUND. @default 40
   */
  accessMessageInMemoryMaxRatio: number;
  /** Bytes one pull returns at most while its records are in memory (Java's name). @default 262144 */
  maxTransferBytesOnMessageInMemory: number;
  /** Messages one pull returns at most while its records are in memory (Java's name). @default 32 */
  maxTransferCountOnMessageInMemory: number;
  /** Bytes one pull returns at most once its records are on disk only (Java's name). @default 65536 */
  maxTransferBytesOnMessageInDisk: number;
  /** Messages one pull returns at most once its records are on disk only (Java's name). @default 8 */
  maxTransferCountOnMessageInDisk: number;
  /** Fault hooks for tests. @default undefined */
  testHooks: StoreTestHooks | undefined;
}

export const DEFAULT_STORE_OPTIONS: Readonly<Omit<StoreOptions, 'dataDir'>> = Object.freeze({
  segmentSize: 64 * 1024 * 1024,
  flush: 'async',
  flushIntervalMs: 500,
  maxMessageSize: 4 * 1024 * 1024,
  logger: silentLogger,
  syncFlushTimeoutMs: 5000,
  consumeQueueEntriesPerFile: 300_000,
  maxHashSlotNum: 1 << 18,
  maxIndexNum: 1 << 20,
  checkpointIntervalMs: 1000,
  fileReservedTime: 72,
  deleteWhen: '04',
  diskMaxUsedSpaceRatio: 75,
  diskSpaceCleanForciblyRatio: 0.85,
  diskSpaceWarningLevelRatio: 0.9,
  cleanFileForciblyEnable: true,
  cleanResourceIntervalMs: 10_000,
  deleteCommitLogFilesIntervalMs: 100,
  deleteFileBatchMax: 10,
  offsetPersistIntervalMs: 5000,
  maxPendingBytes: 64 * 1024 * 1024,
  accessMessageInMemoryMaxRatio: 40,
  maxTransferBytesOnMessageInMemory: 256 * 1024,
  maxTransferCountOnMessageInMemory: 32,
  maxTransferBytesOnMessageInDisk: 64 * 1024,
  maxTransferCountOnMessageInDisk: 8,
  testHooks: undefined,
});

const STORE_OPTION_NAMES = ['dataDir', ...Object.keys(DEFAULT_STORE_OPTIONS)];

/** Smallest segment that holds a 4 KiB message plus the end-of-file blank. */
const MIN_SEGMENT_SIZE = 4096;

function checkRatio(field: string, value: unknown): void {
  checkPositive(field, value);
  if ((value as number) > 1) throw new InvalidArgumentError(field, `must be in (0, 1], got ${String(value)}`);
}

/** Fills defaults and validates; throws `InvalidArgumentError` naming the bad option. */
export function resolveStoreOptions(input: Partial<StoreOptions> & { dataDir: string }): StoreOptions {
  const options = withDefaults<StoreOptions>(DEFAULT_STORE_OPTIONS, input, STORE_OPTION_NAMES);
  checkString('dataDir', options.dataDir);
  checkInt('segmentSize', options.segmentSize, MIN_SEGMENT_SIZE, 2 ** 31 - 1);
  checkEnum('flush', options.flush, ['async', 'sync'] as const);
  checkInt('flushIntervalMs', options.flushIntervalMs, 1);
  checkInt('maxMessageSize', options.maxMessageSize, 1);
  checkInt('syncFlushTimeoutMs', options.syncFlushTimeoutMs, 1);
  checkInt('consumeQueueEntriesPerFile', options.consumeQueueEntriesPerFile, 1);
  checkInt('maxHashSlotNum', options.maxHashSlotNum, 1, 2 ** 27);
  checkInt('maxIndexNum', options.maxIndexNum, 2, 2 ** 27);
  checkInt('checkpointIntervalMs', options.checkpointIntervalMs, 1);
  checkPositive('fileReservedTime', options.fileReservedTime);
  checkString('deleteWhen', options.deleteWhen, { pattern: /^\d{1,2}(;\d{1,2})*$/ });
  checkInt('diskMaxUsedSpaceRatio', options.diskMaxUsedSpaceRatio, 10, 95);
  checkRatio('diskSpaceCleanForciblyRatio', options.diskSpaceCleanForciblyRatio);
  checkRatio('diskSpaceWarningLevelRatio', options.diskSpaceWarningLevelRatio);
  checkBoolean('cleanFileForciblyEnable', options.cleanFileForciblyEnable);
  checkInt('cleanResourceIntervalMs', options.cleanResourceIntervalMs, 1);
  checkInt('deleteCommitLogFilesIntervalMs', options.deleteCommitLogFilesIntervalMs, 0);
  checkInt('deleteFileBatchMax', options.deleteFileBatchMax, 1);
  checkInt('offsetPersistIntervalMs', options.offsetPersistIntervalMs, 1);
  checkInt('maxPendingBytes', options.maxPendingBytes, 1);
  checkLogger('logger', options.logger);
  if (options.testHooks !== undefined) checkObject('testHooks', options.testHooks);
  checkInt('accessMessageInMemoryMaxRatio', options.accessMessageInMemoryMaxRatio, 0, 100);
  checkInt('maxTransferBytesOnMessageInMemory', options.maxTransferBytesOnMessageInMemory, 1);
  checkInt('maxTransferCountOnMessageInMemory', options.maxTransferCountOnMessageInMemory, 1);
  checkInt('maxTransferBytesOnMessageInDisk', options.maxTransferBytesOnMessageInDisk, 1);
  checkInt('maxTransferCountOnMessageInDisk', options.maxTransferCountOnMessageInDisk, 1);
  return options;
}
