import { Producer, QueueSendFailedError } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'order-events', namesrvAddr });
await producer.start();

// One key → one queue, as Java's SelectMessageQueueByHash (Java producers agree on the queue).
const orderId = 'order-42';
for (const step of ['created', 'paid', 'shipped']) {
  const r = await producer.send({ topic: 'OrderEvents', body: step }, { shardingKey: orderId });
  console.log(step, r.messageQueue.brokerName, r.messageQueue.queueId);
}

// Or name the queue, or choose it; `queues` come in Java's order.
const first = await producer.send({ topic: 'OrderEvents', body: 'audit' });
await producer.send({ topic: 'OrderEvents', body: 'same queue' }, { queue: first.messageQueue });
await producer.send({ topic: 'OrderEvents', body: 'chosen' }, { selector: (queues) => queues[0] });

// A selected-queue send makes one attempt: when the queue's broker is down it fails instead of
// moving the key to another queue (which would break its order).
try {
  await producer.send({ topic: 'OrderEvents', body: 'x' }, { shardingKey: orderId });
} catch (err) {
  if (!(err instanceof QueueSendFailedError)) throw err;
  console.log('queue unavailable, order kept:', err.queue, err.cause);
}
await producer.shutdown();
