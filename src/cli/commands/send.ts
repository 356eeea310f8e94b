import { Producer } from '../../producer/producer.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import type { ProducerOptions } from '../../producer/options.js';
import type { SendResult } from '../../producer/send-result.js';
import type { CliCommand } from '../command.js';
import { STRATEGIES, intFlag, oneOf, parseFlags, parseNamesrv, requiredFlag } from '../flags.js';
import { validateTopic } from '../../protocol/validation.js';
import { LatencyHistogram, formatMs } from '../stats.js';

export interface SendSummary {
  count: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  perBroker: Record<string, { total: number; queues: Record<string, number> }>;
  msgsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** With --count 1 and a send that succeeded: its ids and where it was stored. */
  msgId?: string;
  offsetMsgId?: string;
  messageQueue?: SendResult['messageQueue'];
  queueOffset?: number;
  /** With --count 1 and --deliver-after, when the broker issued one (5.3.2+). */
  recallHandle?: string;
}

const FLAGS = {
  namesrv: { type: 'string' },
  topic: { type: 'string' },
  count: { type: 'string' },
  size: { type: 'string' },
  concurrency: { type: 'string' },
  tag: { type: 'string' },
  keys: { type: 'string' },
  group: { type: 'string' },
  timeout: { type: 'string' },
  'deliver-after': { type: 'string' },
  'message-group': { type: 'string' },
  priority: { type: 'string' },
  strategy: { type: 'string' },
  json: { type: 'boolean' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export const sendCommand: CliCommand = {
  path: ['send'],
  summary: 'Send one message (prints its SendResult) or many (prints a summary)',
  help: `Usage: rocketmq-ts send --namesrv HOST:PORT --topic T [options]

With --count 1 (the default) prints the SendResult. With more, sends --count messages with
--concurrency sends in flight and prints statuses, sends per broker and queue, msgs/s, p50
and p99. Exits non-zero if any send failed.

Options:
${CLIENT_SECURITY_HELP}
  --namesrv A         NameServer address(es), "h:p;h:p" (required)
  --topic T           topic (required)
  --count N           messages to send (default 1)
  --size B            body size in bytes (default 128)
  --concurrency C     sends in flight (default 1)
  --tag X             TAGS property
  --keys K            KEYS (comma separated)
  --group G           producer group (default rocketmq_ts_cli)
  --timeout MS        sendMsgTimeout (default 3000)
  --deliver-after MS  a timer message, delivered MS ms after the send (deliverAfterMs); a 5.3.2+
                      broker answers with a recallHandle for "rocketmq-ts recall"
  --message-group G   [5.x] messageGroup: FIFO, every message of G to one queue (__SHARDINGKEY)
  --priority N        [5.4+] priority (integer >= 0) for a PRIORITY topic
  --strategy S        adaptive | java-4.9 | java-5 (default adaptive)
  --json              one JSON line {count, ok, failed, statuses, perBroker, msgsPerSec, p50Ms, p99Ms};
                      with --count 1 also msgId, offsetMsgId, messageQueue, queueOffset and
                      recallHandle (when the broker gave one)`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const { producer, topic } = cliProducer(
      values,
      values.strategy ? { latencyFaultStrategy: oneOf('--strategy', values.strategy, STRATEGIES) } : {},
    );
    const count = intFlag('--count', values.count, 1, 1, 1e9);
    const size = intFlag('--size', values.size, 128, 1, 4 * 1024 * 1024);
    const concurrency = intFlag('--concurrency', values.concurrency, 1, 1, 10000);
    const deliverAfterMs =
      values['deliver-after'] === undefined
        ? undefined
        : intFlag('--deliver-after', values['deliver-after'], 0, 0, 259_200_000);
    const priority =
      values.priority === undefined ? undefined : intFlag('--priority', values.priority, 0, 0, 2_147_483_647);
    const body = Buffer.alloc(size, 'x');
    const keys = values.keys ? values.keys.split(',').filter((k) => k.length > 0) : undefined;
    const message = {
      topic: topic,
      body,
      tags: values.tag,
      keys,
      deliverAfterMs,
      messageGroup: values['message-group'],
      priority,
    };
    await producer.start();
    try {
      if (count === 1 && !values.json) {
        const r = await producer.send(message);
        console.log(JSON.stringify(r, null, 2));
        return 0;
      }
      let single: SendResult | undefined;
      const summary = await sendMany(producer, message, count, concurrency, undefined, (r) => (single = r));
      if (values.json) console.log(JSON.stringify(count === 1 ? withResult(summary, single) : summary));
      else printSummary(summary);
      return summary.failed > 0 ? 1 : 0;
    } finally {
      await producer.shutdown();
    }
  },
};

/**
 * The (not started) producer of `send` and `recall`, from --namesrv, --topic (checked), --group,
 * --timeout and the security flags.
 */
export function cliProducer(
  values: Parameters<typeof clientSecurity>[0] & {
    namesrv?: string;
    topic?: string;
    group?: string;
    timeout?: string;
  },
  extra: Partial<ProducerOptions> = {},
): { producer: Producer; topic: string } {
  const namesrv = parseNamesrv('--namesrv', requiredFlag('--namesrv', values.namesrv));
  const topic = requiredFlag('--topic', values.topic);
  validateTopic(topic, '--topic');
  const timeout = intFlag('--timeout', values.timeout, 3000, 1, 600000);
  const producer = new Producer({
    namesrvAddr: namesrv,
    producerGroup: values.group ?? 'rocketmq_ts_cli',
    sendMsgTimeout: timeout,
    ...clientSecurity(values),
    ...extra,
  });
  return { producer, topic };
}

/** Sends `count` messages with `concurrency` in flight; collects the summary. */
export async function sendMany(
  producer: Producer,
  message: Parameters<Producer['send']>[0],
  count: number,
  concurrency: number,
  onError?: (err: unknown) => void,
  onSent?: (result: SendResult) => void,
): Promise<SendSummary> {
  const hist = new LatencyHistogram();
  const s: SendSummary = {
    count,
    ok: 0,
    failed: 0,
    statuses: {},
    perBroker: {},
    msgsPerSec: 0,
    p50Ms: NaN,
    p99Ms: NaN,
  };
  let next = 0;
  const started = performance.now();
  const record = (r: SendResult): void => {
    s.ok++;
    s.statuses[r.status] = (s.statuses[r.status] ?? 0) + 1;
    const b = (s.perBroker[r.messageQueue.brokerName] ??= { total: 0, queues: {} });
    b.total++;
    b.queues[r.messageQueue.queueId] = (b.queues[r.messageQueue.queueId] ?? 0) + 1;
  };
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const t0 = performance.now();
      try {
        const result = await producer.send(message);
        record(result);
        onSent?.(result);
        hist.record(performance.now() - t0);
      } catch (err) {
        s.failed++;
        s.statuses['FAILED'] = (s.statuses['FAILED'] ?? 0) + 1;
        onError?.(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const elapsed = (performance.now() - started) / 1000;
  s.msgsPerSec = Math.round(s.ok / Math.max(elapsed, 1e-9));
  s.p50Ms = Number(formatMs(hist.percentile(50)));
  s.p99Ms = Number(formatMs(hist.percentile(99)));
  return s;
}

/** The summary of a one-message run with that message's ids (a script needs its msgId). */
function withResult(s: SendSummary, r: SendResult | undefined): SendSummary {
  if (r === undefined) return s;
  const { msgId, offsetMsgId, messageQueue, queueOffset, recallHandle } = r;
  return {
    ...s,
    msgId,
    offsetMsgId,
    messageQueue,
    queueOffset,
    ...(recallHandle === undefined ? {} : { recallHandle }),
  };
}

function printSummary(s: SendSummary): void {
  console.log(`sent ${s.count}: ${s.ok} ok, ${s.failed} failed`);
  console.log(
    `statuses: ${Object.entries(s.statuses)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  for (const [broker, b] of Object.entries(s.perBroker)) {
    const qs = Object.entries(b.queues)
      .map(([q, n]) => `q${q}=${n}`)
      .join(' ');
    console.log(`  ${broker}: ${b.total} (${qs})`);
  }
  console.log(
    `throughput: ${s.msgsPerSec} msgs/s   p50 ${formatMs(s.p50Ms)} ms   p99 ${formatMs(s.p99Ms)} ms`,
  );
}
