/**
 * Validation of a message before it joins the write queue, with the status Java's store gives
 * each problem, and the pre-computed parts of its stored record.
 */
import { getProperty, PropertyKey } from '../../protocol/message/properties.js';
import {
  MAX_PROPERTIES_BYTES,
  storedMessageSize,
  type StoredMessage,
} from '../../protocol/message/stored-message.js';
import { tagsHashCode } from './consume-queue.js';
import { keysOf } from './key-index.js';
import type { StoreOptions } from './options.js';
import { END_FILE_MIN_BLANK_LENGTH } from './recovery.js';
import type { MessageToStore, PutResult, PutStatus } from './types.js';

/** A validated message; offsets and store time are filled in by the writer. */
export interface Prepared {
  stored: StoredMessage;
  /** Size of the encoded record. */
  size: number;
  tagsCode: number;
  /** KEYS and UNIQ_KEY, for the key index. */
  keys: string[];
}

/** Topics already found to be valid folder names: the check runs once per topic, not per put. */
const checkedTopics = new Set<unknown>();
const CHECKED_TOPICS_MAX = 4096;

export function failed(status: PutStatus, error?: Error): PutResult {
  return { status, physicalOffset: -1, queueOffset: -1, wroteBytes: 0, storeTimestamp: 0, error };
}

/** A topic that names a folder and a queue id in int32 range, or the failure saying why not. */
export function checkPlacement(topic: string, queueId: number): PutResult | undefined {
  if (!checkedTopics.has(topic)) {
    if (
      typeof topic !== 'string' ||
      topic.length === 0 ||
      topic === '.' ||
      topic === '..' ||
      /[/\\\0]/.test(topic)
    ) {
      return failed('MESSAGE_ILLEGAL', new RangeError(`illegal topic ${JSON.stringify(topic)}`));
    }
    if (checkedTopics.size >= CHECKED_TOPICS_MAX) checkedTopics.clear();
    checkedTopics.add(topic);
  }
  if (!Number.isInteger(queueId) || queueId < 0 || queueId > 0x7fffffff) {
    return failed('MESSAGE_ILLEGAL', new RangeError(`illegal queueId ${queueId}`));
  }
  return undefined;
}

/** A problem gives `MESSAGE_ILLEGAL` or `PROPERTIES_SIZE_EXCEEDED` with the reason in `error`. */
export function prepareMessage(msg: MessageToStore, options: Readonly<StoreOptions>): Prepared | PutResult {
  const placement = checkPlacement(msg.topic, msg.queueId);
  if (placement !== undefined) return placement;
  const topic = msg.topic;
  if (!(msg.body instanceof Uint8Array))
    return failed('MESSAGE_ILLEGAL', new TypeError('body must be bytes'));
  if (msg.body.byteLength > options.maxMessageSize) {
    return failed(
      'MESSAGE_ILLEGAL',
      new RangeError(`body of ${msg.body.byteLength} bytes exceeds maxMessageSize ${options.maxMessageSize}`),
    );
  }
  const properties = msg.properties ?? '';
  if (Buffer.byteLength(properties, 'utf8') > MAX_PROPERTIES_BYTES) {
    return failed(
      'PROPERTIES_SIZE_EXCEEDED',
      new RangeError(`properties exceed ${MAX_PROPERTIES_BYTES} bytes`),
    );
  }
  const body = Buffer.isBuffer(msg.body)
    ? msg.body
    : Buffer.from(msg.body.buffer, msg.body.byteOffset, msg.body.byteLength);
  const stored: StoredMessage = {
    queueId: msg.queueId,
    flag: msg.flag,
    queueOffset: 0,
    physicalOffset: 0,
    sysFlag: msg.sysFlag,
    bornTimestamp: msg.bornTimestamp,
    bornHost: msg.bornHost,
    storeTimestamp: 0,
    storeHost: msg.storeHost,
    reconsumeTimes: msg.reconsumeTimes,
    preparedTransactionOffset: msg.preparedTransactionOffset,
    body,
    topic,
    properties,
  };
  let size: number;
  try {
    size = storedMessageSize(stored);
  } catch (err) {
    return failed('MESSAGE_ILLEGAL', err as Error);
  }
  if (size + END_FILE_MIN_BLANK_LENGTH > options.segmentSize) {
    return failed(
      'MESSAGE_ILLEGAL',
      new RangeError(`record of ${size} bytes does not fit a commit-log segment`),
    );
  }
  const tags = getProperty(properties, PropertyKey.TAGS);
  return { stored, size, tagsCode: tags === undefined ? 0 : tagsHashCode(tags), keys: keysOf(properties) };
}
