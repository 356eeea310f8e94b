/** One benchmark cell: N concurrent callers sending for a while; shared by bench/producer.ts and bench/auto-batch.ts. */
import { LatencyHistogram } from '../src/cli/stats.js';

export interface Cell {
  /** Client-process CPU (user + system) per successful send, µs: robust to a busy machine. */
  cpuUsPerMsg: number;
  /** CPU of the cluster child per successful send, µs (NaN without a child). */
  brokerCpuUsPerMsg: number;
  msgsPerSec: number;
  /** Event-loop utilization of this process over the measured phase (0..1). */
  elu: number;
  /** Event-loop utilization of the cluster child over the measured phase (NaN without one). */
  brokerElu: number;
  p50: number;
  p99: number;
  failed: number;
}

export type SendFn = (body: Buffer) => Promise<unknown>;

/** What a cluster child used since its mark: CPU (µs) and, when it tells, its event-loop utilization. */
export interface ClusterUsage {
  cpuUs: number;
  elu?: number;
}

/** Optional CPU accounting of a cluster child: `mark` at the start of recording, `report` after. */
export interface ClusterCpu {
  mark(): void;
  report(): Promise<number | ClusterUsage>;
}

export async function measureCell(
  send: SendFn,
  body: Buffer,
  concurrency: number,
  seconds: number,
  warmupSeconds: number,
  clusterCpu?: ClusterCpu,
): Promise<Cell> {
  const hist = new LatencyHistogram();
  let ok = 0;
  let failed = 0;
  let recording = false;
  const warmEnd = performance.now() + warmupSeconds * 1000;
  const end = warmEnd + seconds * 1000;
  let measuredStart = warmEnd;
  let cpuStart = process.cpuUsage();
  let eluStart = performance.eventLoopUtilization();
  // One clock read per send: a send's end is the next one's start (the loop between costs
  // nanoseconds), which halves the harness's clock reads without measuring anything less.
  const worker = async (): Promise<void> => {
    let t0 = performance.now();
    for (;;) {
      if (t0 >= end) return;
      if (!recording && t0 >= warmEnd) {
        recording = true;
        measuredStart = t0;
        cpuStart = process.cpuUsage();
        eluStart = performance.eventLoopUtilization();
        clusterCpu?.mark();
      }
      let t1: number;
      try {
        await send(body);
        t1 = performance.now();
        if (recording) {
          hist.record(t1 - t0);
          ok++;
        }
      } catch {
        t1 = performance.now();
        if (recording) failed++;
      }
      t0 = t1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - measuredStart) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const elu = performance.eventLoopUtilization(eluStart).utilization;
  const reported = clusterCpu === undefined ? NaN : await clusterCpu.report();
  const brokerCpu = typeof reported === 'number' ? reported : reported.cpuUs;
  const brokerElu = typeof reported === 'number' ? NaN : (reported.elu ?? NaN);
  return {
    cpuUsPerMsg: ok > 0 ? (cpu.user + cpu.system) / ok : NaN,
    brokerCpuUsPerMsg: ok > 0 ? brokerCpu / ok : NaN,
    msgsPerSec: ok / elapsed,
    elu,
    brokerElu,
    p50: hist.percentile(50),
    p99: hist.percentile(99),
    failed,
  };
}
