import { Producer, SendFailedError, BrokerResponseError, InvalidArgumentError } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'PG', namesrvAddr });

// broker health as the fault-tolerance strategy sees it, and its events
producer.on('brokerIsolated', (e) => console.log('isolated', e.brokerName, e.reason));
producer.on('brokerRecovered', (e) => console.log('recovered', e.brokerName));
await producer.start();

// one message; body: Buffer | Uint8Array | string; the object you pass is never modified
const r = await producer.send({
  topic: 'T',
  body: Buffer.from('hello'),
  tags: 'TagA',
  keys: ['k1', 'k2'], // sent as KEYS "k1 k2"
  properties: { source: 'web' },
  delayTimeLevel: 3, // optional: delivered after 10 s (levels 1s 5s 10s 30s 1m ...)
});
console.log(r.status, r.msgId, r.offsetMsgId, r.messageQueue, r.queueOffset);

// a batch: one topic, one SEND_BATCH_MESSAGE request, each message keeps its own msgId
const batch = await producer.sendBatch([
  { topic: 'T', body: 'a' },
  { topic: 'T', body: 'b' },
]);
console.log(batch.msgId); // "ID1,ID2"

await producer.sendOneway({ topic: 'T', body: 'fire and forget' });

// typed errors: decide with instanceof and err.retriable, never by message text
try {
  await producer.send({ topic: 'bad topic!', body: 'x' });
} catch (err) {
  if (err instanceof InvalidArgumentError)
    console.log(err.field); // 'topic'
  else if (err instanceof SendFailedError)
    console.log(err.attempts); // every attempt: broker, queue, error
  else if (err instanceof BrokerResponseError) console.log(err.responseCode, err.remark);
  else throw err;
}

console.log(producer.brokerHealth());
await producer.shutdown(); // waits for sends in flight (bounded), unregisters, closes sockets
