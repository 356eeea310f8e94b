/**
 * The trace topic of Producer and PushConsumer (their `enableMsgTrace` / `customizedTraceTopic`
 * are resolved with the shared client options, client/client-options.ts) and the options of the internal producer that sends trace messages
 * (Java `AsyncTraceDispatcher`: group `_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>`,
 * 5000 ms timeout, 128 000-byte messages).
 */
import type { TraceOptions } from '../../client/client-options.js';
import type { Logger } from '../../observability/logger.js';
import { DEFAULT_TRACE_TOPIC } from '../../protocol/trace/trace-data.js';
import type { ProducerOptions } from '../options.js';

/** The trace topic, or undefined when tracing is off (Java: the custom topic unless blank). */
export function traceTopicOf(o: TraceOptions): string | undefined {
  return o.enableMsgTrace ? (o.customizedTraceTopic ?? DEFAULT_TRACE_TOPIC) : undefined;
}

/** Java's trace producer: one per traced producer or consumer, on its own client instance. */
export function traceProducerOptions(
  kind: 'PRODUCE' | 'CONSUME',
  group: string,
  namesrvAddr: readonly string[],
  logger: Logger,
): ProducerOptions {
  return {
    namesrvAddr,
    producerGroup: `_INNER_TRACE_PRODUCER-${group}-${kind}`,
    instanceName: 'PID_CLIENT_INNER_TRACE_PRODUCER',
    sendMsgTimeout: 5000,
    maxMessageSize: 128_000,
    logger,
    // Its sends are bookkeeping about the application's messages, not the application's:
    // OpenTelemetry spans for them would only double every traced send.
    openTelemetry: false,
  };
}
