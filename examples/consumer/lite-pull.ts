import { LitePullConsumer, Producer, type ConsumerMessage } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'QuickStartLitePull';

const producer = new Producer({ producerGroup: 'quick-start-lite-pull-producer', namesrvAddr });
await producer.start();
for (let i = 0; i < 3; i++) await producer.send({ topic, body: `job ${i}` });
await producer.shutdown();

const consumer = new LitePullConsumer({
  namesrvAddr,
  consumerGroup: 'quick-start-lite-pull',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic); // queues rebalanced in the group, as the push consumer's
await consumer.start();
const messages: ConsumerMessage[] = [];
while (messages.length < 3) messages.push(...(await consumer.poll(1000))); // [] after 1 s idle

// read the first one again: the next poll of its queue starts at its offset
const first = messages[0]!;
await consumer.seek(first.queue, first.queueOffset);
for await (const message of consumer) {
  console.log('again', message.body.toString());
  if (message.msgId === first.msgId) break;
}
await consumer.commit(); // also every 5 s by default (autoCommit)
console.log('committed', await consumer.committed(first.queue));
await consumer.shutdown(); // ends polls and for-await loops, commits, unregisters
