/**
 * [5.x] Auto-batching (`autoBatch`, Java `ProduceAccumulator`, advanced.md §4.1): concurrent
 * `send()`s to one topic are held for at most `batchMaxDelayMs` and sent together as one
 * SEND_BATCH_MESSAGE once they exceed `batchMaxBytes` or the hold time is up. Each caller still
 * gets its own SendResult: its own msgId, its own offsetMsgId (the broker answers them
 * comma-joined, in order) and queueOffset = the batch's first offset + its index, which is how
 * 4.9 and 5.x brokers store a batch (one queue, consecutive offsets).
 *
 * Like Java, messages with a delay level or a timer, %RETRY% topics, transaction halves (PGROUP)
 * and, here, bodies already compressed (a batch has one sysFlag for all) are sent alone; so is
 * everything while the accumulator holds `totalBatchMaxBytes`. Grouping is by wire topic and
 * WAIT (Java also splits by tag, which changes nothing on the wire). One accumulator per
 * producer (Java: per client instance).
 */
import { encodeBatch } from '../protocol/message/batch.js';
import { NAME_VALUE_SEPARATOR, PropertyKey } from '../protocol/message/properties.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../protocol/validation.js';
import type { PreparedMessage } from './message.js';
import type { SendResult } from './send-result.js';

export interface AutoBatchSettings {
  batchMaxDelayMs: number;
  batchMaxBytes: number;
  totalBatchMaxBytes: number;
  /** The broker's limit on a whole batch body. */
  maxMessageSize: number;
}

interface Held {
  p: PreparedMessage;
  resolve: (r: SendResult) => void;
  reject: (e: unknown) => void;
}

interface Pending {
  key: string;
  topic: string;
  userTopic: string;
  wait: string;
  items: Held[];
  bytes: number;
  timer: NodeJS.Timeout | undefined;
}

const WAIT_FALSE = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'false';
/** Batch record overhead besides body and properties (protocol/message/batch.ts). */
const RECORD_FIXED = 22;
const UNBATCHABLE = [
  PropertyKey.DELAY,
  PropertyKey.TIMER_DELAY_MS,
  PropertyKey.TIMER_DELAY_SEC,
  PropertyKey.TIMER_DELIVER_MS,
  PropertyKey.PGROUP,
].map((k) => k + NAME_VALUE_SEPARATOR);

/**
 * The SendResult of message `index` of a batch sent as `batch`; `offsetIds` is the batch's
 * offsetMsgId split on ',' (once per batch), shared by all when the broker sent another count.
 */
export function splitBatchResult(
  batch: SendResult,
  p: PreparedMessage,
  index: number,
  offsetIds: readonly string[],
  count: number,
): SendResult {
  return {
    ...batch,
    messageQueue: { ...batch.messageQueue, topic: p.userTopic },
    msgId: p.msgId,
    offsetMsgId: offsetIds.length === count ? (offsetIds[index] as string) : batch.offsetMsgId,
    queueOffset: batch.queueOffset + index,
  };
}

export class ProduceAccumulator {
  private readonly pending = new Map<string, Pending>();
  private heldBytes = 0;

  constructor(
    private readonly s: AutoBatchSettings,
    /** Sends a prepared batch with the producer's retry rules. */
    private readonly sendBatch: (batch: PreparedMessage) => Promise<SendResult>,
  ) {}

  /** Body bytes held now (for tests). */
  get held(): number {
    return this.heldBytes;
  }

  canBatch(p: PreparedMessage): boolean {
    if (p.batch || p.sysFlag !== 0 || p.deliverAt !== undefined) return false;
    if (this.heldBytes >= this.s.totalBatchMaxBytes) return false;
    if (p.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return false;
    return !UNBATCHABLE.some((k) => p.properties.includes(k));
  }

  /** Holds `p` for the next batch of its topic; resolves with its own SendResult. */
  add(p: PreparedMessage): Promise<SendResult> {
    const wait = p.properties.includes(WAIT_FALSE) ? 'false' : 'true';
    const key = p.topic + '\u0000' + wait;
    const size = RECORD_FIXED + p.body.byteLength + Buffer.byteLength(p.properties);
    let batch = this.pending.get(key);
    // Never let one batch outgrow what the broker accepts.
    if (batch !== undefined && batch.bytes + size > this.s.maxMessageSize) {
      this.flush(batch);
      batch = undefined;
    }
    if (batch === undefined) {
      batch = { key, topic: p.topic, userTopic: p.userTopic, wait, items: [], bytes: 0, timer: undefined };
      this.pending.set(key, batch);
      const b = batch;
      b.timer = setTimeout(() => this.flush(b), this.s.batchMaxDelayMs);
    }
    const promise = new Promise<SendResult>((resolve, reject) => {
      (batch as Pending).items.push({ p, resolve, reject });
    });
    batch.bytes += size;
    this.heldBytes += size;
    if (batch.bytes > this.s.batchMaxBytes) this.flush(batch);
    return promise;
  }

  /** Sends every held batch now (shutdown). */
  flushAll(): void {
    for (const b of [...this.pending.values()]) this.flush(b);
  }

  private flush(b: Pending): void {
    if (this.pending.get(b.key) !== b) return;
    this.pending.delete(b.key);
    clearTimeout(b.timer);
    this.heldBytes -= b.bytes;
    const items = b.items;
    if (items.length === 1) {
      // One message: no batch encoding, the plain send path.
      const only = items[0] as Held;
      this.sendBatch(only.p).then(only.resolve, only.reject);
      return;
    }
    let prepared: PreparedMessage;
    try {
      prepared = {
        topic: b.topic,
        userTopic: b.userTopic,
        body: encodeBatch(items.map((h) => ({ body: h.p.body, flag: h.p.flag, properties: h.p.properties }))),
        sysFlag: 0,
        flag: 0,
        properties: PropertyKey.WAIT + NAME_VALUE_SEPARATOR + b.wait,
        msgId: items.map((h) => h.p.msgId).join(','),
        batch: true,
        count: items.length,
      };
    } catch (err) {
      for (const h of items) h.reject(err);
      return;
    }
    this.sendBatch(prepared).then(
      (result) => {
        const ids = result.offsetMsgId.split(',');
        items.forEach((h, i) => h.resolve(splitBatchResult(result, h.p, i, ids, items.length)));
      },
      (err: unknown) => items.forEach((h) => h.reject(err)),
    );
  }
}
