/**
 * A real Apache RocketMQ cluster for bench/producer.ts `--real <version>`: two brokers and a
 * NameServer on loopback (interop-test/real-cluster.ts, full JIT since we measure), the topic
 * created on both masters, and the brokers' CPU read from /proc so a cell can report the
 * broker side per send as it does for the embedded cluster.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin } from '../src/admin/admin.js';
import { RealCluster } from '../interop-test/real-cluster.js';

export interface RealBench {
  readonly namesrvAddr: string;
  /** Starts a CPU measurement of the broker JVMs. */
  markCpu(): void;
  /** Broker JVMs' CPU (user + system) since `markCpu()`, µs; NaN where /proc is not readable. */
  cpuUsSinceMark(): number;
  stop(): Promise<void>;
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
const TICKS_PER_SECOND = 100;

function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after its closing ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return (ticks * 1e6) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

export async function startRealBench(version: string, topic: string, queues: number): Promise<RealBench> {
  const cluster = await RealCluster.start({ version, quickJit: false });
  try {
    const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    try {
      await admin.createTopic({ topic, readQueues: queues, writeQueues: queues, cluster: 'DefaultCluster' });
      // The brokers register the new topic with the NameServer on their own schedule.
      for (let i = 0; ; i++) {
        const route = await admin.topicRoute(topic).catch(() => undefined);
        if (route !== undefined && route.brokers.length >= cluster.brokers.length) break;
        if (i >= 60) throw new Error(`topic ${topic} is not routed to every broker after 30 s`);
        await sleep(500);
      }
    } finally {
      await admin.close();
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  const pids = cluster.brokers.map((b) => b.pid).filter((p): p is number => p !== undefined);
  const total = (): number => pids.reduce((sum, pid) => sum + processCpuUs(pid), 0);
  let mark = total();
  return {
    namesrvAddr: cluster.namesrvAddr,
    markCpu: () => {
      mark = total();
    },
    cpuUsSinceMark: () => total() - mark,
    stop: () => cluster.stop(),
  };
}
