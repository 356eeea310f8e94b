/**
 * [5.x] Timer messages on the embedded broker (docs/producer.md §3.2–§3.3, Java
 * `HookUtils#handleScheduleMessage` + `TimerMessageStore`). A message with TIMER_DELAY_SEC,
 * TIMER_DELAY_MS or TIMER_DELIVER_MS due in the future is stored in `rmq_sys_wheel_timer` queue 0
 * with TIMER_OUT_MS, REAL_TOPIC and REAL_QID, and put into its real topic when due.
 *
 * Instead of Java's slot wheel, pending timers sit in a min-heap of (deliver time, wheel offset)
 * driven by one `setTimeout`, so delivery is at the millisecond asked for, never before it (Java
 * floors to `timerPrecisionMs`, 1 s by default, and may deliver up to that much early). The wheel
 * queue is the durable log: `config/timerCheckpoint.json` keeps the offset below which every
 * timer was delivered plus the delivered offsets above it; a restart rescans the rest. A crash
 * between a delivery and the next checkpoint write delivers that message again (at least once,
 * like Java). Recall markers (recall-markers.ts) go through the same wheel; a recalled message
 * is dropped when it falls due.
 */
import { decodeProperties, encodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../protocol/message/stored-message.js';
import { MessageSysFlag, transactionValue } from '../../protocol/message/sysflag.js';
import type { MessageToStore, PutResult } from '../store/types.js';
import type { BrokerContext } from './context.js';
import { StateFile } from './state-file.js';
import { isPermanentRefusal, logSkippedMessage, toRealTopic } from './message-util.js';
import { RecallMarkers } from './recall-markers.js';

/** Java `TimerMessageStore.TIMER_TOPIC`: one queue. */
export const TIMER_TOPIC = 'rmq_sys_wheel_timer';
const TIMER_KEYS = [PropertyKey.TIMER_DELAY_SEC, PropertyKey.TIMER_DELAY_MS, PropertyKey.TIMER_DELIVER_MS];
/** Longest single setTimeout Node accepts; longer waits re-arm. */
const MAX_TIMEOUT = 2 ** 31 - 1;
const READ_BATCH = 64;

interface Pending {
  at: number;
  offset: number;
}

/** A tiny binary min-heap on `at`. */
class TimerHeap {
  private readonly items: Pending[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): Pending | undefined {
    return this.items[0];
  }
  push(p: Pending): void {
    const a = this.items;
    a.push(p);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((a[parent] as Pending).at <= p.at) break;
      a[i] = a[parent] as Pending;
      i = parent;
    }
    a[i] = p;
  }
  pop(): Pending | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && (a[r] as Pending).at < (a[l] as Pending).at ? r : l;
      if ((a[c] as Pending).at >= last.at) break;
      a[i] = a[c] as Pending;
      i = c;
    }
    a[i] = last;
    return top;
  }
}

/** What `timerOf` makes of a message's properties. */
export type TimerVerdict =
  { kind: 'none' } | { kind: 'illegal'; reason: string } | { kind: 'due'; deliverMs: number };

/**
 * Java's precedence: TIMER_DELAY_SEC (now + s×1000), else TIMER_DELAY_MS, else TIMER_DELIVER_MS;
 * not a number → illegal; beyond `maxDelaySec` → illegal.
 */
export function timerOf(
  props: Readonly<Record<string, string>>,
  now: number,
  maxDelaySec: number,
): TimerVerdict {
  let deliverMs: number;
  const sec = props[PropertyKey.TIMER_DELAY_SEC];
  const ms = props[PropertyKey.TIMER_DELAY_MS];
  const at = props[PropertyKey.TIMER_DELIVER_MS];
  const num = (s: string): number => (/^-?\d+$/.test(s.trim()) ? Number(s) : Number.NaN);
  if (sec !== undefined) deliverMs = now + num(sec) * 1000;
  else if (ms !== undefined) deliverMs = now + num(ms);
  else if (at !== undefined) deliverMs = num(at);
  else return { kind: 'none' };
  if (!Number.isFinite(deliverMs)) return { kind: 'illegal', reason: 'timer message illegal: not a number' };
  if (deliverMs - now > maxDelaySec * 1000) {
    return {
      kind: 'illegal',
      reason: `timer message illegal: delay ${deliverMs - now} ms beyond timerMaxDelaySec ${maxDelaySec}`,
    };
  }
  return { kind: 'due', deliverMs };
}

/** A put's result; `timerOutMs` when the message went to the wheel (the send builds its recall handle from it). */
export interface TimerPutResult extends PutResult {
  timerOutMs?: number;
}

export class TimerMessageService {
  private readonly heap = new TimerHeap();
  private readonly markers = new RecallMarkers();
  /** Every wheel offset below this was delivered. */
  private checkpoint = 0;
  /** Delivered wheel offsets at or above the checkpoint. */
  private readonly delivered = new Set<number>();
  private readonly state: StateFile;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: BrokerContext,
    file: string,
  ) {
    this.state = new StateFile(file);
  }

  /** Timers waiting (for tests and stats). */
  get pending(): number {
    return this.heap.size;
  }

  async start(): Promise<void> {
    await this.state.load(
      (text) => {
        const json = JSON.parse(text) as { checkpoint?: unknown; delivered?: unknown };
        if (typeof json.checkpoint === 'number') this.checkpoint = json.checkpoint;
        if (Array.isArray(json.delivered))
          for (const o of json.delivered) if (typeof o === 'number') this.delivered.add(o);
      },
      this.ctx.logger,
      'timer checkpoint',
    );
    await this.recover();
    // Undelivered timers must outlive time-based retention, whatever their delay.
    this.ctx.store.registerRetentionPin('timer', () => [
      { topic: TIMER_TOPIC, queueId: 0, offset: this.checkpoint },
    ]);
    this.arm();
  }

  /** Rebuilds the heap from the wheel queue above the checkpoint. */
  private async recover(): Promise<void> {
    let offset = this.checkpoint;
    while (offset < this.ctx.store.getMaxOffset(TIMER_TOPIC, 0)) {
      const got = await this.ctx.store.getMessages(TIMER_TOPIC, 0, offset, READ_BATCH);
      if (got.status !== 'FOUND') {
        if (got.nextBeginOffset <= offset) break;
        offset = got.nextBeginOffset;
        continue;
      }
      for (const record of got.messages) {
        const msg = decodeStoredMessage(record).message;
        offset = msg.queueOffset + 1;
        if (msg.queueOffset < this.checkpoint || this.delivered.has(msg.queueOffset)) continue;
        const props = decodeProperties(msg.properties);
        const marker = RecallMarkers.markerKey(props);
        if (marker !== undefined) this.markers.add(marker);
        const at = Number(props[PropertyKey.TIMER_OUT_MS]);
        this.heap.push({ at: Number.isFinite(at) ? at : 0, offset: msg.queueOffset });
      }
    }
  }

  /**
   * Stores `msg`: a future timer goes to the wheel, an illegal one is refused, anything else
   * (no timer, due already, a DELAY level, a transaction half) is stored as it is.
   */
  async put(msg: MessageToStore): Promise<TimerPutResult> {
    const store = this.ctx.store;
    if (msg.topic === TIMER_TOPIC || !TIMER_KEYS.some((k) => msg.properties.includes(k + '\u0001')))
      return store.putMessage(msg);
    const tran = transactionValue(msg.sysFlag);
    if (tran !== MessageSysFlag.TRANSACTION_NOT_TYPE && tran !== MessageSysFlag.TRANSACTION_COMMIT_TYPE)
      return store.putMessage(msg);
    const props = decodeProperties(msg.properties);
    if (props[PropertyKey.TIMER_OUT_MS] !== undefined) return store.putMessage(msg);
    if (!this.ctx.options.timerWheelEnable)
      return illegal('UNKNOWN_ERROR', 'accurate timer message is not enabled');
    const now = Date.now();
    const verdict = timerOf(props, now, this.ctx.options.timerMaxDelaySec);
    if (verdict.kind === 'none') return store.putMessage(msg);
    if (verdict.kind === 'illegal') return illegal('MESSAGE_ILLEGAL', verdict.reason);
    if (verdict.deliverMs <= now) {
      // Java: WHEEL_TIMER_MSG_ILLEGAL; a marker stored as a plain message would reach consumers.
      if (props[PropertyKey.TIMER_DEL_UNIQKEY] !== undefined)
        return illegal('MESSAGE_ILLEGAL', 'recall marker is due already');
      return store.putMessage(msg);
    }
    props[PropertyKey.TIMER_OUT_MS] = String(verdict.deliverMs);
    props[PropertyKey.TIMER_ENQUEUE_MS] = String(now);
    props[PropertyKey.REAL_TOPIC] = msg.topic;
    props[PropertyKey.REAL_QID] = String(msg.queueId);
    const marker = RecallMarkers.markerKey(props);
    const result = await store.putMessage({
      ...msg,
      topic: TIMER_TOPIC,
      queueId: 0,
      properties: encodeProperties(props),
    });
    if (result.status === 'PUT_OK' || result.status === 'FLUSH_DISK_TIMEOUT') {
      if (marker !== undefined) this.markers.add(marker);
      this.heap.push({ at: verdict.deliverMs, offset: result.queueOffset });
      if (this.heap.peek()?.offset === result.queueOffset) this.arm();
      return { ...result, timerOutMs: verdict.deliverMs };
    }
    return result;
  }

  /** Delivers whatever is due now (also what the timer does). */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.deliverDue()
      .catch((err: unknown) => {
        if (!this.ctx.stopping) this.ctx.logger.warn('timer delivery failed, will retry', { error: err });
      })
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.arm();
      });
    return this.running;
  }

  /** Stops the timer; resolves once a delivery under way has ended and the checkpoint is written. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    await this.persist();
    await this.state.settled();
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.heap.peek();
    if (next === undefined || this.stopped) return;
    const wait = Math.min(MAX_TIMEOUT, Math.max(0, next.at - Date.now()));
    this.timer = setTimeout(() => void this.tick(), wait);
    this.timer.unref();
  }

  private async deliverDue(): Promise<void> {
    let changed = false;
    for (let next = this.heap.peek(); next !== undefined && next.at <= Date.now(); next = this.heap.peek()) {
      const got = await this.ctx.store.getMessages(TIMER_TOPIC, 0, next.offset, 1);
      const record = got.status === 'FOUND' ? got.messages[0] : undefined;
      if (record !== undefined) {
        const msg = decodeStoredMessage(record).message;
        const props = decodeProperties(msg.properties);
        const marker = RecallMarkers.markerKey(props);
        if (marker !== undefined) this.markers.remove(marker);
        // A marker is never delivered; a recalled message is dropped (Java's delete list).
        const drop = marker !== undefined || this.markers.recalled(props);
        const realTopic = props[PropertyKey.REAL_TOPIC];
        const realQid = Number(props[PropertyKey.REAL_QID]);
        delete props[PropertyKey.REAL_TOPIC];
        delete props[PropertyKey.REAL_QID];
        props[PropertyKey.TIMER_DEQUEUE_MS] = String(Date.now());
        const real = drop ? undefined : toRealTopic(msg, props, realTopic, realQid, this.ctx.storeHost);
        if (real !== undefined) {
          const result = await this.ctx.store.putMessage(real);
          // Refused for good: skipped (it stays readable in the timer topic), or it would hold
          // back every later one. Refused for now: left in the heap for the next tick.
          if (isPermanentRefusal(result.status))
            logSkippedMessage(this.ctx.logger, 'timer', msg, real, result);
          else if (result.status !== 'PUT_OK' && result.status !== 'FLUSH_DISK_TIMEOUT')
            throw new Error(`timer message could not be delivered: ${result.status}`);
        }
      }
      this.heap.pop();
      this.markDelivered(next.offset);
      changed = true;
    }
    if (changed) await this.persist();
  }

  private markDelivered(offset: number): void {
    this.delivered.add(offset);
    while (this.delivered.delete(this.checkpoint)) this.checkpoint++;
  }

  private persist(): Promise<void> {
    return this.state.save(() =>
      JSON.stringify({ checkpoint: this.checkpoint, delivered: [...this.delivered] }),
    );
  }
}

function illegal(status: 'MESSAGE_ILLEGAL' | 'UNKNOWN_ERROR', reason: string): PutResult {
  return {
    status,
    physicalOffset: -1,
    queueOffset: -1,
    wroteBytes: 0,
    storeTimestamp: 0,
    error: new Error(reason),
  };
}
