import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Producer, PushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';

// The application registers an SDK once; every rocketmq-ts client then traces through it.
// (An in-memory exporter here; in production an OTLP exporter to your collector.)
const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const consumer = new PushConsumer({
  consumerGroup: 'otel-example',
  namesrvAddr,
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe('OtelExample', '*');
let consumed!: (traceId: string | undefined) => void;
const handled = new Promise<string | undefined>((resolve) => (consumed = resolve));
// Not awaited yet: the message may arrive before start() has finished its last step, and a
// shutdown() during start() would cancel it (StartCancelledError), so it is awaited before that.
const started = consumer.start((message) => {
  // The handler runs inside the `process` span, which continues the producer's trace.
  consumed(trace.getActiveSpan()?.spanContext().traceId);
  console.log('received', message.body.toString(), 'with traceparent', message.properties.traceparent);
});

const producer = new Producer({ producerGroup: 'otel-example', namesrvAddr });
await producer.start();
await producer.send({ topic: 'OtelExample', body: 'traced' }); // a `send OtelExample` span
const consumedIn = await handled;

const send = spans.getFinishedSpans().find((s) => s.name === 'send OtelExample');
console.log('send span trace', send?.spanContext().traceId, '- process span trace', consumedIn);
if (send === undefined || send.spanContext().traceId !== consumedIn) throw new Error('the trace broke');

await started;
await producer.shutdown();
await consumer.shutdown();
trace.disable();
context.disable();
propagation.disable();
