/**
 * The producer's OpenTelemetry work per send, in process and without a network: what a send
 * adds before and after its I/O (span, trace context in the properties, attempt event, result,
 * metrics) measured as client CPU per send beside the same prepare without it, in one run:
 * `openTelemetry: false` (nothing), the API without an SDK, and the SDK on (bench/otel-sdk.ts:
 * batch span processor and periodic metric reader into discarding exporters). Each mode runs
 * `--rounds` times interleaved; medians are printed. bench/producer.ts `--otel` measures the
 * same modes end to end against a cluster, where the machine's noise is larger than these.
 *
 *   node build/bench/otel-send.js [--sends 50000] [--rounds 5]
 */
import { parseArgs } from 'node:util';
import * as api from '@opentelemetry/api';
import { clientTelemetry } from '../src/observability/otel/api.js';
import { prepareMessage } from '../src/producer/message.js';
import { ProducerTelemetry } from '../src/producer/send-telemetry.js';
import type { SendResult } from '../src/producer/send-result.js';
import { UniqIdGenerator } from '../src/protocol/message/message-id.js';
import { installBenchOtelSdk } from './otel-sdk.js';

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '50000' },
    rounds: { type: 'string', default: '5' },
  },
});
const sends = Number(values.sends);
const rounds = Number(values.rounds);

const settings = {
  maxMessageSize: 4 * 1024 * 1024,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  namespace: undefined,
};
const ids = new UniqIdGenerator();
const body = Buffer.alloc(128, 1);
const mq = { topic: 'BenchOtel', brokerName: 'broker-a', queueId: 1 };
const result: SendResult = {
  status: 'SEND_OK',
  msgId: '',
  offsetMsgId: '',
  messageQueue: mq,
  queueOffset: 0,
  regionId: 'DefaultRegion',
  traceOn: true,
};
const settled = Promise.resolve(result);

/** Client CPU µs per send of `sends` prepares, each with `telemetry`'s work when given. */
async function cpuPerSend(telemetry: ProducerTelemetry | undefined): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < sends; i++) {
    const message = { topic: 'BenchOtel', body, tags: 'bench' };
    const span = telemetry?.beginSend(message, undefined, false);
    const p = prepareMessage(message, settings, ids, span?.fields);
    if (span !== undefined) {
      span.attempt(mq, '127.0.0.1:10911', 1, undefined);
      span.watch(settled, p.msgId);
    }
    // 64 in flight: the settled sends' callbacks run between groups, as on a real event loop.
    if (i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setImmediate(r));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / sends;
}

/**
 * The SDK's own floor for the same telemetry, with nothing of ours: one span with the same
 * attribute counts (8 at start, 6 at the end) and one event, ended, and two histogram records
 * with prebuilt attributes; the same prepare without trace fields. "SDK on" minus this is ours.
 */
async function sdkFloorPerSend(): Promise<number> {
  const tracer = api.trace.getTracer('bench-floor');
  const meter = api.metrics.getMeter('bench-floor');
  const seconds = meter.createHistogram('floor.duration');
  const ms = meter.createHistogram('floor.cost');
  const a1 = { a: 'rocketmq', b: 'BenchOtel', c: 'send', d: 'send' };
  const a2 = { topic: 'BenchOtel', client_id: 'c', invocation_status: 'success' };
  const started = process.cpuUsage();
  for (let i = 0; i < sends; i++) {
    const message = { topic: 'BenchOtel', body, tags: 'bench' };
    const span = tracer.startSpan('send BenchOtel', { kind: api.SpanKind.PRODUCER });
    span.setAttributes({
      a: 'rocketmq',
      b: 'BenchOtel',
      c: 'send',
      d: 'send',
      e: 'c',
      f: 'g',
      g: 'normal',
      h: 'bench',
    });
    prepareMessage(message, settings, ids);
    span.addEvent('send attempt', { a: 1, b: 'broker-a', c: '1', d: 1, e: '127.0.0.1:10911' });
    void settled.then(() => {
      span.setAttributes({ m: 'id', p: '1', q: 'broker-a', r: 'SEND_OK', s: '127.0.0.1', t: 10911 });
      span.end();
      seconds.record(0.001, a1);
      ms.record(1, a2);
    });
    if (i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setImmediate(r));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / sends;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function telemetryFor(): ProducerTelemetry | undefined {
  const otel = clientTelemetry(true);
  if (otel === undefined) return undefined;
  const t = new ProducerTelemetry(otel, {
    clientId: '127.0.0.1@bench',
    producerGroup: 'BENCH',
    namespace: undefined,
  });
  t.start();
  return t;
}

async function main(): Promise<void> {
  const rows = { off: [] as number[], noSdk: [] as number[], sdk: [] as number[], floor: [] as number[] };
  await cpuPerSend(undefined); // warm the prepare path
  for (let r = 0; r < rounds; r++) {
    rows.off.push(await cpuPerSend(undefined));
    const noSdk = telemetryFor();
    rows.noSdk.push(await cpuPerSend(noSdk));
    noSdk?.stop();
    const sdk = await installBenchOtelSdk();
    const on = telemetryFor();
    rows.sdk.push(await cpuPerSend(on));
    on?.stop();
    rows.floor.push(await sdkFloorPerSend());
    await sdk.uninstall();
  }
  const off = median(rows.off);
  console.log(
    `${rounds} rounds of ${sends} sends (128 B, 64 in flight); client CPU µs per send, median of the rounds\n`,
  );
  console.log('mode              µs/send   added µs | per round');
  // "SDK floor": the SDK alone doing the same amount of work (see sdkFloorPerSend).
  for (const [label, xs] of [
    ['openTelemetry off', rows.off],
    ['API, no SDK', rows.noSdk],
    ['SDK on', rows.sdk],
    ['SDK floor', rows.floor],
  ] as const) {
    const m = median(xs);
    console.log(
      `${label.padEnd(17)} ${m.toFixed(2).padStart(8)} ${(label === 'openTelemetry off' ? '-' : (m - off).toFixed(2)).padStart(10)} | ${xs.map((x) => x.toFixed(2)).join(' ')}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
