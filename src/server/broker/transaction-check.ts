/**
 * Transaction check-back (Java `TransactionalMessageCheckService`, simplified): half messages
 * older than `transactionTimeOut` and not yet committed or rolled back are checked with a producer
 * of their group (CHECK_TRANSACTION_STATE, oneway) every `transactionCheckInterval`, at most
 * `transactionCheckMax` times, then dropped. Resolved offsets and the scan position persist in
 * `config/transaction.json`.
 */
import { createRequest } from '../../protocol/command.js';
import { CheckTransactionState } from '../../protocol/headers/transaction.js';
import { encodeOffsetMsgId } from '../../protocol/message/message-id.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { decodeStoredMessage, encodeStoredMessage } from '../../protocol/message/stored-message.js';
import { SystemTopic } from '../../protocol/validation.js';
import type { BrokerContext, TransactionLedger } from './context.js';
import { PeriodicTask } from './periodic-task.js';
import { StateFile } from './state-file.js';

const BATCH = 64;

export class TransactionCheckService implements TransactionLedger {
  private readonly resolved = new Set<number>();
  private readonly checkTimes = new Map<number, number>();
  /** Half-topic queue offset below which every half message is resolved. */
  private progress = 0;
  private readonly state: StateFile;
  private readonly task: PeriodicTask;

  constructor(
    private readonly ctx: BrokerContext,
    file: string,
  ) {
    this.state = new StateFile(file);
    this.task = new PeriodicTask(() => this.scan(), ctx, 'transaction check failed');
  }

  async start(): Promise<void> {
    await this.state.load(
      (text) => {
        const json = JSON.parse(text) as { progress?: number; resolved?: number[] };
        if (typeof json.progress === 'number') this.progress = json.progress;
        for (const o of json.resolved ?? []) if (typeof o === 'number') this.resolved.add(o);
      },
      this.ctx.logger,
      'transaction state',
    );
    this.task.start(this.ctx.options.transactionCheckInterval);
  }

  stop(): void {
    this.task.stop();
  }

  isResolved(halfOffset: number): boolean {
    return this.resolved.has(halfOffset);
  }

  resolve(halfOffset: number): void {
    this.resolved.add(halfOffset);
    this.checkTimes.delete(halfOffset);
    void this.persist().catch((err: unknown) =>
      this.ctx.logger.warn('persisting transaction state failed', { error: err }),
    );
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
        if (got.nextBeginOffset > offset && advancing) this.progress = got.nextBeginOffset;
        break;
      }
      for (const record of got.messages) {
        const half = decodeStoredMessage(record).message;
        offset = half.queueOffset + 1;
        if (this.resolved.has(half.physicalOffset)) {
          if (advancing) {
            this.progress = offset;
            this.resolved.delete(half.physicalOffset);
          }
          continue;
        }
        advancing = false;
        if (now - half.storeTimestamp < this.ctx.options.transactionTimeOut) return;
        const times = (this.checkTimes.get(half.physicalOffset) ?? 0) + 1;
        if (times > this.ctx.options.transactionCheckMax) {
          this.ctx.logger.warn('half message checked too often, dropped', { offset: half.physicalOffset });
          this.resolve(half.physicalOffset);
          continue;
        }
        this.checkTimes.set(half.physicalOffset, times);
        this.sendCheck(half);
      }
    }
    await this.persist();
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

  persist(): Promise<void> {
    const text = JSON.stringify({ progress: this.progress, resolved: [...this.resolved] });
    return this.state.write(text);
  }
}
