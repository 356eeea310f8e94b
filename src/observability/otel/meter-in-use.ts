/**
 * Whether a meter records anything. Without a registered meter provider the API hands out its
 * no-op meter, whose instruments drop every value; a client that knows this at start skips
 * building the attributes of every measurement (the send path with the package installed but
 * no SDK must cost what it cost before, docs/observability.md §2).
 */
import type { Meter } from '@opentelemetry/api';
import type { OpenTelemetryApi } from './api.js';

/** `false` for the API's no-op meter (no SDK registered when it was asked for). */
export function meterRecords(api: OpenTelemetryApi, meter: Meter): boolean {
  const noop = api.createNoopMeter();
  return meter !== noop && Object.getPrototypeOf(meter) !== Object.getPrototypeOf(noop);
}
