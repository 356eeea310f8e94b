/**
 * Delay levels (Java `ScheduleMessageService`): messages parked in SCHEDULE_TOPIC_XXXX queue
 * level − 1 are put into REAL_TOPIC/REAL_QID once `storeTimestamp + delay(level)` has passed.
 * Progress per level is persisted to `config/delayOffset.json` as `{"offsetTable":{"1":5}}`.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseFastjson } from '../../protocol/fastjson.js';
import { decodeProperties, encodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../protocol/message/stored-message.js';
import { SystemTopic } from '../../protocol/validation.js';
import type { BrokerContext } from './context.js';

const TICK_MS = 100;
const BATCH = 32;

export class ScheduleMessageService {
  private readonly offsets = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private dirty = false;
  private persisting: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: BrokerContext,
    private readonly file: string,
  ) {}

  async start(): Promise<void> {
    try {
      const json = parseFastjson(await readFile(this.file, 'utf8')) as {
        offsetTable?: Record<string, unknown>;
      };
      for (const [level, offset] of Object.entries(json.offsetTable ?? {})) {
        if (typeof offset === 'number' && Number.isInteger(Number(level)))
          this.offsets.set(Number(level), offset);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.ctx.logger.warn('delay offsets unreadable, starting over', { error: err });
    }
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Delivers every due message now (also what the timer does). */
  async tick(): Promise<void> {
    if (this.busy || this.ctx.stopping) return;
    this.busy = true;
    try {
      for (let level = 1; level <= this.ctx.delayLevels.length; level++) await this.deliverLevel(level);
      if (this.dirty) {
        this.dirty = false;
        await this.persist();
      }
    } catch (err) {
      if (!this.ctx.stopping) this.ctx.logger.warn('delayed delivery failed, will retry', { error: err });
    } finally {
      this.busy = false;
    }
  }

  private async deliverLevel(level: number): Promise<void> {
    const queueId = level - 1;
    const topic = SystemTopic.RMQ_SYS_SCHEDULE_TOPIC;
    const delay = this.ctx.delayLevels[queueId] ?? 0;
    for (;;) {
      let offset = this.offsets.get(level) ?? 0;
      if (this.ctx.store.getMaxOffset(topic, queueId) <= offset) return;
      const got = await this.ctx.store.getMessages(topic, queueId, offset, BATCH);
      if (got.status !== 'FOUND') {
        if (got.nextBeginOffset > offset) this.setOffset(level, got.nextBeginOffset);
        return;
      }
      const now = Date.now();
      for (const record of got.messages) {
        const msg = decodeStoredMessage(record).message;
        if (msg.storeTimestamp + delay > now) return;
        const props = decodeProperties(msg.properties);
        const realTopic = props[PropertyKey.REAL_TOPIC];
        const realQid = Number(props[PropertyKey.REAL_QID]);
        delete props[PropertyKey.DELAY];
        if (realTopic !== undefined) {
          const result = await this.ctx.store.putMessage({
            topic: realTopic,
            queueId: Number.isInteger(realQid) && realQid >= 0 ? realQid : 0,
            flag: msg.flag,
            sysFlag: msg.sysFlag,
            bornTimestamp: msg.bornTimestamp,
            bornHost: msg.bornHost,
            storeHost: this.ctx.storeHost,
            reconsumeTimes: msg.reconsumeTimes,
            preparedTransactionOffset: msg.preparedTransactionOffset,
            body: msg.body,
            properties: encodeProperties(props),
          });
          if (result.status !== 'PUT_OK' && result.status !== 'FLUSH_DISK_TIMEOUT') {
            this.ctx.logger.warn('delayed message could not be delivered yet', {
              status: result.status,
              topic: realTopic,
            });
            return;
          }
        }
        offset = msg.queueOffset + 1;
        this.setOffset(level, offset);
      }
    }
  }

  private setOffset(level: number, offset: number): void {
    this.offsets.set(level, offset);
    this.dirty = true;
  }

  persist(): Promise<void> {
    const text = JSON.stringify({ offsetTable: Object.fromEntries(this.offsets) });
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
