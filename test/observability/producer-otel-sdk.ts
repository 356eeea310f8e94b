/**
 * The OpenTelemetry SDK in memory for the producer tests: spans kept by an in-memory exporter,
 * metrics read on demand, W3C propagation and an async-hooks context manager, all registered
 * globally and unregistered by `uninstall` so test files do not leak into each other.
 */
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';

/** A reader that collects only when asked. */
class OnDemandReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface OtelSdk {
  spans(): ReadableSpan[];
  reset(): void;
  metric(name: string): MetricData | undefined;
  collect(): Promise<void>;
  uninstall(): Promise<void>;
}

/** Registers tracing (and metrics unless `metrics` is false) globally. */
export function installOtelSdk(metrics = true): OtelSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(tracerProvider);
  const reader = new OnDemandReader();
  const meterProvider = metrics ? new MeterProvider({ readers: [reader] }) : undefined;
  if (meterProvider !== undefined) api.metrics.setGlobalMeterProvider(meterProvider);
  let collected: MetricData[] = [];
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async collect() {
      const { resourceMetrics } = await reader.collect();
      collected = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    },
    metric: (name) => collected.find((m) => m.descriptor.name === name),
    async uninstall() {
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
      api.metrics.disable();
      await tracerProvider.shutdown();
      await meterProvider?.shutdown();
      contextManager.disable();
    },
  };
}

/** The data points of a metric whose attributes include `match`. */
export function pointsOf(
  metric: MetricData | undefined,
  match: Record<string, string>,
): DataPoint<number | Histogram>[] {
  if (metric === undefined) return [];
  return (metric.dataPoints as DataPoint<number | Histogram>[]).filter((p) =>
    Object.entries(match).every(([k, v]) => p.attributes[k] === v),
  );
}

/** `00-<trace>-<span>-01` for a span. */
export function traceparentOf(span: ReadableSpan): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-0${c.traceFlags}`;
}
