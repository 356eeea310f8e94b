/** CPU time of other processes (a cluster child, real brokers), read from Linux /proc. */
import { readFileSync } from 'node:fs';

/** utime + stime of a process in ms (Linux /proc), NaN elsewhere or when it is gone. */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After "pid (comm) ": state is field 0, utime field 11, stime field 12, in clock ticks (100/s).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Summed CPU ms of `pids` (NaN when any is unreadable). */
export function processesCpuMs(pids: readonly (number | undefined)[]): number {
  return pids.reduce<number>((sum, pid) => sum + processCpuMs(pid), 0);
}
