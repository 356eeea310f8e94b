/**
 * [5.x] Auto-batching (`autoBatch`, Java `ProduceAccumulator`, docs/producer.md §4.1): concurrent
 * `send()`s to one topic are held for at most `batchMaxDelayMs` and sent together as one
 * SEND_BATCH_MESSAGE. Each caller still gets its own SendResult: its own msgId, its own
 * offsetMsgId (the broker answers them comma-joined, in order) and queueOffset = the batch's
 * first offset + its index, which is how 4.9 and 5.x brokers store a batch (one queue,
 * consecutive offsets).
 *
 * When a batch goes: at once when it holds more than `batchMaxBytes`; at the end of the current
 * event-loop turn when fewer than {@link PIPELINE_DEPTH} batches of its lane are on the wire (so
 * an idle pipe never waits, and the callers a response releases, who send again in the same
 * turn, form the next batch); otherwise when one of those batches is answered, or after
 * `batchMaxDelayMs` at the latest. And, while 1 to PIPELINE_DEPTH - 1 batches of its lane are on
 * the wire, at once when it holds the lane's share: its callers / PIPELINE_DEPTH messages. Callers are what the
 * lane saw outstanding (held or sent, not answered) when its batches were answered, a maximum
 * that decays by an eighth per answer. Without the share, a closed loop of N callers settles into
 * two batches of N/2 that ping-pong (the client idles while the broker stores one, the broker
 * while the client fills the other); with it about PIPELINE_DEPTH smaller batches overlap
 * (measured at 256 callers: +10 % msgs/s with 3 or 4, worse with 8). Java only knows size and
 * hold time; holding while the pipe is idle costs latency and, at a fixed number of callers,
 * throughput (deviation, docs/producer.md §2).
 *
 * Each message is written into its batch's buffer when it is added (BatchWriter), so a flush
 * encodes nothing. Like Java, messages with a delay level or a timer, %RETRY% topics,
 * transaction halves (PGROUP) and, here, message groups and priorities (they pick their queue),
 * and bodies already compressed (a batch has one sysFlag for all) are sent alone; so is everything while the accumulator holds `totalBatchMaxBytes`.
 * prepareMessage decides a message's {@link BatchLane} from what it wrote; a message whose
 * properties were rewritten after (transaction halves, requests) is judged by its properties.
 * Grouping is by wire topic and WAIT (Java also splits by tag, which changes nothing on the
 * wire). One accumulator per producer (Java: per client instance).
 *
 * A caller's `signal` (remoting/abort.ts): aborted while its batch is held, its message leaves
 * the batch (the batch is written again without it; aborts are rare, held batches small);
 * aborted after the batch went, the caller is answered at once and the batch's answer skips it.
 * Either way its permit and in-flight count are given back at the abort.
 */
import { BATCH_RECORD_FIXED, BatchWriter } from '../protocol/message/batch.js';
import { NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR, PropertyKey } from '../protocol/message/properties.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../protocol/validation.js';
import type { PreparedMessage } from './message.js';
import type { SendResult } from './send-result.js';
import type { MessageQueue } from '../client/route.js';
import { whenAborted } from '../remoting/abort.js';
import type { AbortError } from '../errors/abort.js';

export interface AutoBatchSettings {
  batchMaxDelayMs: number;
  batchMaxBytes: number;
  totalBatchMaxBytes: number;
  /** The broker's limit on a whole batch body. */
  maxMessageSize: number;
}

/**
 * Batches of one lane meant to be on the wire at once: below it an open batch goes at the end of
 * the turn instead of waiting, and the lane's callers are split into about this many batches.
 * Three keep the client filling one batch while the broker stores another and a third answer is
 * on its way back.
 */
export const PIPELINE_DEPTH = 3;

/**
 * How autoBatch may send a message: in the batches of its topic that wait for the store
 * (WAIT=true) or of those that do not, or alone.
 */
export type BatchLane = 'wait' | 'noWait' | 'alone';

/** The batches of one wire topic and WAIT value. */
interface Lane {
  readonly topic: string;
  readonly waitStore: boolean;
  open: Batch | undefined;
  /** Batches (and lone messages) sent and not yet answered. */
  inFlight: number;
  /** Messages held or sent and not yet answered. */
  outstanding: number;
  /** Callers of the lane: `outstanding` when a batch is answered, a maximum decaying by 1/8 per answer. */
  callers: number;
  /** Messages after which a batch goes while another is in flight (callers / PIPELINE_DEPTH). */
  share: number;
}

interface Batch {
  readonly lane: Lane;
  writer: BatchWriter;
  readonly items: PreparedMessage[];
  readonly resolves: ((r: SendResult) => void)[];
  readonly rejects: ((e: unknown) => void)[];
  timer: NodeJS.Timeout | undefined;
  /** The earliest end of its callers' send budgets (epoch ms): the batch's own budget ends there. */
  deadline: number;
  /**
   * The shortest budget of its callers: a later caller with no shorter one cannot end earlier,
   * so only a shorter budget needs the clock.
   */
  shortest: number;
  /** An end-of-turn flush is scheduled. */
  early: boolean;
  /** Per item, the removal of its caller's abort listener; undefined until an item has a signal. */
  disposers: Array<(() => void) | undefined> | undefined;
  /** Items aborted after the batch went: already answered and released. */
  aborted: Set<number> | undefined;
}

const BATCH_PROPERTIES_WAIT = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'true';
const BATCH_PROPERTIES_NO_WAIT = PropertyKey.WAIT + NAME_VALUE_SEPARATOR + 'false';
/**
 * A property that keeps a message out of batches (delay level, timer, transaction group, message
 * group, priority), as a whole name: one scan of the properties instead of one per name. A grouped
 * message is a selected-queue send, never batched (producer.ts `track`); a priority message is
 * placed by the broker one by one (SEND_BATCH_MESSAGE ignores the property).
 */
const UNBATCHABLE = new RegExp(
  `(?:^|${PROPERTY_SEPARATOR})(?:${[
    PropertyKey.DELAY,
    PropertyKey.TIMER_DELAY_MS,
    PropertyKey.TIMER_DELAY_SEC,
    PropertyKey.TIMER_DELIVER_MS,
    PropertyKey.PGROUP,
    PropertyKey.SHARDING_KEY,
    PropertyKey.PRIORITY,
  ].join('|')})${NAME_VALUE_SEPARATOR}`,
);
const NO_WAIT = new RegExp(
  `(?:^|${PROPERTY_SEPARATOR})${PropertyKey.WAIT}${NAME_VALUE_SEPARATOR}false(?:${PROPERTY_SEPARATOR}|$)`,
);

/**
 * The lane of `p` from its properties, for a message whose properties were rewritten after
 * prepareMessage (which knows what it wrote and sets `batchLane` itself).
 */
export function batchLaneOf(p: PreparedMessage): BatchLane {
  if (p.batch || UNBATCHABLE.test(p.properties)) return 'alone';
  return batchLane(p.topic, p.sysFlag, p.deliverAt !== undefined, !NO_WAIT.test(p.properties));
}

/**
 * The lane of a single message: alone when compressed (a batch has one sysFlag), delayed, timed,
 * grouped or with a priority (`special`) or on a %RETRY% topic; else by its WAIT.
 */
export function batchLane(topic: string, sysFlag: number, special: boolean, waitStore: boolean): BatchLane {
  if (special || sysFlag !== 0 || topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return 'alone';
  return waitStore ? 'wait' : 'noWait';
}

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

/**
 * `joined.split(',')`, cut at fixed places when the `count` ids are all as long (every store
 * host of one broker is): the commas are checked, not searched for.
 */
export function splitOffsetIds(joined: string, count: number): string[] {
  const stride = (joined.length + 1) / count;
  if (count < 1 || !Number.isInteger(stride) || stride < 2) return joined.split(',');
  for (let at = stride - 1; at < joined.length; at += stride) {
    if (joined.charCodeAt(at) !== COMMA) return joined.split(',');
  }
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) ids[i] = joined.substring(i * stride, i * stride + stride - 1);
  return ids;
}
const COMMA = 0x2c;

/** The queue a batch went to, named by the caller's topic (the batch has the wire topic). */
function batchQueue(batch: SendResult, userTopic: string): MessageQueue {
  return { topic: userTopic, brokerName: batch.messageQueue.brokerName, queueId: batch.messageQueue.queueId };
}

export class ProduceAccumulator {
  /** Lanes by wire topic: [WAIT=false, WAIT=true]. */
  private readonly lanes = [new Map<string, Lane>(), new Map<string, Lane>()] as const;
  /** The lane `add` used last: most sends go where the one before went, and a compare costs less than a lookup. */
  private recent: Lane | undefined;
  private heldBytes = 0;

  constructor(
    private readonly s: AutoBatchSettings,
    /**
     * Sends one prepared message or batch within `timeoutMs` (the send loop's whole budget);
     * `signal` only for a message sent on its own.
     */
    private readonly sendBatch: (
      batch: PreparedMessage,
      timeoutMs: number,
      signal?: AbortSignal,
    ) => Promise<SendResult>,
    /**
     * Called for each added message when its outcome is known, just before its caller hears it:
     * the producer gives back its permit and in-flight count here, with no promise of its own.
     */
    private readonly released: (p: PreparedMessage) => void = () => {},
  ) {}

  /** Encoded bytes held now (for tests). */
  get held(): number {
    return this.heldBytes;
  }

  /** Whether `p` joins a batch (else `add` sends it alone). */
  canBatch(p: PreparedMessage): boolean {
    return this.heldBytes < this.s.totalBatchMaxBytes && (p.batchLane ?? batchLaneOf(p)) !== 'alone';
  }

  /**
   * Holds `p` for the next batch of its lane (or sends it alone); resolves with its own
   * SendResult, or rejects with AbortError when `signal` (not aborted yet) aborts first.
   */
  add(
    p: PreparedMessage,
    timeoutMs: number,
    kind: BatchLane = p.batchLane ?? batchLaneOf(p),
    signal?: AbortSignal,
  ): Promise<SendResult> {
    if (kind === 'alone' || this.heldBytes >= this.s.totalBatchMaxBytes)
      return this.alone(p, timeoutMs, signal);
    const waitStore = kind === 'wait';
    let lane = this.recent;
    if (lane === undefined || lane.topic !== p.topic || lane.waitStore !== waitStore)
      lane = this.recent = this.laneOf(p.topic, waitStore);
    let batch = lane.open;
    // Never let one batch outgrow what the broker accepts (exact size only near the limit).
    if (batch !== undefined) {
      // `body.length`: a Uint8Array's byteLength, inlined by V8 11 where byteLength is not.
      const most = BATCH_RECORD_FIXED + p.body.length + p.properties.length * 3;
      const used = batch.writer.byteLength;
      if (
        used + most > this.s.maxMessageSize &&
        used + BATCH_RECORD_FIXED + p.body.length + Buffer.byteLength(p.properties) > this.s.maxMessageSize
      ) {
        this.flush(batch);
        batch = undefined;
      }
    }
    if (batch === undefined) batch = this.open(lane);
    let size: number;
    try {
      const head = p.propertiesHead;
      const idHead = p.msgIdHead;
      // Parts only while they still spell `properties` (a rewrite appends, so lengths tell).
      size =
        head !== undefined &&
        idHead !== undefined &&
        p.msgIdCounter !== undefined &&
        head.length + idHead.length + 4 === p.properties.length
          ? batch.writer.appendParts(p.body, p.flag, head, idHead, p.msgIdCounter)
          : batch.writer.append(p.body, p.flag, p.properties);
    } catch (err) {
      if (batch.items.length === 0) this.drop(batch);
      this.released(p);
      return Promise.reject(err);
    }
    this.heldBytes += size;
    lane.outstanding++;
    const b = batch;
    const promise = new Promise<SendResult>((resolve, reject) => {
      b.resolves.push(resolve);
      b.rejects.push(reject);
    });
    b.items.push(p);
    if (signal !== undefined) {
      const disposers = (b.disposers ??= []);
      disposers.length = b.items.length - 1;
      disposers.push(whenAborted(signal, (err) => this.abortItem(b, p, err), 'the send'));
    }
    // A caller's budget covers its time held here too: one send timeout in all, as without batching.
    if (timeoutMs < b.shortest) {
      b.shortest = timeoutMs;
      b.deadline = Math.min(b.deadline, Date.now() + timeoutMs);
    }
    if (b.writer.byteLength > this.s.batchMaxBytes || this.shareFull(lane, b)) this.flush(b);
    else if (!b.early && lane.inFlight < PIPELINE_DEPTH) this.flushAtEndOfTurn(b);
    return promise;
  }

  private laneOf(topic: string, waitStore: boolean): Lane {
    const lanes = this.lanes[waitStore ? 1 : 0];
    let lane = lanes.get(topic);
    if (lane === undefined) {
      lane = { topic, waitStore, open: undefined, inFlight: 0, outstanding: 0, callers: 0, share: Infinity };
      lanes.set(topic, lane);
    }
    return lane;
  }

  /** Sends every held batch now (shutdown). */
  flushAll(): void {
    for (const lanes of this.lanes)
      for (const lane of [...lanes.values()]) if (lane.open !== undefined) this.flush(lane.open);
  }

  /**
   * The open batch holds the lane's share and goes to join the batches on the wire. Not with
   * none on the wire (the end of the turn sends it whole), nor with PIPELINE_DEPTH of them: a
   * share learnt from fewer callers than a sudden burst brings then costs at most that many
   * small batches before an answer teaches the new count.
   */
  private shareFull(lane: Lane, b: Batch): boolean {
    return lane.inFlight > 0 && lane.inFlight < PIPELINE_DEPTH && b.items.length >= lane.share;
  }

  /**
   * The caller of `p` in `b` gave up. Still held: `p` leaves the batch, which is written again
   * without it (an emptied batch is dropped). Gone: the batch's answer will skip it.
   */
  private abortItem(b: Batch, p: PreparedMessage, err: AbortError): void {
    const i = b.items.indexOf(p);
    if (i < 0 || b.aborted?.has(i) === true) return;
    const reject = b.rejects[i] as (e: unknown) => void;
    const lane = b.lane;
    if (lane.open === b) {
      b.items.splice(i, 1);
      b.resolves.splice(i, 1);
      b.rejects.splice(i, 1);
      b.disposers?.splice(i, 1);
      const writer = new BatchWriter(Math.min(this.s.batchMaxBytes, this.s.maxMessageSize) + 1024);
      // Each item was written once already: writing it again cannot fail.
      for (const item of b.items) writer.append(item.body, item.flag, item.properties);
      this.heldBytes += writer.byteLength - b.writer.byteLength;
      b.writer = writer;
      lane.outstanding--;
      if (b.items.length === 0) this.drop(b);
    } else {
      (b.aborted ??= new Set()).add(i);
    }
    this.released(p);
    reject(err);
  }

  /** Settles item `i` of `b`: false when its caller aborted and was answered already. */
  private settleItem(b: Batch, i: number): boolean {
    if (b.disposers !== undefined) b.disposers[i]?.();
    if (b.aborted?.has(i) === true) return false;
    this.released(b.items[i] as PreparedMessage);
    return true;
  }

  /** A message that does not join a batch: the plain send path. */
  private alone(p: PreparedMessage, timeoutMs: number, signal?: AbortSignal): Promise<SendResult> {
    return this.sendBatch(p, timeoutMs, signal).then(
      (r) => {
        this.released(p);
        return r;
      },
      (err: unknown) => {
        this.released(p);
        throw err;
      },
    );
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
      shortest: Infinity,
      early: false,
      disposers: undefined,
      aborted: undefined,
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
    if (lane.open !== undefined || lane.inFlight !== 0) return;
    this.lanes[lane.waitStore ? 1 : 0].delete(lane.topic);
    if (this.recent === lane) this.recent = undefined;
  }

  /** `count` messages of `lane` were answered: learn its callers; the open batch may go now. */
  private settled(lane: Lane, count: number): void {
    // Everyone still waiting now, the answered ones included, is a caller of this lane.
    const decayed = lane.callers - (lane.callers >> 3);
    lane.callers = lane.outstanding > decayed ? lane.outstanding : decayed;
    lane.share = Math.ceil(lane.callers / PIPELINE_DEPTH);
    lane.outstanding -= count;
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
    const n = items.length;
    if (n === 1) {
      // One message: no batch encoding, the plain send path.
      const p = items[0] as PreparedMessage;
      this.sendBatch(p, budgetLeft(b)).then(
        (r) => {
          this.settled(lane, 1);
          if (this.settleItem(b, 0)) (b.resolves[0] as (r: SendResult) => void)(r);
        },
        (err: unknown) => {
          this.settled(lane, 1);
          if (this.settleItem(b, 0)) (b.rejects[0] as (e: unknown) => void)(err);
        },
      );
      return;
    }
    let msgId = (items[0] as PreparedMessage).msgId;
    for (let i = 1; i < n; i++) msgId += ',' + (items[i] as PreparedMessage).msgId;
    const prepared: PreparedMessage = {
      topic: lane.topic,
      userTopic: (items[0] as PreparedMessage).userTopic,
      body: b.writer.finish(),
      sysFlag: 0,
      flag: 0,
      properties: lane.waitStore ? BATCH_PROPERTIES_WAIT : BATCH_PROPERTIES_NO_WAIT,
      msgId,
      batch: true,
      count: n,
    };
    this.sendBatch(prepared, budgetLeft(b)).then(
      (result) => {
        this.settled(lane, n);
        const ids = splitOffsetIds(result.offsetMsgId, n);
        const queue = batchQueue(result, (items[0] as PreparedMessage).userTopic);
        for (let i = 0; i < n; i++) {
          if (!this.settleItem(b, i)) continue;
          const p = items[i] as PreparedMessage;
          (b.resolves[i] as (r: SendResult) => void)(splitBatchResult(result, p, i, ids, n, queue));
        }
      },
      (err: unknown) => {
        this.settled(lane, n);
        for (let i = 0; i < n; i++) if (this.settleItem(b, i)) (b.rejects[i] as (e: unknown) => void)(err);
      },
    );
  }
}

/** What is left of the batch's budget; at least 1 ms so the send loop reports the timeout itself. */
function budgetLeft(b: Batch): number {
  return Math.max(1, b.deadline - Date.now());
}
