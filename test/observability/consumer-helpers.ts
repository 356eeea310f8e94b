/**
 * Shared pieces of the consumer OpenTelemetry tests: the real SDK in memory (registered globally,
 * disabled after each test so files do not leak into each other), an embedded cluster and a
 * producer that sends a given trace context as a producer under an agent would.
 */
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { setOpenTelemetryApiForTest } from '../../src/observability/otel/api.js';

export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const SENDER_SPAN_ID = '00f067aa0ba902b7';
export const TRACEPARENT = `00-${TRACE_ID}-${SENDER_SPAN_ID}-01`;

/** A W3C traceparent of trace `traceId` whose sender span is `spanId`. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Sdk {
  exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  /** The data points of metric `name` now. */
  points(name: string): Promise<DataPoint<unknown>[]>;
  close(): Promise<void>;
}

/** Registers the SDK globally: tracer provider, meter provider, context manager, W3C propagator. */
export function registerSdk(): Sdk {
  setOpenTelemetryApiForTest(undefined);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  api.trace.setGlobalTracerProvider(tracerProvider);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  api.metrics.setGlobalMeterProvider(meterProvider);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const out: DataPoint<unknown>[] = [];
      for (const scope of resourceMetrics.scopeMetrics)
        for (const m of scope.metrics)
          if (m.descriptor.name === name) out.push(...(m.dataPoints as DataPoint<unknown>[]));
      return out;
    },
    async close() {
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
      api.metrics.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      contextManager.disable();
      exporter.reset();
    },
  };
}

/** The sum of a counter's points, or of a histogram's counts, matching `labels`. */
export function total(points: DataPoint<unknown>[], labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const p of points) {
    if (!Object.entries(labels).every(([k, v]) => p.attributes[k] === v)) continue;
    const v = p.value;
    sum += typeof v === 'number' ? v : (v as Histogram).count;
  }
  return sum;
}

export interface Bench {
  cluster: EmbeddedCluster;
  producer: Producer;
  close(): Promise<void>;
}

let seq = 0;
export function unique(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now() % 100000}_${seq++}`;
}

/**
 * A cluster and a producer with OpenTelemetry off: the traceparent a test sets in the properties
 * is sent as it is (docs/observability.md §1.2), as a Java producer under the agent would send it.
 */
export async function clusterWithProducer(brokers = 1): Promise<Bench> {
  const cluster = await EmbeddedCluster.start({ brokers });
  const producer = new Producer({
    producerGroup: unique('P'),
    namesrvAddr: cluster.namesrvAddr,
    hedgeSends: false,
    openTelemetry: false,
  });
  await producer.start();
  return {
    cluster,
    producer,
    async close() {
      await producer.shutdown();
      await cluster.stop();
    },
  };
}

/** Polls `cond` every 20 ms until true; throws with `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The finished spans named `name`. */
export function spansNamed(sdk: Sdk, name: string): ReadableSpan[] {
  return sdk.spans().filter((s) => s.name === name);
}
