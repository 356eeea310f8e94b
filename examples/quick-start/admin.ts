import { Admin } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const admin = new Admin({ namesrvAddr }); // mqadmin as a library
const { clusters } = await admin.clusterInfo(); // cluster name → broker names
const cluster = Object.keys(clusters)[0];
await admin.createTopic({ topic: 'QuickStartAdmin', readQueues: 4, writeQueues: 4, cluster });
const { queues } = await admin.topicStats('QuickStartAdmin');
console.log(queues.map((q) => `${q.brokerName}:${q.queueId} ${q.minOffset}..${q.maxOffset}`));
console.log(await admin.consumerGroups()); // every subscription group, with its brokers
await admin.shutdown();
