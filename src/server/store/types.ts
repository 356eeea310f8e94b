/** Value types of the message store API (docs/architecture.md §3, server/store). */
import type { SocketAddress } from '../../protocol/message/stored-message.js';

/** Java `PutMessageStatus` subset; the broker maps these to response codes (docs/protocol.md §3.5). */
export type PutStatus =
  | 'PUT_OK'
  | 'FLUSH_DISK_TIMEOUT'
  | 'MESSAGE_ILLEGAL'
  | 'PROPERTIES_SIZE_EXCEEDED'
  | 'SERVICE_NOT_AVAILABLE'
  | 'UNKNOWN_ERROR';

/** A message as the broker hands it to the store; offsets and store time are assigned on append. */
export interface MessageToStore {
  topic: string;
  queueId: number;
  flag: number;
  sysFlag: number;
  bornTimestamp: number;
  bornHost: SocketAddress;
  storeHost: SocketAddress;
  reconsumeTimes: number;
  preparedTransactionOffset: number;
  body: Uint8Array;
  /** §4.1 properties string. */
  properties: string;
}

export interface PutResult {
  status: PutStatus;
  /** Commit-log offset of the record; -1 unless stored. */
  physicalOffset: number;
  /** Offset in the consume queue; -1 unless stored. */
  queueOffset: number;
  /** Size of the stored record; 0 unless stored. */
  wroteBytes: number;
  /** Store timestamp written into the record; 0 unless stored. */
  storeTimestamp: number;
  /** Why the put failed, for `SERVICE_NOT_AVAILABLE` / `UNKNOWN_ERROR` / illegal messages. */
  error?: Error;
}

/** Java `GetMessageStatus` subset. */
export type GetMessageStatus =
  | 'FOUND'
  | 'NO_MESSAGE_IN_QUEUE'
  | 'OFFSET_TOO_SMALL'
  | 'OFFSET_OVERFLOW_ONE'
  | 'OFFSET_OVERFLOW_BADLY'
  | 'OFFSET_FOUND_NULL'
  /** Every entry scanned failed the pull's consume-queue filter (the broker answers PULL_RETRY_IMMEDIATELY). */
  | 'NO_MATCHED_MESSAGE';

/** Java `MessageStoreConfig` limits of one pull's answer, by where its records are. */
export interface TransferLimits {
  maxTransferBytesOnMessageInMemory: number;
  maxTransferCountOnMessageInMemory: number;
  maxTransferBytesOnMessageInDisk: number;
  maxTransferCountOnMessageInDisk: number;
}

/** What a consumer's pull adds to a read: Java's transfer limits and its consume-queue filter. */
export interface PullSelection {
  /** The filter's consume-queue stage: entries it rejects are skipped without reading the log. */
  matchesEntry(tagsCode: number): boolean;
}

export interface GetMessagesResult {
  status: GetMessageStatus;
  /** Stored-format records (docs/protocol.md §6.2); concatenated they form a PULL response body. */
  messages: Buffer[];
  /**
   * When every record came back: all of `messages` back to back in one buffer (they are views
   * of it), which is a PULL body as it is, without another copy.
   */
  body?: Buffer;
  /**
   * The pooled buffer `messages` are views of (remoting/write-buffer-pool.ts). A caller that
   * knows when it is done with them may release it (the pull processor, after the write); one
   * that does not leaves it to the garbage collector.
   */
  pooled?: Buffer;
  /**
   * Consume-queue `tagsCode` of each returned message (Java `String.hashCode()` of TAGS, 0 when
   * absent), parallel to `messages`; lets the broker filter by tag without decoding.
   */
  tagsCodes: number[];
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
}
