/**
 * Transaction check-back (Java `TransactionalMessageCheckService`, simplified): half messages
 * older than `transactionTimeOut` and not yet committed or rolled back are checked with a producer
 * of their group (CHECK_TRANSACTION_STATE, oneway) every `transactionCheckInterval`, at most
 * `transactionCheckMax` times, then dropped. Resolved offsets and the scan position persist in
 * `config/transaction.json`.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RequestCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { encodeOffsetMsgId } from '../../protocol/message/message-id.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { decodeStoredMessage, encodeStoredMessage } from '../../protocol/message/stored-message.js';
import { SystemTopic } from '../../protocol/validation.js';
import type { BrokerContext, TransactionLedger } from './context.js';

const BATCH = 64;

export class TransactionCheckService implements TransactionLedger {
  private readonly resolved = new Set<number>();
  private readonly checkTimes = new Map<number, number>();
  /** Half-topic queue offset below which every half message is resolved. */
  private progress = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private persisting: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: BrokerContext,
    private readonly file: string,
  ) {}

  async start(): Promise<void> {
    try {
      const json = JSON.parse(await readFile(this.file, 'utf8')) as {
        progress?: number;
        resolved?: number[];
      };
      if (typeof json.progress === 'number') this.progress = json.progress;
      for (const o of json.resolved ?? []) if (typeof o === 'number') this.resolved.add(o);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.ctx.logger.warn('transaction state unreadable, starting over', { error: err });
    }
    this.timer = setInterval(() => void this.check(), this.ctx.options.transactionCheckInterval);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
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
  async check(): Promise<void> {
    if (this.busy || this.ctx.stopping) return;
    this.busy = true;
    try {
      await this.scan();
    } catch (err) {
      if (!this.ctx.stopping) this.ctx.logger.warn('transaction check failed', { error: err });
    } finally {
      this.busy = false;
    }
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
    const header = {
      tranStateTableOffset: half.queueOffset,
      commitLogOffset: half.physicalOffset,
      msgId: uniq ?? offsetMsgId,
      transactionId: uniq ?? offsetMsgId,
      offsetMsgId,
    };
    conn.oneway(createRequest(RequestCode.CHECK_TRANSACTION_STATE, header, body)).catch(() => undefined);
  }

  persist(): Promise<void> {
    const text = JSON.stringify({ progress: this.progress, resolved: [...this.resolved] });
    this.persisting = this.persisting
      .catch(() => undefined)
      .then(async () => {
        await mkdir(dirname(this.file), { recursive: true });
        await writeFile(`${this.file}.tmp`, text);
        await rename(`${this.file}.tmp`, this.file);
      });
    return this.persisting;
  }
}
