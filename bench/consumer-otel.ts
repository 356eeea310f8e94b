/**
 * The OpenTelemetry SDK as an application would register it, for the consumer benchmark's
 * `--otel` rows (bench/consumer.ts): a tracer provider with a BatchSpanProcessor whose exporter
 * discards (the spans are built, batched and handed over, as to a real exporter, but not sent),
 * a meter provider whose periodic reader collects every second into a discarding exporter, the
 * AsyncLocalStorage context manager and the W3C propagator. Dev dependencies only.
 */
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/** What the exporters were handed: the benchmark prints it, so a no-op setup would show. */
export const exported = { spans: 0, metricExports: 0 };

class DiscardingSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    exported.spans += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

class DiscardingMetricExporter implements PushMetricExporter {
  export(_metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    exported.metricExports++;
    done({ code: ExportResultCode.SUCCESS });
  }
  selectAggregationTemporality(): AggregationTemporality {
    return AggregationTemporality.CUMULATIVE;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Registers the SDK globally; the returned function flushes and shuts it down. */
export function registerOtelSdk(): () => Promise<void> {
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new DiscardingSpanExporter(), { maxQueueSize: 65_536 })],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new DiscardingMetricExporter(),
        exportIntervalMillis: 1000,
      }),
    ],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(tracerProvider);
  api.metrics.setGlobalMeterProvider(meterProvider);
  return async () => {
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  };
}
