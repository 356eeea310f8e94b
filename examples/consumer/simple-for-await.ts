import { Producer, SimpleConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'QuickStartPopLoop';

const producer = new Producer({ producerGroup: 'quick-start-pop-loop-producer', namesrvAddr });
await producer.start();
for (let i = 0; i < 3; i++) await producer.send({ topic, body: `job ${i}` });
await producer.shutdown();

const consumer = new SimpleConsumer({
  namesrvAddr,
  consumerGroup: 'quick-start-pop-loop',
  subscriptions: { [topic]: '*' },
});
await consumer.start();
let handled = 0;
// Each message is acked when the loop asks for the next one; the one a loop breaks or throws
// on is not acked, so it comes back after its invisible time.
for await (const message of consumer.messages({ maxMessages: 16, invisibleDurationMs: 30_000 })) {
  console.log('handled', message.body.toString());
  if (++handled === 3) {
    await consumer.ack(message); // the last one: acked here, since the loop ends on it
    break;
  }
}
await consumer.shutdown();
