import { AbortError, Producer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';

const producer = new Producer({ producerGroup: 'abort-example', namesrvAddr });
await producer.start();

// Every call that waits takes { signal }: here the caller gives up on a send after 2 s.
const result = await producer.send(
  { topic: 'AbortExample', body: 'on time' },
  { signal: AbortSignal.timeout(2_000) },
);
console.log('sent', result.msgId);

// A signal that is already aborted: the send rejects at once and nothing goes on the wire.
const controller = new AbortController();
controller.abort();
try {
  await producer.send({ topic: 'AbortExample', body: 'never sent' }, { signal: controller.signal });
} catch (err) {
  if (!(err instanceof AbortError)) throw err;
  console.log('aborted:', err.code); // ABORT_ERR, the same code as Node's own AbortError
}
await producer.shutdown();
