/**
 * The `rocketmq:send` diagnostics channel (observability/channels.ts): one traced span per
 * `send`, `sendOneway` or `sendBatch` call, its context carrying the result when it resolves.
 * The producer calls this only when the channel has subscribers, so an untraced send costs
 * nothing here.
 */
import { sendChannel } from '../observability/channels.js';
import type { SendResult } from './send-result.js';

/** Context object published on `rocketmq:send`. */
export interface SendTraceContext {
  topic: string;
  producerGroup: string;
  kind: 'send' | 'oneway' | 'batch';
  count: number;
  result?: SendResult | undefined;
  error?: unknown;
}

/** `run()` traced as one `rocketmq:send` span with `ctx`. */
export function tracedSend(
  ctx: SendTraceContext,
  run: () => Promise<SendResult | undefined>,
): Promise<SendResult | undefined> {
  return sendChannel.tracePromise(async () => {
    const r = await run();
    ctx.result = r;
    return r;
  }, ctx);
}
