/**
 * The trace options shared by Producer and PushConsumer (Java `enableMsgTrace`,
 * `customizedTraceTopic`) and the options of the internal producer that sends trace messages
 * (Java `AsyncTraceDispatcher`: group `_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>`,
 * 5000 ms timeout, 128 000-byte messages).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { checkBoolean, checkString } from '../../options.js';
import { DEFAULT_TRACE_TOPIC } from '../../protocol/trace/trace-data.js';
import { checkTopic } from '../../protocol/validation.js';
import type { ProducerOptions } from '../options.js';

export interface TraceOptions {
  enableMsgTrace: boolean;
  customizedTraceTopic: string | undefined;
}

/** Validates the two options (defaults: off, no custom topic); throws naming the field. */
export function resolveTraceOptions(enableMsgTrace: unknown, customizedTraceTopic: unknown): TraceOptions {
  const enabled = checkBoolean('enableMsgTrace', enableMsgTrace ?? false);
  if (customizedTraceTopic === undefined || customizedTraceTopic === '')
    return { enableMsgTrace: enabled, customizedTraceTopic: undefined };
  const topic = checkString('customizedTraceTopic', customizedTraceTopic);
  const problem = checkTopic(topic, 'customizedTraceTopic');
  if (problem !== undefined) throw new InvalidArgumentError('customizedTraceTopic', problem);
  return { enableMsgTrace: enabled, customizedTraceTopic: topic };
}

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
  };
}
