import { Producer } from 'rocketmq-ts';
import { EmbeddedCluster } from 'rocketmq-ts/server';

// A NameServer and two brokers in this process, on free loopback ports
const cluster = await EmbeddedCluster.start({ brokers: 2 });
const producer = new Producer({ producerGroup: 'quick-start', namesrvAddr: cluster.namesrvAddr });
await producer.start();
console.log(await producer.send({ topic: 'QuickStart', body: 'hello' }));
await producer.shutdown();
await cluster.stop(); // removes its temporary data directory
