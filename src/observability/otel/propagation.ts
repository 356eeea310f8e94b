/**
 * Trace context carried in the message (docs/observability.md §1.2). The OpenTelemetry Java
 * agent's RocketMQ instrumentation writes the global propagator's fields (W3C `traceparent` and
 * `tracestate` by default) as user properties at send and reads them at consume; so do we, each
 * message of a batch with its own. The 5.x Proxy stores a gRPC producer's context in the system
 * property `TRACE_CONTEXT` (a `traceparent` value), read when no `traceparent` is present.
 */
import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { OpenTelemetryApi } from './api.js';

/** W3C trace context's field names, as the Java agent writes them. */
export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';
/** The 5.x Proxy's property for a gRPC producer's trace context (Java `MessageConst.PROPERTY_TRACE_CONTEXT`). */
export const PROXY_TRACE_CONTEXT = 'TRACE_CONTEXT';

type Carrier = Record<string, string>;
type ReadonlyCarrier = Readonly<Record<string, string>>;

const setter: TextMapSetter<Carrier> = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};

/** Reads the user properties, falling back to the Proxy's TRACE_CONTEXT for `traceparent`. */
class PropertiesGetter implements TextMapGetter<ReadonlyCarrier> {
  constructor(private readonly system: ReadonlyCarrier | undefined) {}
  keys(carrier: ReadonlyCarrier): string[] {
    return Object.keys(carrier);
  }
  get(carrier: ReadonlyCarrier, key: string): string | undefined {
    const own = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    if (own !== undefined || key !== TRACEPARENT || this.system === undefined) return own;
    return Object.hasOwn(this.system, PROXY_TRACE_CONTEXT) ? this.system[PROXY_TRACE_CONTEXT] : undefined;
  }
}

/**
 * The fields the global propagator writes for `context` (`traceparent`, `tracestate`, or whatever
 * propagator the application registered); empty when `context` carries no valid span.
 */
export function traceContextFields(api: OpenTelemetryApi, context: Context): Carrier {
  const fields: Carrier = {};
  api.propagation.inject(context, fields, setter);
  return fields;
}

/** What a received message's properties say about its producer's trace. */
export interface ExtractedTraceContext {
  /** The context to start the process span in (the producer's span as remote parent, or none). */
  context: Context;
  /**
   * Why a trace context that was present was not used (a malformed `traceparent`), so the span
   * can record it; `undefined` when it was used or there was none.
   */
  invalid: string | undefined;
}

/** The producer's trace context from a received message's user (and system) properties. */
export function extractTraceContext(
  api: OpenTelemetryApi,
  properties: ReadonlyCarrier,
  systemProperties?: ReadonlyCarrier,
): ExtractedTraceContext {
  const getter = new PropertiesGetter(systemProperties);
  const context = api.propagation.extract(api.ROOT_CONTEXT, properties, getter);
  const carried = getter.get(properties, TRACEPARENT);
  // Only a propagator that reads `traceparent` can find it malformed (an application may use B3).
  if (carried === undefined || !api.propagation.fields().includes(TRACEPARENT))
    return { context, invalid: undefined };
  const span = api.trace.getSpanContext(context);
  const valid = span !== undefined && api.trace.isSpanContextValid(span);
  return {
    context,
    invalid: valid ? undefined : `malformed traceparent: ${JSON.stringify(carried.slice(0, 80))}`,
  };
}
