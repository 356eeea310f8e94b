import { tracingChannel } from 'node:diagnostics_channel';
import { Producer, SEND_CHANNEL, consoleLogger } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';

// Every send is a span on the tracing channel rocketmq:send (free while nobody subscribes);
// OpenTelemetry or a metrics library subscribes the same way.
const started = new WeakMap<object, number>();
tracingChannel(SEND_CHANNEL).subscribe({
  start: (context) => void started.set(context, performance.now()),
  end: () => {},
  asyncStart: () => {},
  asyncEnd: (context) => console.log('send took', performance.now() - (started.get(context) ?? 0), 'ms'),
  error: (context) => console.log('send failed', context.error),
});

// Any { debug, info, warn, error } object is a logger; consoleLogger writes to stderr.
const producer = new Producer({ producerGroup: 'observed', namesrvAddr, logger: consoleLogger('rocketmq') });
await producer.start();
await producer.send({ topic: 'Observed', body: 'hello' });
console.log(producer.traceStats()); // undefined unless enableMsgTrace
await producer.shutdown();
