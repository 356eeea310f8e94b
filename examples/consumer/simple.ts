import { Producer, SimpleConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'QuickStartPop';

const producer = new Producer({ producerGroup: 'quick-start-pop-producer', namesrvAddr });
await producer.start();
for (let i = 0; i < 3; i++) await producer.send({ topic, body: `task ${i}`, tags: 'TagA' });
await producer.shutdown();

const consumer = new SimpleConsumer({
  namesrvAddr,
  consumerGroup: 'quick-start-pop',
  subscriptions: { [topic]: 'TagA || TagB' },
  awaitDuration: 5_000, // long polling of one receive, ms
  invisibleDuration: 60_000, // default invisible time of received messages, ms
});
await consumer.start(); // PopNotSupportedError on a 4.x broker: POP needs RocketMQ 5
let acked = 0;
while (acked < 3) {
  for (const m of await consumer.receive(16, 30_000)) {
    console.log(m.body.toString(), m.reconsumeTimes);
    await consumer.ack(m); // or changeInvisibleDuration(m, ms); unacked = redelivered later
    acked++;
  }
}
await consumer.shutdown();
