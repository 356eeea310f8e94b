import { Producer, PushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'quick-start', namesrvAddr });
await producer.start();
await producer.send({ topic: 'QuickStart', body: 'hello' }); // also creates the topic
await producer.shutdown();

const consumer = new PushConsumer({
  namesrvAddr,
  consumerGroup: 'qs-push',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe('QuickStart', '*'); // or a tag expression: 'TagA || TagB'
let consumed!: () => void;
const done = new Promise<void>((resolve) => (consumed = resolve));
await consumer.start(async (message) => {
  console.log(message.topic, message.body.toString()); // a throw redelivers it later
  consumed();
});
await done;
await consumer.shutdown(); // waits for running handlers and commits their offsets
