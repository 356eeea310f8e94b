import type { ConsumerMessage } from '../../consumer/index.js';
import { InvalidArgumentError } from '../../errors.js';
import type { CliCommand } from '../command.js';
import { intFlag, oneOf, parseDuration, parseFlags, parseNamesrv, requiredFlag } from '../flags.js';
import { LatencyHistogram, formatMs } from '../stats.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { validateTopic } from '../../protocol/validation.js';
import { checkNameServer } from '../namesrv-check.js';
import { CONSUME_MODE_NAMES, CONSUME_MODES, type ConsumeSession } from './consume-modes.js';

export interface ConsumeSummary {
  consumed: number;
  /** `topic/brokerName/queueId` → messages. */
  perQueue: Record<string, number>;
  /** From the first to the last message consumed. */
  msgsPerSec: number;
  elapsedMs: number;
  /** bornTimestamp → handler call, in ms (bornTimestamp has ms resolution). */
  latencyP50Ms: number;
  latencyP99Ms: number;
}

const FROM = ['first', 'last', 'timestamp'] as const;
const FROM_WHERE = {
  first: 'CONSUME_FROM_FIRST_OFFSET',
  last: 'CONSUME_FROM_LAST_OFFSET',
  timestamp: 'CONSUME_FROM_TIMESTAMP',
} as const;

/** The flags of `consume`, declared once: parsing and help follow this table. */
const CONSUME_FLAGS = {
  namesrv: { type: 'string' },
  mode: { type: 'string', default: 'push' },
  topic: { type: 'string' },
  group: { type: 'string' },
  expression: { type: 'string' },
  sql: { type: 'string' },
  from: { type: 'string', default: 'last' },
  timestamp: { type: 'string' },
  count: { type: 'string' },
  duration: { type: 'string' },
  orderly: { type: 'boolean' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export const consumeCommand: CliCommand = {
  path: ['consume'],
  summary: 'Consume a topic (push or lite pull consumer); prints messages (or a live rate) and a summary',
  help: `Usage: rocketmq-ts consume --namesrv HOST:PORT --topic T [options]

Joins consumer group --group (default: a new group for this run, so --from applies) and prints
every message until --count messages, --duration, or Ctrl-C; then a summary: consumed, per queue,
msgs/s, end-to-end latency p50/p99 (bornTimestamp -> handler or poll). Messages past --count are
left unconsumed for the group.

Options:
  --namesrv A         NameServer address(es), "h:p;h:p" (required)
  --mode M            push (PushConsumer) | pull (LitePullConsumer, subscribed) | pop
                      (SimpleConsumer, RocketMQ 5 POP: acks what it counts) (default push)
  --topic T           topic (required)
  --group G           consumer group (default rocketmq_ts_cli_<time>, a new group)
  --expression E      tag expression, e.g. "TagA || TagB" (default *)
  --sql S             SQL92 selector instead (broker needs enablePropertyFilter=true)
  --from W            where a new group starts: first | last | timestamp (default last)
  --timestamp MS      with --from timestamp: epoch milliseconds (default: 30 minutes ago)
  --count N           stop after N messages
  --duration D        stop after D (30, 30s, 500ms, 2m)
  --orderly           orderly consumption (push: queues locked; pop: a FIFO receive)
  --json              one JSON line per message, then one summary line
  --quiet             no message lines; a live "consumed, msgs/s, lag" line on stderr
${CLIENT_SECURITY_HELP}`,
  flags: CONSUME_FLAGS,
  async run(argv) {
    const values = parseFlags(argv, CONSUME_FLAGS);
    const namesrv = parseNamesrv('--namesrv', requiredFlag('--namesrv', values.namesrv));
    const topic = requiredFlag('--topic', values.topic);
    validateTopic(topic, '--topic');
    const mode = oneOf('--mode', values.mode, CONSUME_MODE_NAMES);
    const from = oneOf('--from', values.from, FROM);
    const count = values.count === undefined ? Infinity : intFlag('--count', values.count, 0, 1, 1e12);
    const durationMs =
      values.duration === undefined ? Infinity : parseDuration('--duration', values.duration);
    if (values.expression !== undefined && values.sql !== undefined)
      throw new InvalidArgumentError('--sql', 'give either --expression or --sql, not both');
    if (values.timestamp !== undefined && from !== 'timestamp')
      throw new InvalidArgumentError('--timestamp', 'only with --from timestamp');
    if (values.orderly === true && mode === 'pull')
      throw new InvalidArgumentError('--orderly', 'only with --mode push or pop');
    const timestampMs =
      values.timestamp === undefined
        ? Date.now() - 30 * 60_000
        : intFlag('--timestamp', values.timestamp, 0, 0, 8.64e15);
    const group = values.group ?? `rocketmq_ts_cli_${Date.now().toString(36)}`;

    const connection = clientSecurity(values);
    await checkNameServer(namesrv, connection);
    const session = CONSUME_MODES[mode]({
      connection,
      namesrvAddr: namesrv,
      consumerGroup: group,
      topic,
      subscription: values.sql !== undefined ? { sql: values.sql } : (values.expression ?? '*'),
      consumeFromWhere: FROM_WHERE[from],
      consumeTimestamp: javaTimestamp(timestampMs),
      orderly: values.orderly === true,
    });

    const tracker = new ConsumeTracker();
    const print = values.quiet === true ? undefined : values.json === true ? printJson : printText;
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const onSignal = (): void => stop();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const timer = Number.isFinite(durationMs) ? setTimeout(stop, durationMs) : undefined;
    let live: NodeJS.Timeout | undefined;
    try {
      await session.start((message) => {
        if (tracker.consumed >= count) return false;
        tracker.record(message);
        print?.(message);
        if (tracker.consumed >= count) stop();
        return true;
      });
      if (values.quiet === true) live = setInterval(() => void liveLine(session, tracker), 1000);
      await stopped;
    } finally {
      clearTimeout(timer);
      clearInterval(live);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await session.shutdown();
    }
    const summary = tracker.summary();
    if (values.json === true) console.log(JSON.stringify({ summary }));
    else printSummary(summary);
    return 0;
  },
};

/** Java's consumeTimestamp format, yyyyMMddHHmmss in local time (`UtilAll.parseDate`). */
export function javaTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** Counts, per-queue counts, rate and born → consumed latency of what the command consumed. */
export class ConsumeTracker {
  consumed = 0;
  private readonly perQueue: Record<string, number> = {};
  private readonly latency = new LatencyHistogram();
  private first = 0;
  private last = 0;
  private readonly meterStart = performance.now();
  private lastLiveCount = 0;
  private lastLiveAt = this.meterStart;

  record(m: Pick<ConsumerMessage, 'queue' | 'bornTimestamp'>): void {
    const now = performance.now();
    if (this.consumed === 0) this.first = now;
    this.last = now;
    this.consumed++;
    const key = `${m.queue.topic}/${m.queue.brokerName}/${m.queue.queueId}`;
    this.perQueue[key] = (this.perQueue[key] ?? 0) + 1;
    this.latency.record(Date.now() - m.bornTimestamp);
  }

  /** Messages per second since the previous call (for the live line). */
  rateSinceLast(): number {
    const now = performance.now();
    const rate = ((this.consumed - this.lastLiveCount) * 1000) / Math.max(1, now - this.lastLiveAt);
    this.lastLiveCount = this.consumed;
    this.lastLiveAt = now;
    return rate;
  }

  summary(): ConsumeSummary {
    const elapsedMs = this.last - this.first;
    return {
      consumed: this.consumed,
      perQueue: { ...this.perQueue },
      msgsPerSec: elapsedMs > 0 ? Math.round((this.consumed * 1000) / elapsedMs) : this.consumed,
      elapsedMs: Math.round(elapsedMs),
      latencyP50Ms: Number(formatMs(this.latency.percentile(50))),
      latencyP99Ms: Number(formatMs(this.latency.percentile(99))),
    };
  }
}

function bodyText(body: Buffer): { body: string; bodyEncoding: 'utf8' | 'base64' } {
  const text = body.toString('utf8');
  // Bytes that are not UTF-8 come back as U+FFFD; show those bodies as base64 instead.
  return Buffer.byteLength(text) === body.length && !text.includes('\uFFFD')
    ? { body: text, bodyEncoding: 'utf8' }
    : { body: body.toString('base64'), bodyEncoding: 'base64' };
}

function printJson(m: ConsumerMessage): void {
  console.log(
    JSON.stringify({
      topic: m.topic,
      brokerName: m.queue.brokerName,
      queueId: m.queue.queueId,
      queueOffset: m.queueOffset,
      msgId: m.msgId,
      offsetMsgId: m.offsetMsgId,
      tags: m.tags,
      keys: m.keys,
      properties: m.properties,
      reconsumeTimes: m.reconsumeTimes,
      bornTimestamp: m.bornTimestamp,
      storeTimestamp: m.storeTimestamp,
      bornHost: `${m.bornHost.address}:${m.bornHost.port}`,
      storeHost: `${m.storeHost.address}:${m.storeHost.port}`,
      ...bodyText(m.body),
    }),
  );
}

function printText(m: ConsumerMessage): void {
  const { body, bodyEncoding } = bodyText(m.body);
  const shown = body.length > 200 ? `${body.slice(0, 200)}… (${m.body.length} B)` : body;
  const keys = m.keys.length > 0 ? ` keys=${m.keys.join(',')}` : '';
  const tags = m.tags !== undefined ? ` tags=${m.tags}` : '';
  console.log(
    `${m.topic} ${m.queue.brokerName}/${m.queue.queueId}@${m.queueOffset} ${m.msgId}${tags}${keys} born=${new Date(m.bornTimestamp).toISOString()}` +
      `${m.reconsumeTimes > 0 ? ` reconsumed=${m.reconsumeTimes}` : ''} ${bodyEncoding === 'base64' ? 'base64:' : ''}${shown}`,
  );
}

async function liveLine(session: ConsumeSession, tracker: ConsumeTracker): Promise<void> {
  const rate = Math.round(tracker.rateSinceLast());
  const lag = session.lag === undefined ? '' : `   lag ${await session.lag()}`;
  process.stderr.write(`consumed ${tracker.consumed}   ${rate} msgs/s${lag}\n`);
}

function printSummary(s: ConsumeSummary): void {
  console.log(`consumed ${s.consumed} in ${(s.elapsedMs / 1000).toFixed(1)} s (${s.msgsPerSec} msgs/s)`);
  for (const [queue, n] of Object.entries(s.perQueue).sort(([a], [b]) => a.localeCompare(b)))
    console.log(`  ${queue}: ${n}`);
  console.log(
    `latency born -> consumed: p50 ${formatMs(s.latencyP50Ms)} ms   p99 ${formatMs(s.latencyP99Ms)} ms`,
  );
}
