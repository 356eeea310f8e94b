import { Admin, Producer, PushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'QuickStartPopPush';
const consumerGroup = 'quick-start-pop-push';

const producer = new Producer({ producerGroup: 'quick-start-pop-push-producer', namesrvAddr });
await producer.start();
for (let i = 0; i < 3; i++) await producer.send({ topic, body: `job ${i}` }); // also creates the topic
await producer.shutdown();

// The group consumes the topic by POP (mqadmin setConsumeMode): every member pops every queue,
// so one slow member holds back only the messages it popped.
const admin = new Admin({ namesrvAddr });
console.log('set on', await admin.setMessageRequestMode(topic, consumerGroup, 'POP', 0));
await admin.shutdown();

const consumer = new PushConsumer({
  namesrvAddr,
  consumerGroup,
  clientRebalance: false, // the broker assigns the queues, and says POP or PULL
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  popInvisibleTime: 30_000, // a popped message is redelivered if not acked within 30 s
});
consumer.subscribe(topic);
let received = 0;
let allReceived!: () => void;
const done = new Promise<void>((resolve) => (allReceived = resolve));
await consumer.start(async (message) => {
  // resolve = acked; throw = redelivered after 10 s, 30 s, 1 min, … (DLQ after maxReconsumeTimes)
  console.log(message.body.toString(), 'delivery', message.reconsumeTimes + 1);
  if (++received === 3) allReceived();
});
await done;
await consumer.shutdown(); // waits for running handlers and their acks
