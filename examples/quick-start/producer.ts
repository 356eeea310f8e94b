import { Producer } from 'rocketmq-ts';

// "host:port;host:port" or an array (NameServer failover); Java's NAMESRV_ADDR when absent.
const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';

const producer = new Producer({ producerGroup: 'order-service', namesrvAddr });
await producer.start();
const result = await producer.send({
  topic: 'Orders',
  body: JSON.stringify({ id: 42 }),
  tags: 'created',
  keys: 'order-42',
});
console.log(result.status, result.msgId, result.messageQueue);
await producer.shutdown();
