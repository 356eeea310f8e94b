/**
 * One producer of the chaos run, in its own process: sends at a steady rate until its duration is
 * over (or SIGTERM), each body a pure function of (seed, seq) (payload.ts). Started by `run.ts`
 * with one JSON argument; prints `ready`, then one line per settled send, and `done` once every
 * send in flight has settled:
 *   `A <seq> <msgId> <brokerName> <queueId> <queueOffset> <elapsedMs>`  acknowledged
 *   `F <seq> <elapsedMs> <error code> <message>`                      failed
 *   `H <msgId>`                                 the producer reports a hedged duplicate
 *   `done <issued> <skipped> <maxEventLoopDelayMs>`
 * Sequence numbers are unique across producers: producer i of n sends i, i + n, i + 2n, ...
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RocketMQError } from '../../errors.js';
import { Producer } from '../../producer/producer.js';
import { PacedSender } from '../demo/pacer.js';
import { bodyFor } from './payload.js';

export interface ProducerProcessArgs {
  namesrvAddr: string;
  topic: string;
  group: string;
  seed: number;
  index: number;
  producers: number;
  ratePerSec: number;
  maxInFlight: number;
  durationMs: number;
  sendTimeoutMs: number;
  runProperty: string;
  runId: string;
  seqProperty: string;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').slice(0, 200);
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as ProducerProcessArgs;
  const producer = new Producer({
    namesrvAddr: args.namesrvAddr,
    producerGroup: args.group,
    instanceName: `${args.group}-${args.index}`,
    sendMsgTimeout: args.sendTimeoutMs,
    sendLatencyFaultEnable: true,
    pollNameServerInterval: 1000,
  });
  // A hedged send stored on two brokers: the consumers will see it twice, and that is why.
  producer.on('hedgedDuplicate', (e) => process.stdout.write(`H ${e.msgId}\n`));
  // A starved process fires its timeout timers late: the run allows for the delay measured here.
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  await producer.start();
  process.stdout.write('ready\n');
  const pacer = new PacedSender(
    { ratePerSec: args.ratePerSec, maxInFlight: args.maxInFlight, durationMs: args.durationMs },
    async (n) => {
      const seq = n * args.producers + args.index;
      const start = performance.now();
      try {
        const r = await producer.send({
          topic: args.topic,
          body: bodyFor(args.seed, seq),
          keys: `chaos-${args.runId}-${seq}`,
          properties: { [args.runProperty]: args.runId, [args.seqProperty]: String(seq) },
        });
        const ms = Math.round(performance.now() - start);
        const q = r.messageQueue;
        process.stdout.write(`A ${seq} ${r.msgId} ${q.brokerName} ${q.queueId} ${r.queueOffset} ${ms}\n`);
      } catch (err) {
        const ms = Math.round(performance.now() - start);
        const code = err instanceof RocketMQError ? err.code : 'ERROR';
        process.stdout.write(`F ${seq} ${ms} ${code} ${oneLine(String(err))}\n`);
      }
    },
  );
  process.once('SIGTERM', () => pacer.stop());
  await pacer.run();
  const delayMs = Math.round(loopDelay.max / 1e6);
  process.stdout.write(`done ${pacer.issued} ${pacer.skipped} ${delayMs}\n`);
  await producer.shutdown();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos producer: ${String(err)}\n`);
  process.exit(1);
});
