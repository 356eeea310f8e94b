import { Producer, TimerNotSupportedError } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const producer = new Producer({ producerGroup: 'reminders', namesrvAddr });
await producer.start();

// delay levels work on every broker: 1 = 1 s, 2 = 5 s, 3 = 10 s … 18 = 2 h
await producer.send({ topic: 'Reminders', body: 'in 1 s', delayTimeLevel: 1 });

// RocketMQ 5: a delivery time (at most the broker's timerMaxDelaySec ahead, 3 days by default)
try {
  const r = await producer.send({ topic: 'Reminders', body: 'in 2 s', deliverAfterMs: 2_000 });
  console.log(r.status, r.msgId);
  await producer.send({ topic: 'Reminders', body: 'at a time', deliverAt: new Date(Date.now() + 5_000) });
} catch (err) {
  // a 4.9 broker would deliver a timer message at once, so the send refuses before writing it
  if (!(err instanceof TimerNotSupportedError)) throw err;
  console.log('this broker has no timer messages:', err.message);
}
await producer.shutdown();
