/** Counts the requests this process writes, by code, from the `rocketmq:request` start events. */
import * as diagnosticsChannel from 'node:diagnostics_channel';
import type { RequestTraceContext } from '../../src/observability/channels.js';

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
