/**
 * The optional OpenTelemetry API (docs/observability.md §1). `@opentelemetry/api` is an optional
 * peer dependency: when the application has it installed, every client takes its tracer, meter
 * and propagator from the API's globals, which stay no-ops until the application registers an
 * SDK; without it nothing is loaded and the send and consume paths are what they were.
 *
 * Types come from the package at build time only (`import type`); nothing here is part of a
 * public signature, so the published declarations do not need the package either.
 */
import type * as OtelApi from '@opentelemetry/api';
import { requireDependency } from '../../lazy-dependency.js';

export type OpenTelemetryApi = typeof OtelApi;

/** The instrumentation scope's name (`trace.getTracer(name, version)`). */
export const INSTRUMENTATION_NAME = 'rocketmq-ts';
/** The instrumentation scope's version: the package's (a test keeps them equal). */
export const INSTRUMENTATION_VERSION = '0.1.0';

/** `undefined`: not tried yet; `null`: not installed (or unusable), tried once. */
let loaded: OpenTelemetryApi | null | undefined;

/**
 * `@opentelemetry/api` when installed, loaded once; `undefined` when it is not. A broken install
 * counts as absent: telemetry must never stop a client from starting.
 */
export function openTelemetryApi(): OpenTelemetryApi | undefined {
  if (loaded === undefined) {
    try {
      const api = requireDependency<OpenTelemetryApi>('@opentelemetry/api');
      loaded = typeof api.trace?.getTracer === 'function' ? api : null;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** Test hook: forget the loaded API, or pretend it is absent (`null`). */
export function setOpenTelemetryApiForTest(api: OpenTelemetryApi | null | undefined): void {
  loaded = api;
}

/**
 * What one client instruments with. The tracer is the API's proxy, so an SDK registered after
 * the client was built is still used. A meter is not: the global meter provider has no proxy, so
 * `meter()` asks the API each time and callers create their instruments when they start.
 */
export interface ClientTelemetry {
  readonly api: OpenTelemetryApi;
  readonly tracer: OtelApi.Tracer;
  meter(): OtelApi.Meter;
}

/**
 * The telemetry of a client whose `openTelemetry` option is `enabled`: `undefined` when it is
 * off or the API is not installed, so call sites test one field and pay nothing more.
 */
export function clientTelemetry(enabled: boolean): ClientTelemetry | undefined {
  if (!enabled) return undefined;
  const api = openTelemetryApi();
  if (api === undefined) return undefined;
  return {
    api,
    tracer: api.trace.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION),
    meter: () => api.metrics.getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION),
  };
}
