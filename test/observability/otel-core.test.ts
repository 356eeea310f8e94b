import { describe, it, afterEach } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  clientTelemetry,
  INSTRUMENTATION_VERSION,
  openTelemetryApi,
  setOpenTelemetryApiForTest,
} from '../../src/observability/otel/api.js';
import { TracerInUse } from '../../src/observability/otel/tracer-in-use.js';
import {
  extractTraceContext,
  PROXY_TRACE_CONTEXT,
  traceContextFields,
} from '../../src/observability/otel/propagation.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('the optional OpenTelemetry API', () => {
  afterEach(() => {
    setOpenTelemetryApiForTest(undefined);
    api.propagation.disable();
  });

  it('tells whether a tracer provider is registered now: not before, yes after, not after disable', () => {
    const tracers = new TracerInUse(api);
    assert.equal(tracers.registered(), false);
    const provider: api.TracerProvider = { getTracer: () => api.trace.getTracer('x') };
    try {
      assert.ok(api.trace.setGlobalTracerProvider(provider));
      assert.equal(tracers.registered(), true, 'one registered after the check was made counts');
    } finally {
      api.trace.disable();
    }
    assert.equal(tracers.registered(), false);
  });

  it('reports the package version as the instrumentation scope version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    assert.equal(INSTRUMENTATION_VERSION, pkg.version);
  });

  it('loads the installed @opentelemetry/api once, and gives no telemetry when the option is off', () => {
    assert.equal(openTelemetryApi()?.trace, api.trace);
    assert.ok(clientTelemetry(true));
    assert.equal(clientTelemetry(false), undefined);
  });

  it('gives no telemetry when the package is absent', () => {
    setOpenTelemetryApiForTest(null);
    assert.equal(clientTelemetry(true), undefined);
  });

  it('writes and reads W3C traceparent/tracestate through the global propagator', () => {
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const parent = api.trace.setSpanContext(api.ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: api.TraceFlags.SAMPLED,
      traceState: api.createTraceState('vendor=1'),
    });
    const fields = traceContextFields(api, parent);
    assert.deepEqual(fields, { traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    const back = extractTraceContext(api, fields);
    assert.equal(back.invalid, undefined);
    assert.equal(api.trace.getSpanContext(back.context)?.traceId, TRACE_ID);
    assert.equal(api.trace.getSpanContext(back.context)?.isRemote, true);
    assert.deepEqual(traceContextFields(api, api.ROOT_CONTEXT), {});
  });

  it("reads the 5.x Proxy's TRACE_CONTEXT when no traceparent is present, and prefers traceparent", () => {
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const viaProxy = extractTraceContext(api, {}, { [PROXY_TRACE_CONTEXT]: TRACEPARENT });
    assert.equal(api.trace.getSpanContext(viaProxy.context)?.spanId, SPAN_ID);
    const other = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
    const both = extractTraceContext(api, { traceparent: other }, { [PROXY_TRACE_CONTEXT]: TRACEPARENT });
    assert.equal(api.trace.getSpanContext(both.context)?.traceId, '1'.repeat(32));
  });

  it('says why a malformed traceparent was not used, and starts from no parent', () => {
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const bad = extractTraceContext(api, { traceparent: '00-zz-not-a-trace' });
    assert.match(bad.invalid ?? '', /malformed traceparent: "00-zz-not-a-trace"/);
    assert.equal(api.trace.getSpanContext(bad.context), undefined);
    assert.equal(extractTraceContext(api, { other: 'x' }).invalid, undefined);
  });
});
