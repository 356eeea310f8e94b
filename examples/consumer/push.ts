import { Producer, PushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'QuickStartPush';

// Something to consume (the first send also creates the topic on an auto-creating broker).
const producer = new Producer({ producerGroup: 'quick-start-push-producer', namesrvAddr });
await producer.start();
for (let i = 0; i < 3; i++) await producer.send({ topic, body: `order ${i}`, tags: 'TagA' });
await producer.shutdown();

const consumer = new PushConsumer({
  namesrvAddr,
  consumerGroup: 'quick-start-push',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic, 'TagA || TagB'); // '*' or a tag expression; { sql: 'a > 5' } for SQL92
consumer.on('rebalance', (e) => console.log('queues', e.added.length, 'added', e.removed.length, 'removed'));
let received = 0;
let allReceived!: () => void;
const done = new Promise<void>((resolve) => (allReceived = resolve));
await consumer.start(async (message) => {
  // resolve = consumed; throw, reject or outlive consumeTimeout = delivered again later (retry)
  console.log(message.topic, message.tags, message.body.toString(), message.reconsumeTimes);
  if (++received === 3) allReceived();
});
await done;
console.log(await consumer.lag()); // per queue: brokerOffset, consumerOffset, inFlight, lag
await consumer.shutdown(); // waits for handlers, commits offsets, unregisters
