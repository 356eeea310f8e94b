import { LitePullConsumer, Producer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'quick-start', namesrvAddr });
await producer.start();
await producer.send({ topic: 'QuickStart', body: 'hello' }); // also creates the topic
await producer.shutdown();

const consumer = new LitePullConsumer({
  namesrvAddr,
  consumerGroup: 'qs-pull',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe('QuickStart'); // or assign(queues) for fixed queues
await consumer.start();
for await (const message of consumer) {
  console.log(message.queue, message.queueOffset, message.body.toString());
  break; // or keep polling until shutdown()
}
await consumer.commit(); // also every 5 s by default
await consumer.shutdown();
