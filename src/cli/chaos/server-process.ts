/**
 * A NameServer or an embedded broker in its own process, so the chaos run can really kill
 * (SIGKILL) and freeze (SIGSTOP) it. Started by `processes.ts` with one JSON argument; prints
 * `ready <address>` once serving. SIGTERM stops it cleanly. A broker runs with sync flush and
 * fault injection on (latency, drops, errors and the disk-full fault are set over request code
 * 9901), registers every second (so a restarted NameServer learns the routes at once) and creates
 * the chaos topic at start.
 */
import { Broker } from '../../server/broker/broker.js';
import { NameServer } from '../../server/namesrv/namesrv.js';
import { untilSignal } from '../serving.js';

export type ServerProcessArgs =
  | { role: 'namesrv'; port: number }
  | {
      role: 'broker';
      name: string;
      port: number;
      namesrvAddr: string;
      dataDir: string;
      topic: string;
      queues: number;
    };

/** How often a chaos broker registers with the NameServer (Java: 30 s). */
export const CHAOS_REGISTER_PERIOD_MS = 1000;

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as ServerProcessArgs;
  let stop: () => Promise<void>;
  if (args.role === 'namesrv') {
    const namesrv = new NameServer({ listenPort: args.port });
    process.stdout.write(`ready ${await namesrv.start()}\n`);
    stop = () => namesrv.stop();
  } else {
    const broker = new Broker({
      brokerName: args.name,
      listenPort: args.port,
      namesrvAddr: args.namesrvAddr,
      storePathRootDir: args.dataDir,
      flushDiskType: 'SYNC_FLUSH',
      faultInjection: true,
      registerNameServerPeriod: CHAOS_REGISTER_PERIOD_MS,
    });
    await broker.start();
    await broker.createTopic(args.topic, args.queues);
    process.stdout.write(`ready ${broker.address}\n`);
    stop = () => broker.stop();
  }
  await untilSignal();
  await stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos server: ${String(err)}\n`);
  process.exit(1);
});
