/**
 * `diagnostics_channel` tracing (names follow undici's `undici:request:*` style). OpenTelemetry
 * or any tool can subscribe; publishers check `hasSubscribers` first so an unobserved
 * process pays one property read per event.
 *
 * `rocketmq:request` is a TracingChannel: its sub-channels are `tracing:rocketmq:request:start`,
 * `:end`, `:asyncStart`, `:asyncEnd` and `:error`. The context object is a `RequestTraceContext`;
 * the same object travels through all events of one request, with `response` or `error` added.
 */
import * as diagnosticsChannel from 'node:diagnostics_channel';
import type { RemotingCommand } from '../protocol/command.js';

export const REQUEST_CHANNEL = 'rocketmq:request';
export const SEND_CHANNEL = 'rocketmq:send';

export interface RequestTraceContext {
  address: string;
  code: number;
  opaque: number;
  oneway: boolean;
  response?: RemotingCommand;
  error?: unknown;
}

export const requestChannel = diagnosticsChannel.tracingChannel<RequestTraceContext>(REQUEST_CHANNEL);

/** Tracing channel for the producer's `send` (context defined by the producer). */
export const sendChannel = diagnosticsChannel.tracingChannel<object>(SEND_CHANNEL);

/** True when anybody listens to any event of `channel` (Node 20.13 has no `TracingChannel.hasSubscribers`). */
export function tracingHasSubscribers(channel: diagnosticsChannel.TracingChannel<unknown, object>): boolean {
  return (
    channel.start.hasSubscribers ||
    channel.end.hasSubscribers ||
    channel.asyncStart.hasSubscribers ||
    channel.asyncEnd.hasSubscribers ||
    channel.error.hasSubscribers
  );
}

export const CONSUME_CHANNEL = 'rocketmq:consume';

/** Tracing channel for each consumer handler call (context defined by the consumer). */
export const consumeChannel = diagnosticsChannel.tracingChannel<object>(CONSUME_CHANNEL);
