/**
 * Options of {@link MessageStore}. Names follow Java's `MessageStoreConfig` where one exists.
 */
import { silentLogger, type Logger } from '../../observability/logger.js';
import { checkEnum, checkInt, checkLogger, checkObject, checkString, withDefaults } from '../../options.js';

/** Called before the store touches a file; throwing makes that operation fail. Tests only. */
export interface StoreTestHooks {
  /** Before every positional write to a commit-log or consume-queue file. */
  beforeWrite?(file: string, position: number, length: number): void;
  /** Before every `fdatasync` of a commit-log segment. May return a promise to delay it. */
  beforeSync?(file: string): void | Promise<void>;
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
   * Capacity of the in-memory key index (KEYS and UNIQ_KEY → commit-log offset). Oldest entries
   * are overwritten when full. Costs about 28 bytes per entry. @default 1048576
   */
  keyIndexCapacity: number;
  /** Period of the consumer-offset file persistence (Java `flushConsumerOffsetInterval`). @default 5000 */
  offsetPersistIntervalMs: number;
  /** Bytes of accepted but not yet written messages above which puts get `SERVICE_NOT_AVAILABLE`. @default 67108864 */
  maxPendingBytes: number;
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
  keyIndexCapacity: 1 << 20,
  offsetPersistIntervalMs: 5000,
  maxPendingBytes: 64 * 1024 * 1024,
  testHooks: undefined,
});

const STORE_OPTION_NAMES = ['dataDir', ...Object.keys(DEFAULT_STORE_OPTIONS)];

/** Smallest segment that holds a 4 KiB message plus the end-of-file blank. */
const MIN_SEGMENT_SIZE = 4096;

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
  checkInt('keyIndexCapacity', options.keyIndexCapacity, 16);
  checkInt('offsetPersistIntervalMs', options.offsetPersistIntervalMs, 1);
  checkInt('maxPendingBytes', options.maxPendingBytes, 1);
  checkLogger('logger', options.logger);
  if (options.testHooks !== undefined) checkObject('testHooks', options.testHooks);
  return options;
}
