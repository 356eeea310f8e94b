/**
 * Whether a tracer provider (an SDK) is registered: the sibling of meter-in-use.ts for spans. The
 * global tracer provider is the API's proxy, which delegates to the API's no-op provider until an
 * SDK registers one; a client asks before each send or handler call, since a span started with
 * nothing registered is a no-op that would still cost its attributes and context.
 */
import type { OpenTelemetryApi } from './api.js';

export class TracerInUse {
  /** What the proxy delegates to while nothing is registered. */
  private readonly noop: unknown;

  constructor(private readonly api: OpenTelemetryApi) {
    this.noop = new api.ProxyTracerProvider().getDelegate();
  }

  /**
   * A tracer provider is registered now (one registered after the client started counts). A
   * global provider that is not the API's proxy was set by someone on purpose: in use.
   */
  registered(): boolean {
    const provider = this.api.trace.getTracerProvider() as Partial<{ getDelegate(): unknown }>;
    return typeof provider.getDelegate !== 'function' || provider.getDelegate() !== this.noop;
  }
}
