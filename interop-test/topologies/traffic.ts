/**
 * Traffic for failover scenarios: `SendTraffic` keeps a few concurrent sync senders busy and
 * records every send (when, which group acknowledged it, or the error); `ConsumeTracker` is our
 * PushConsumer reading the topic back, recording which sequence numbers arrived and when
 * (`ReadBack`, shared with lite-reader.ts).
 * Together they give what every scenario asserts: failed sends, acknowledged messages never
 * read back, when a group carried traffic again, whether consumers kept consuming.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import type { PushConsumerOptions } from '../../src/consumer/push/options.js';
import { Producer } from '../../src/producer/producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import type { Logger } from '../../src/observability/logger.js';
import { waitUntil } from './topology.js';

/**
 * Issue 16's goal: a group carries traffic again within this long after it can (its new master
 * registered at the NameServer, as the harness sees it; a frozen master resumed). Every scenario
 * where traffic must come back asserts it (scenario.ts `assertTrafficBack`).
 */
export const TRAFFIC_BACK_GOAL_MS = 3_000;

export interface SendRecord {
  seq: number;
  startedAt: number;
  endedAt: number;
  /** Group that acknowledged the send (SEND_OK or another status); undefined when it failed. */
  brokerName?: string;
  msgId?: string;
  error?: Error;
}

export interface SendTrafficOptions {
  /** Concurrent sync senders. @default 4 */
  concurrency?: number;
  /** Pause of each sender between two sends (ms), to keep a small machine usable. @default 20 */
  pauseMs?: number;
  /** Body size (bytes). @default 128 */
  bodySize?: number;
}

/** A producer of ours as the scenarios use it: Java defaults unless overridden. */
export async function topologyProducer(
  namesrvAddr: string,
  group: string,
  options: Partial<ProducerOptions> = {},
): Promise<Producer> {
  const producer = new Producer({ producerGroup: group, namesrvAddr, instanceName: group, ...options });
  await producer.start();
  return producer;
}

function body(seq: number, size: number): Buffer {
  const head = Buffer.from(`seq:${seq}:`);
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x61)]);
}

/** Parses the sequence number of a message sent by SendTraffic. */
export function seqOf(messageBody: Uint8Array): number | undefined {
  const m = /^seq:(\d+):/.exec(Buffer.from(messageBody.subarray(0, 24)).toString('latin1'));
  return m === null ? undefined : Number(m[1]);
}

export class SendTraffic {
  readonly records: SendRecord[] = [];
  private nextSeq = 0;
  private running = false;
  private workers: Promise<void>[] = [];

  constructor(
    private readonly producer: Producer,
    readonly topic: string,
    private readonly options: SendTrafficOptions = {},
  ) {}

  start(): void {
    this.running = true;
    const n = this.options.concurrency ?? 4;
    for (let i = 0; i < n; i++) this.workers.push(this.worker());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
    this.workers = [];
  }

  private async worker(): Promise<void> {
    const size = this.options.bodySize ?? 128;
    const pause = this.options.pauseMs ?? 20;
    while (this.running) {
      const seq = this.nextSeq++;
      const rec: SendRecord = { seq, startedAt: Date.now(), endedAt: 0 };
      try {
        const r = await this.producer.send({
          topic: this.topic,
          body: body(seq, size),
          keys: [`seq-${seq}`],
        });
        rec.brokerName = r.messageQueue.brokerName;
        rec.msgId = r.msgId;
      } catch (err) {
        rec.error = err as Error;
      }
      rec.endedAt = Date.now();
      this.records.push(rec);
      if (pause > 0) await sleep(pause);
    }
  }

  failed(): SendRecord[] {
    return this.records.filter((r) => r.error !== undefined);
  }

  /** Sequence numbers some group acknowledged. */
  acked(): number[] {
    return this.records.filter((r) => r.brokerName !== undefined).map((r) => r.seq);
  }

  /** Acknowledgements by `brokerName` of sends started at or after `since`. */
  ackedBy(brokerName: string, since = 0): SendRecord[] {
    return this.records.filter((r) => r.brokerName === brokerName && r.startedAt >= since);
  }

  /** When `brokerName` first acknowledged a send started at or after `since` (epoch ms). */
  firstAckBy(brokerName: string, since: number): number | undefined {
    let first: number | undefined;
    for (const r of this.ackedBy(brokerName, since))
      if (first === undefined || r.endedAt < first) first = r.endedAt;
    return first;
  }

  /** Waits until `brokerName` acknowledged a send started at or after `since`; returns when. */
  async waitForAckBy(brokerName: string, since: number, timeoutMs: number): Promise<number> {
    await waitUntil(
      `a send acknowledged by ${brokerName}`,
      () => this.firstAckBy(brokerName, since) !== undefined,
      timeoutMs,
    );
    return this.firstAckBy(brokerName, since)!;
  }

  /** Share of each group in the acknowledgements of sends started in [from, to). */
  shares(from: number, to: number): Record<string, number> {
    const counts: Record<string, number> = {};
    let total = 0;
    for (const r of this.records) {
      if (r.brokerName === undefined || r.startedAt < from || r.startedAt >= to) continue;
      counts[r.brokerName] = (counts[r.brokerName] ?? 0) + 1;
      total++;
    }
    for (const k of Object.keys(counts)) counts[k] = counts[k]! / total;
    return counts;
  }

  /**
   * One line for assertion messages; with `since`, failures are timed relative to it
   * (`+1234ms`), to place them against a kill or restart.
   */
  summary(since?: number): string {
    const failed = this.failed();
    const when =
      since === undefined || failed.length === 0
        ? ''
        : ` at ${failed.map((r) => `+${r.startedAt - since}ms`).join(', ')}`;
    return `${this.records.length} sends, ${failed.length} failed${when}${
      failed.length > 0 ? ` (first: ${failed[0]!.error?.message})` : ''
    }`;
  }
}

export interface Receipt {
  firstAt: number;
  count: number;
  brokerName: string;
}

/** Which sequence numbers a reader got, first when and from which group. */
export class ReadBack {
  readonly received = new Map<number, Receipt>();

  /** Records one delivery of a SendTraffic message. */
  protected note(body: Uint8Array, brokerName: string): void {
    const seq = seqOf(body);
    if (seq === undefined) return;
    const r = this.received.get(seq);
    if (r !== undefined) r.count++;
    else this.received.set(seq, { firstAt: Date.now(), count: 1, brokerName });
  }

  /** Messages first received at or after `since`. */
  receivedSince(since: number, brokerName?: string): number {
    let n = 0;
    for (const r of this.received.values())
      if (r.firstAt >= since && (brokerName === undefined || r.brokerName === brokerName)) n++;
    return n;
  }

  /** Waits until every seq of `seqs` arrived or `timeoutMs` passed; returns the missing ones. */
  async missingAfter(seqs: readonly number[], timeoutMs: number): Promise<number[]> {
    const missing = (): number[] => seqs.filter((s) => !this.received.has(s));
    await waitUntil(
      'every acknowledged message read back',
      () => missing().length === 0,
      timeoutMs,
      250,
    ).catch(() => undefined);
    return missing();
  }
}

export class ConsumeTracker extends ReadBack {
  /** Broker address → pulls that failed there (from the consumer's 'pull failed' warnings). */
  readonly pullFailures: ReadonlyMap<string, number>;

  private constructor(
    readonly consumer: PushConsumer,
    failures: Map<string, number>,
  ) {
    super();
    this.pullFailures = failures;
  }

  /** Our PushConsumer of `group` reading `topic` from its first offset. */
  static async start(
    namesrvAddr: string,
    topic: string,
    group: string,
    options: Partial<PushConsumerOptions> = {},
  ): Promise<ConsumeTracker> {
    const failures = new Map<string, number>();
    const consumer = new PushConsumer({
      consumerGroup: group,
      namesrvAddr,
      instanceName: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      logger: pullFailureLogger(failures),
      ...options,
    });
    const tracker = new ConsumeTracker(consumer, failures);
    consumer.subscribe(topic, '*');
    await consumer.start(async (msg) => {
      tracker.note(msg.body, msg.queue.brokerName);
    });
    return tracker;
  }

  shutdown(): Promise<void> {
    return this.consumer.shutdown();
  }
}

/** A silent logger counting the pull loop's 'pull failed' warnings per broker address. */
export function pullFailureLogger(failures: Map<string, number>): Logger {
  const noop = (): void => undefined;
  return {
    debug: noop,
    info: noop,
    error: noop,
    warn: (msg, meta) => {
      const address = (meta as { address?: unknown } | undefined)?.address;
      if (msg === 'pull failed' && typeof address === 'string')
        failures.set(address, (failures.get(address) ?? 0) + 1);
    },
  };
}
