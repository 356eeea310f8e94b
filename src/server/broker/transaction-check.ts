/**
 * Transaction check-back (Java `TransactionalMessageCheckService`, simplified): half messages
 * older than `transactionTimeOut` and not yet committed or rolled back are checked with a producer
 * of their group (CHECK_TRANSACTION_STATE, oneway) every `transactionCheckInterval`, at most
 * `transactionCheckMax` times, then moved to TRANS_CHECK_MAX_TIME_TOPIC. Resolved offsets (at most MAX_RESOLVED) and the scan
 * position are written to `config/transaction.json` every `flushConsumerOffsetInterval` when they
 * changed, and on stop; a crash loses at most that interval of resolutions (those half messages
 * are checked again).
 */
import { createRequest } from '../../protocol/command.js';
import { CheckTransactionState } from '../../protocol/headers/transaction.js';
import { encodeOffsetMsgId } from '../../protocol/message/message-id.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { decodeStoredMessage, encodeStoredMessage } from '../../protocol/message/stored-message.js';
import { SystemTopic } from '../../protocol/validation.js';
import { PermName } from '../../protocol/perm.js';
import type { BrokerContext, TransactionLedger } from './context.js';
import { PeriodicTask } from './periodic-task.js';
import { StateFile } from './state-file.js';

const BATCH = 64;
/**
 * Resolved half messages remembered ahead of the scan position. Oldest go first beyond it: such a
 * message may be checked once more, which a producer answers idempotently.
 */
export const MAX_RESOLVED = 100_000;

export class TransactionCheckService implements TransactionLedger {
  private readonly resolved = new Set<number>();
  private readonly checkTimes = new Map<number, number>();
  /** Half-topic queue offset below which every half message is resolved. */
  private progress = 0;
  private readonly state: StateFile;
  private readonly task: PeriodicTask;
  private readonly persistTask: PeriodicTask;
  private dirty = false;

  constructor(
    private readonly ctx: BrokerContext,
    file: string,
  ) {
    this.state = new StateFile(file);
    this.task = new PeriodicTask(() => this.scan(), ctx, 'transaction check failed');
    this.persistTask = new PeriodicTask(() => this.persist(), ctx, 'persisting transaction state failed');
  }

  /** Resolved offsets held in memory (bounded by {@link MAX_RESOLVED}). */
  get resolvedCount(): number {
    return this.resolved.size;
  }

  /** State-file writes so far (coalesced; for tests). */
  get stateWrites(): number {
    return this.state.writes;
  }

  async start(): Promise<void> {
    await this.state.load(
      (text) => {
        const json = JSON.parse(text) as { progress?: number; resolved?: number[] };
        if (typeof json.progress === 'number') this.progress = json.progress;
        for (const o of json.resolved ?? []) if (typeof o === 'number') this.remember(o);
      },
      this.ctx.logger,
      'transaction state',
    );
    this.task.start(this.ctx.options.transactionCheckInterval);
    // Resolutions are persisted on a timer, not per END_TRANSACTION (that cost one full-file write each).
    this.persistTask.start(this.ctx.options.flushConsumerOffsetInterval);
  }

  /**
   * Stops both timers and waits for a scan under way and for queued writes; `persist` (graceful
   * stop) then writes what changed since the last write.
   */
  async stop(options: { persist: boolean }): Promise<void> {
    await Promise.all([this.task.stop(), this.persistTask.stop()]);
    if (options.persist) await this.persist().catch(() => undefined);
    await this.state.settled();
  }

  isResolved(halfOffset: number): boolean {
    return this.resolved.has(halfOffset);
  }

  resolve(halfOffset: number): void {
    this.remember(halfOffset);
    this.checkTimes.delete(halfOffset);
    this.dirty = true;
  }

  private remember(halfOffset: number): void {
    this.resolved.delete(halfOffset);
    this.resolved.add(halfOffset);
    while (this.resolved.size > MAX_RESOLVED) {
      const oldest = this.resolved.values().next();
      if (oldest.done === true) break;
      this.resolved.delete(oldest.value);
    }
  }

  /** One scan of the half topic (what the timer runs). */
  check(): Promise<void> {
    return this.task.run();
  }

  private async scan(): Promise<void> {
    const topic = SystemTopic.RMQ_SYS_TRANS_HALF_TOPIC;
    const now = Date.now();
    let offset = this.progress;
    let advancing = true;
    while (offset < this.ctx.store.getMaxOffset(topic, 0)) {
      const got = await this.ctx.store.getMessages(topic, 0, offset, BATCH);
      if (got.status !== 'FOUND') {
        if (got.nextBeginOffset > offset && advancing) {
          this.progress = got.nextBeginOffset;
          this.dirty = true;
        }
        break;
      }
      for (const record of got.messages) {
        const half = decodeStoredMessage(record).message;
        offset = half.queueOffset + 1;
        if (this.resolved.has(half.physicalOffset)) {
          if (advancing) {
            this.progress = offset;
            this.resolved.delete(half.physicalOffset);
            this.dirty = true;
          }
          continue;
        }
        advancing = false;
        if (now - half.storeTimestamp < this.ctx.options.transactionTimeOut) return;
        const times = (this.checkTimes.get(half.physicalOffset) ?? 0) + 1;
        if (times > this.ctx.options.transactionCheckMax) {
          await this.discard(half);
          continue;
        }
        this.checkTimes.set(half.physicalOffset, times);
        this.sendCheck(half);
      }
    }
  }

  /**
   * Java `resolveDiscardMsg`: a half message checked `transactionCheckMax` times without an
   * answer is copied to TRANS_CHECK_MAX_TIME_TOPIC (for an operator to inspect) and never checked again.
   */
  private async discard(half: ReturnType<typeof decodeStoredMessage>['message']): Promise<void> {
    const topic = SystemTopic.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC;
    this.ctx.logger.warn('half message checked transactionCheckMax times, discarded', {
      offset: half.physicalOffset,
      topic,
    });
    this.ctx.topics.createTopicInSendMessageBackMethod(topic, 1, PermName.PERM_READ | PermName.PERM_WRITE);
    await this.ctx.store.putMessage({
      topic,
      queueId: 0,
      flag: half.flag,
      sysFlag: half.sysFlag,
      bornTimestamp: half.bornTimestamp,
      bornHost: half.bornHost,
      storeHost: this.ctx.storeHost,
      reconsumeTimes: half.reconsumeTimes,
      preparedTransactionOffset: 0,
      body: half.body,
      properties: half.properties,
    });
    this.resolve(half.physicalOffset);
  }

  private sendCheck(half: ReturnType<typeof decodeStoredMessage>['message']): void {
    const props = decodeProperties(half.properties);
    const group = props[PropertyKey.PGROUP];
    const conn = group === undefined ? undefined : this.ctx.clients.producerChannel(group);
    if (!conn) return;
    const uniq = props[PropertyKey.UNIQ_KEY];
    const offsetMsgId = encodeOffsetMsgId(half.storeHost.address, half.storeHost.port, half.physicalOffset);
    const realQid = Number(props[PropertyKey.REAL_QID] ?? '0');
    const body = encodeStoredMessage({
      ...half,
      topic: props[PropertyKey.REAL_TOPIC] ?? half.topic,
      queueId: Number.isInteger(realQid) ? realQid : 0,
      bodyCRC: undefined,
      magicCode: undefined,
    });
    const header = CheckTransactionState.encode({
      tranStateTableOffset: half.queueOffset,
      commitLogOffset: half.physicalOffset,
      msgId: uniq ?? offsetMsgId,
      transactionId: uniq ?? offsetMsgId,
      offsetMsgId,
    });
    conn.oneway(createRequest(CheckTransactionState.code, header, body)).catch(() => undefined);
  }

  /** Writes the state if it changed since the last write (the timer and stop() call this). */
  persist(): Promise<void> {
    if (!this.dirty) return this.state.settled();
    this.dirty = false;
    return this.state.save(() => JSON.stringify({ progress: this.progress, resolved: [...this.resolved] }));
  }
}
