/**
 * One member of the demo's consumer group, in its own process so the demo can really kill it
 * (SIGKILL: no offset commit, no unregister, sockets simply close). Started by
 * `consumer-group.ts` with one JSON argument; prints `ready`, then one line per demo message of
 * its run, `<seq> <brokerName> <queueId> <reconsumeTimes> <queueOffset> <bodyDigest>`, before the
 * handler resolves: stdout
 * is a pipe, and pipe writes are synchronous on Linux, so a message whose offset can be committed
 * has been reported. SIGTERM shuts the consumer down cleanly.
 */
import { PushConsumer } from '../../consumer/index.js';
import { digestOf } from '../chaos/payload.js';

export interface ConsumerProcessArgs {
  namesrvAddr: string;
  topic: string;
  group: string;
  /** Only messages whose `runProperty` equals `runId` are reported (a remote topic is shared). */
  runProperty: string;
  runId: string;
  seqProperty: string;
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' | 'CONSUME_FROM_TIMESTAMP';
  /** yyyyMMddHHmmss, for CONSUME_FROM_TIMESTAMP. */
  consumeTimestamp: string;
  instanceName: string;
  /** Consume orderly (one queue's messages one at a time, in queue order). @default false */
  orderly?: boolean;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as ConsumerProcessArgs;
  const consumer = new PushConsumer({
    namesrvAddr: args.namesrvAddr,
    consumerGroup: args.group,
    consumeFromWhere: args.consumeFromWhere,
    consumeTimestamp: args.consumeTimestamp,
    // The demo topic may only appear with the first send; notice it within a second.
    pollNameServerInterval: 1000,
    instanceName: args.instanceName,
    // A member that leaves is noticed at once (NOTIFY_CONSUMER_IDS_CHANGED); this is the fallback.
    rebalanceInterval: 5000,
    consumeOrderly: args.orderly === true,
  });
  consumer.subscribe(args.topic, '*');
  await consumer.start((m) => {
    if (m.properties[args.runProperty] !== args.runId) return;
    const seq = m.properties[args.seqProperty] ?? '-1';
    process.stdout.write(
      `${seq} ${m.queue.brokerName} ${m.queue.queueId} ${m.reconsumeTimes} ${m.queueOffset} ${digestOf(m.body)}\n`,
    );
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    void consumer.shutdown().finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`demo consumer: ${String(err)}\n`);
  process.exit(1);
});
