import { Producer, SimpleConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'quick-start', namesrvAddr });
await producer.start();
await producer.send({ topic: 'QuickStart', body: 'hello' }); // also creates the topic
await producer.shutdown();

// POP (RocketMQ 5 brokers): no queue ownership, each message acked on its own
const consumer = new SimpleConsumer({
  namesrvAddr,
  consumerGroup: 'qs-pop',
  subscriptions: { QuickStart: '*' },
});
await consumer.start();
let messages = await consumer.receive(16, 30_000); // invisible to the group for 30 s
while (messages.length === 0) messages = await consumer.receive(16, 30_000);
for (const message of messages) console.log(message.body.toString());
// One BATCH_ACK for the whole batch (AckFailedError names any message not acked);
// a message not acked in time is delivered again.
await consumer.ack(messages);
await consumer.shutdown();
