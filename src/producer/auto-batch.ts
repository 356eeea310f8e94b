/**
 * [5.x] Auto-batching (`autoBatch`, Java `ProduceAccumulator`, advanced.md §4.1): concurrent
 * `send()`s to one topic are held for at most `batchMaxDelayMs` and sent together as one
 * SEND_BATCH_MESSAGE. Each caller still gets its own SendResult: its own msgId, its own
 * offsetMsgId (the broker answers them comma-joined, in order) and queueOffset = the batch's
 * first offset + its index, which is how 4.9 and 5.x brokers store a batch (one queue,
 * consecutive offsets).
 *
 * When a batch goes: at once when it holds more than `batchMaxBytes`; at the end of the current
 * event-loop turn when fewer than {@link EARLY_FLUSH_IN_FLIGHT} batches of its topic are on the
 * wire (so an idle pipe never waits, and the callers a response releases, who send again in the
 * same turn, form the next batch); otherwise when one of those batches is answered, or after
 * `batchMaxDelayMs` at the latest. Java only knows size and hold time; holding while the pipe is
 * idle costs latency and, at a fixed number of callers, throughput (deviation, in the README).
 *
 * Each message is written into its batch's buffer when it is added (BatchWriter), so a flush
 * encodes nothing. Like Java, messages with a delay level or a timer, %RETRY% topics,
 * transaction halves (PGROUP) and, here, bodies already compressed (a batch has one sysFlag for
 * all) are sent alone; so is everything while the accumulator holds `totalBatchMaxBytes`.
 * Grouping is by wire topic and WAIT (Java also splits by tag, which changes nothing on the
 * wire). One accumulator per producer (Java: per client instance).
 */
import { BATCH_RECORD_FIXED, BatchWriter } from '../protocol/message/batch.js';
import { NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR, PropertyKey } from '../protocol/message/properties.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../protocol/validation.js';
import type { PreparedMessage } from './message.js';
import type { SendResult } from './send-result.js';
import type { MessageQueue } from '../client/route.js';

export interface AutoBatchSettings {
  batchMaxDelayMs: number;
  batchMaxBytes: number;
  totalBatchMaxBytes: number;
  /** The broker's limit on a whole batch body. */
  maxMessageSize: number;
}

/**
 * Batches of one topic on the wire below which an open batch goes at the end of the turn
 * instead of waiting: two keep the client filling one batch while the broker stores another.
 */
export const EARLY_FLUSH_IN_FLIGHT = 2;

/** The batches of one wire topic and WAIT value. */
interface Lane {
  readonly topic: string;
  readonly waitStore: boolean;
  open: Batch | undefined;
  /** Batches (and lone messages) sent and not yet answered. */
  inFlight: number;
}

interface Batch {
  readonly lane: Lane;
  readonly writer: BatchWriter;
  readonly items: PreparedMessage[];
  readonly resolves: ((r: SendResult) => void)[];
  readonly rejects: ((e: unknown) => void)[];
  timer: NodeJS.Timeout | undefined;
  /** The earliest end of its callers' send budgets (epoch ms): the batch's own budget ends there. */
  deadline: number;
  /** An end-of-turn flush is scheduled. */
  early: boolean;
}

const BATCH_PROPERTIES_WAIT = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'true';
const BATCH_PROPERTIES_NO_WAIT = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'false';
/**
 * A property that keeps a message out of batches (delay level, timer, transaction group), or
 * WAIT=false, as a whole name: one scan of the properties instead of one per name.
 */
const UNBATCHABLE = new RegExp(
  `(?:^|${PROPERTY_SEPARATOR})(?:${[
    PropertyKey.DELAY,
    PropertyKey.TIMER_DELAY_MS,
    PropertyKey.TIMER_DELAY_SEC,
    PropertyKey.TIMER_DELIVER_MS,
    PropertyKey.PGROUP,
  ].join('|')})${NAME_VALUE_SEPARATOR}`,
);
const NO_WAIT = new RegExp(
  `(?:^|${PROPERTY_SEPARATOR})${PropertyKey.WAIT}${NAME_VALUE_SEPARATOR}false(?:${PROPERTY_SEPARATOR}|$)`,
);

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
  /** The queue every result of the batch names (one object, as Java's results share theirs). */
  queue: MessageQueue = batchQueue(batch, p.userTopic),
): SendResult {
  const r: SendResult = {
    status: batch.status,
    msgId: p.msgId,
    offsetMsgId: offsetIds.length === count ? (offsetIds[index] as string) : batch.offsetMsgId,
    messageQueue: queue,
    queueOffset: batch.queueOffset + index,
    regionId: batch.regionId,
    traceOn: batch.traceOn,
  };
  if (batch.transactionId !== undefined) r.transactionId = batch.transactionId;
  return r;
}

/** The queue a batch went to, named by the caller's topic (the batch has the wire topic). */
function batchQueue(batch: SendResult, userTopic: string): MessageQueue {
  return { topic: userTopic, brokerName: batch.messageQueue.brokerName, queueId: batch.messageQueue.queueId };
}

export class ProduceAccumulator {
  /** Lanes by wire topic: [WAIT=false, WAIT=true]. */
  private readonly lanes = [new Map<string, Lane>(), new Map<string, Lane>()] as const;
  private heldBytes = 0;

  constructor(
    private readonly s: AutoBatchSettings,
    /** Sends a prepared batch with the producer's retry rules. */
    /** Sends one prepared message or batch within `timeoutMs` (the send loop's whole budget). */
    private readonly sendBatch: (batch: PreparedMessage, timeoutMs: number) => Promise<SendResult>,
  ) {}

  /** Encoded bytes held now (for tests). */
  get held(): number {
    return this.heldBytes;
  }

  canBatch(p: PreparedMessage): boolean {
    if (p.batch || p.sysFlag !== 0 || p.deliverAt !== undefined) return false;
    if (this.heldBytes >= this.s.totalBatchMaxBytes) return false;
    if (p.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return false;
    return !UNBATCHABLE.test(p.properties);
  }

  /** Holds `p` for the next batch of its topic; resolves with its own SendResult. */
  add(p: PreparedMessage, timeoutMs: number): Promise<SendResult> {
    const waitStore = !NO_WAIT.test(p.properties);
    const lanes = this.lanes[waitStore ? 1 : 0];
    let lane = lanes.get(p.topic);
    if (lane === undefined) {
      lane = { topic: p.topic, waitStore, open: undefined, inFlight: 0 };
      lanes.set(p.topic, lane);
    }
    let batch = lane.open;
    // Never let one batch outgrow what the broker accepts (exact size only near the limit).
    if (batch !== undefined) {
      const most = BATCH_RECORD_FIXED + p.body.byteLength + p.properties.length * 3;
      const used = batch.writer.byteLength;
      if (
        used + most > this.s.maxMessageSize &&
        used + BATCH_RECORD_FIXED + p.body.byteLength + Buffer.byteLength(p.properties) >
          this.s.maxMessageSize
      ) {
        this.flush(batch);
        batch = undefined;
      }
    }
    if (batch === undefined) batch = this.open(lane);
    let size: number;
    try {
      size = batch.writer.append(p.body, p.flag, p.properties);
    } catch (err) {
      if (batch.items.length === 0) this.drop(batch);
      return Promise.reject(err);
    }
    this.heldBytes += size;
    const b = batch;
    const promise = new Promise<SendResult>((resolve, reject) => {
      b.resolves.push(resolve);
      b.rejects.push(reject);
    });
    b.items.push(p);
    // A caller's budget covers its time held here too: one send timeout in all, as without batching.
    b.deadline = Math.min(b.deadline, Date.now() + timeoutMs);
    if (b.writer.byteLength > this.s.batchMaxBytes) this.flush(b);
    else if (!b.early && lane.inFlight < EARLY_FLUSH_IN_FLIGHT) this.flushAtEndOfTurn(b);
    return promise;
  }

  /** Sends every held batch now (shutdown). */
  flushAll(): void {
    for (const lanes of this.lanes)
      for (const lane of [...lanes.values()]) if (lane.open !== undefined) this.flush(lane.open);
  }

  private open(lane: Lane): Batch {
    const b: Batch = {
      lane,
      writer: new BatchWriter(Math.min(this.s.batchMaxBytes, this.s.maxMessageSize) + 1024),
      items: [],
      resolves: [],
      rejects: [],
      timer: undefined,
      deadline: Infinity,
      early: false,
    };
    b.timer = setTimeout(() => this.flush(b), this.s.batchMaxDelayMs);
    lane.open = b;
    return b;
  }

  /** Forgets an empty batch (its first message could not be written). */
  private drop(b: Batch): void {
    clearTimeout(b.timer);
    b.lane.open = undefined;
    this.forgetIdle(b.lane);
  }

  private flushAtEndOfTurn(b: Batch): void {
    b.early = true;
    // setImmediate, not a microtask: callers released in this turn add their next message first.
    setImmediate(() => this.flush(b));
  }

  private forgetIdle(lane: Lane): void {
    if (lane.open === undefined && lane.inFlight === 0) this.lanes[lane.waitStore ? 1 : 0].delete(lane.topic);
  }

  /** A batch of `lane` was answered: the open one may go now. */
  private settled(lane: Lane): void {
    lane.inFlight--;
    const open = lane.open;
    if (open !== undefined) {
      if (!open.early) this.flushAtEndOfTurn(open);
    } else this.forgetIdle(lane);
  }

  private flush(b: Batch): void {
    const lane = b.lane;
    if (lane.open !== b) return;
    lane.open = undefined;
    clearTimeout(b.timer);
    const bytes = b.writer.byteLength;
    this.heldBytes -= bytes;
    lane.inFlight++;
    const items = b.items;
    if (items.length === 1) {
      // One message: no batch encoding, the plain send path.
      this.sendBatch(items[0] as PreparedMessage, budgetLeft(b)).then(
        (r) => {
          this.settled(lane);
          (b.resolves[0] as (r: SendResult) => void)(r);
        },
        (err: unknown) => {
          this.settled(lane);
          (b.rejects[0] as (e: unknown) => void)(err);
        },
      );
      return;
    }
    let msgId = (items[0] as PreparedMessage).msgId;
    for (let i = 1; i < items.length; i++) msgId += ',' + (items[i] as PreparedMessage).msgId;
    const prepared: PreparedMessage = {
      topic: lane.topic,
      userTopic: (items[0] as PreparedMessage).userTopic,
      body: b.writer.finish(),
      sysFlag: 0,
      flag: 0,
      properties: lane.waitStore ? BATCH_PROPERTIES_WAIT : BATCH_PROPERTIES_NO_WAIT,
      msgId,
      batch: true,
      count: items.length,
    };
    this.sendBatch(prepared, budgetLeft(b)).then(
      (result) => {
        this.settled(lane);
        const ids = result.offsetMsgId.split(',');
        const n = items.length;
        const queue = batchQueue(result, (items[0] as PreparedMessage).userTopic);
        for (let i = 0; i < n; i++)
          (b.resolves[i] as (r: SendResult) => void)(
            splitBatchResult(result, items[i] as PreparedMessage, i, ids, n, queue),
          );
      },
      (err: unknown) => {
        this.settled(lane);
        for (const reject of b.rejects) reject(err);
      },
    );
  }
}

/** What is left of the batch's budget; at least 1 ms so the send loop reports the timeout itself. */
function budgetLeft(b: Batch): number {
  return Math.max(1, b.deadline - Date.now());
}
