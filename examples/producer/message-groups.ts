import { InvalidArgumentError, Producer, SimpleConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'fifo-orders', namesrvAddr });
await producer.start();

// A message group: __SHARDINGKEY on the wire, one queue per group (Java's hash), so a FIFO topic
// behind a 5.x Proxy accepts it and an orderly consumer sees the group in send order.
for (const step of ['created', 'paid', 'shipped']) {
  const r = await producer.send({ topic: 'FifoOrders', body: step, messageGroup: 'order-42' });
  console.log(step, r.messageQueue.brokerName, r.messageQueue.queueId);
}

// A priority (5.4+): the broker stores it in queue min(priority, writeQueueNums - 1).
const urgent = await producer.send({ topic: 'Tickets', body: 'outage', priority: 3 });
console.log('priority 3 stored in queue', urgent.messageQueue.queueId);

// One type per message: a group never goes with a priority, a delay or a transaction.
try {
  await producer.send({ topic: 'FifoOrders', body: 'x', messageGroup: 'order-42', deliverAfterMs: 1000 });
} catch (err) {
  if (!(err instanceof InvalidArgumentError)) throw err;
  console.log('refused before sending:', err.message);
}
await producer.shutdown();

// An orderly POP consumer: a queue's next message comes only after the previous one is acked.
const consumer = new SimpleConsumer({
  namesrvAddr,
  consumerGroup: 'fifo-orders-readers',
  subscriptions: { FifoOrders: '*' },
  fifo: true,
  awaitDuration: 1000,
});
await consumer.start();
for (let got = 0; got < 3;) {
  for (const m of await consumer.receive(1)) {
    console.log('received', m.messageGroup, m.body.toString());
    await consumer.ack(m);
    got++;
  }
}
await consumer.shutdown();
