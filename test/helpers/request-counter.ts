/**
 * Counts the requests this process writes, by code, from the `rocketmq:request` start events,
 * and the requests a pool's connections still hold.
 */
import * as diagnosticsChannel from 'node:diagnostics_channel';
import type { RequestTraceContext } from '../../src/observability/channels.js';
import type { Connection } from '../../src/remoting/connection.js';
import type { ConnectionPool } from '../../src/remoting/pool.js';

const START = 'tracing:rocketmq:request:start';

/** Counts requests whose code is in `codes` until `stop()`. */
export function countRequests(codes: Iterable<number>): { count: () => number; stop: () => void } {
  const wanted = new Set(codes);
  let n = 0;
  const onStart = (message: unknown): void => {
    if (wanted.has((message as RequestTraceContext).code)) n++;
  };
  diagnosticsChannel.subscribe(START, onStart);
  return { count: () => n, stop: () => diagnosticsChannel.unsubscribe(START, onStart) };
}

interface PendingTables {
  inFlight: Iterable<[number, { cmd: { code: number } }]>;
  queued: Map<number, { cmd: { code: number } }>;
}

/** Requests (of `code`, or all) written or queued and not settled on the connections of `pool`. */
export function pendingRequests(pool: ConnectionPool, code?: number): number {
  const entries = (pool as unknown as { entries: Map<string, { connection?: Connection }> }).entries;
  let n = 0;
  for (const e of entries.values()) {
    const conn = e.connection as unknown as PendingTables | undefined;
    if (conn === undefined) continue;
    for (const [, p] of conn.inFlight) if (code === undefined || p.cmd.code === code) n++;
    for (const p of conn.queued.values()) if (code === undefined || p.cmd.code === code) n++;
  }
  return n;
}
