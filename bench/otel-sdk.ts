/**
 * The OpenTelemetry SDK as an application would run it, for `--otel` benchmarks: every span
 * through a BatchSpanProcessor and every metric through a PeriodicExportingMetricReader (1 s),
 * both into exporters that discard, so the figures are the SDK's in-process cost without any
 * network. Loaded by dynamic import only when asked for.
 */
import * as api from '@opentelemetry/api';

export interface BenchOtelSdk {
  uninstall(): Promise<void>;
}

export async function installBenchOtelSdk(): Promise<BenchOtelSdk> {
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { ExportResultCode, W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } =
    await import('@opentelemetry/sdk-metrics');
  const discardSpans = {
    export: (_spans: unknown, done: (r: { code: number }) => void) =>
      done({ code: ExportResultCode.SUCCESS }),
    shutdown: () => Promise.resolve(),
  };
  const discardMetrics = {
    export: (_metrics: unknown, done: (r: { code: number }) => void) =>
      done({ code: ExportResultCode.SUCCESS }),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
  };
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(discardSpans)] });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: discardMetrics, exportIntervalMillis: 1000 })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(tracerProvider);
  api.metrics.setGlobalMeterProvider(meterProvider);
  return {
    async uninstall() {
      api.trace.disable();
      api.metrics.disable();
      api.propagation.disable();
      api.context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
