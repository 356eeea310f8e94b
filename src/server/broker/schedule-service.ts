/**
 * Delay levels (Java `ScheduleMessageService`): messages parked in SCHEDULE_TOPIC_XXXX queue
 * level − 1 are put into REAL_TOPIC/REAL_QID once `storeTimestamp + delay(level)` has passed.
 * Progress per level is persisted to `config/delayOffset.json` as `{"offsetTable":{"1":5}}`.
 */
import { parseFastjson } from '../../protocol/fastjson.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../protocol/message/stored-message.js';
import { SystemTopic } from '../../protocol/validation.js';
import type { BrokerContext } from './context.js';
import { PeriodicTask } from './periodic-task.js';
import { StateFile } from './state-file.js';
import { isPermanentRefusal, logSkippedMessage, toRealTopic } from './message-util.js';

const TICK_MS = 100;
const BATCH = 32;

export class ScheduleMessageService {
  private readonly offsets = new Map<number, number>();
  private dirty = false;
  private readonly state: StateFile;
  private readonly task: PeriodicTask;

  constructor(
    private readonly ctx: BrokerContext,
    file: string,
  ) {
    this.state = new StateFile(file);
    this.task = new PeriodicTask(() => this.deliverDue(), ctx, 'delayed delivery failed, will retry');
  }

  async start(): Promise<void> {
    await this.state.load(
      (text) => {
        const json = parseFastjson(text) as { offsetTable?: Record<string, unknown> };
        for (const [level, offset] of Object.entries(json.offsetTable ?? {})) {
          if (typeof offset === 'number' && Number.isInteger(Number(level)))
            this.offsets.set(Number(level), offset);
        }
      },
      this.ctx.logger,
      'delay offsets',
    );
    this.task.start(TICK_MS);
  }

  /** Stops the timer; resolves once a delivery run under way (which puts messages) has ended. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Resolves once no state-file write is in flight or queued. */
  settled(): Promise<void> {
    return this.state.settled();
  }

  /** Delivers every due message now (also what the timer does). */
  tick(): Promise<void> {
    return this.task.run();
  }

  private async deliverDue(): Promise<void> {
    for (let level = 1; level <= this.ctx.delayLevels.length; level++) await this.deliverLevel(level);
    if (this.dirty) {
      this.dirty = false;
      await this.persist();
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
        const real = toRealTopic(msg, props, realTopic, realQid, this.ctx.storeHost);
        if (real !== undefined) {
          const result = await this.ctx.store.putMessage(real);
          if (isPermanentRefusal(result.status)) {
            // It stays readable in SCHEDULE_TOPIC_XXXX; the level moves on past it.
            logSkippedMessage(this.ctx.logger, `delay level ${level}`, msg, real, result);
          } else if (result.status !== 'PUT_OK' && result.status !== 'FLUSH_DISK_TIMEOUT') {
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
    return this.state.write(text);
  }
}
