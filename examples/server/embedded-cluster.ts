import { Producer } from 'rocketmq-ts';
import { EmbeddedCluster } from 'rocketmq-ts/server';

// A NameServer and two brokers in this process, on free loopback ports, data in a temp dir.
const cluster = await EmbeddedCluster.start({ brokers: 2, flush: 'sync', faultInjection: true });
const producer = new Producer({ producerGroup: 'PG', namesrvAddr: cluster.namesrvAddr });
await producer.start();
await producer.send({ topic: 'new-topic', body: 'auto-created through TBW102' });

cluster.broker('broker-a').faults.set({ errorCode: 2 }); // SYSTEM_BUSY: sends go to broker-b
console.log((await producer.send({ topic: 'new-topic', body: 'x' })).messageQueue.brokerName);
cluster.broker('broker-a').faults.clear();

await cluster.stopBroker('broker-b', { graceful: false }); // like kill -9
await cluster.startBroker('broker-b'); // same port, same data
await producer.shutdown();
await cluster.stop(); // removes its temporary data directory
