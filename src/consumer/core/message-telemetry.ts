/**
 * What the consumers' telemetry (consume-telemetry.ts, docs/observability.md §1.1) reads of a
 * received message: its producer's trace context, its RocketMQ attributes and type, and the
 * `error.type` of a failed call.
 */
import type { Attributes } from '@opentelemetry/api';
import type { OpenTelemetryApi } from '../../observability/otel/api.js';
import {
  ConsumerAttribute,
  MessagingAttribute,
  RocketmqMessageType,
} from '../../observability/otel/attributes.js';
import {
  extractTraceContext,
  PROXY_TRACE_CONTEXT,
  type ExtractedTraceContext,
} from '../../observability/otel/propagation.js';
import { PropertyKey } from '../../protocol/message/properties.js';
import { MessageSysFlag } from '../../protocol/message/sysflag.js';
import type { ConsumerMessage } from './message-view.js';

/** The `error.type` of a failure: the error's class name (low cardinality, as the conventions ask). */
export function errorTypeOf(error: unknown): string {
  if (error instanceof Error) return error.name !== 'Error' ? error.name : error.constructor.name;
  return '_OTHER';
}

/**
 * The producer's context of a received message. The Proxy's TRACE_CONTEXT is not one of the
 * names the decoder files under system properties (protocol/validation.ts), so it is read from
 * the user properties when it is there.
 */
export function producerContextOf(api: OpenTelemetryApi, m: ConsumerMessage): ExtractedTraceContext {
  const user = m.properties;
  return extractTraceContext(api, user, Object.hasOwn(user, PROXY_TRACE_CONTEXT) ? user : m.systemProperties);
}

function messageTypeOf(m: ConsumerMessage): string {
  if (m.messageGroup !== undefined) return RocketmqMessageType.FIFO;
  if ((m.sysFlag & MessageSysFlag.TRANSACTION_PREPARED_TYPE) !== 0 || m.transactionId !== undefined)
    return RocketmqMessageType.TRANSACTION;
  if (m.delayTimeLevel > 0) return RocketmqMessageType.DELAY;
  const system = m.systemProperties;
  if (
    system[PropertyKey.TIMER_DELIVER_MS] !== undefined ||
    system[PropertyKey.START_DELIVER_TIME] !== undefined
  )
    return RocketmqMessageType.DELAY;
  return RocketmqMessageType.NORMAL;
}

/** A message's own span attributes (one-message spans). */
export function messageAttributes(a: Attributes, m: ConsumerMessage): void {
  a[MessagingAttribute.MESSAGE_ID] = m.msgId;
  a[MessagingAttribute.MESSAGE_BODY_SIZE] = m.body.length;
  if (m.tags !== undefined && m.tags !== '') a[MessagingAttribute.ROCKETMQ_MESSAGE_TAG] = m.tags;
  if (m.keys.length > 0) a[MessagingAttribute.ROCKETMQ_MESSAGE_KEYS] = [...m.keys];
  if (m.messageGroup !== undefined) a[MessagingAttribute.ROCKETMQ_MESSAGE_GROUP] = m.messageGroup;
  a[MessagingAttribute.ROCKETMQ_MESSAGE_TYPE] = messageTypeOf(m);
  a[ConsumerAttribute.RECONSUME_TIMES] = m.reconsumeTimes;
  a[ConsumerAttribute.QUEUE_OFFSET] = m.queueOffset;
}
