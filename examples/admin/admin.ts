import { Admin, Producer, PushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const admin = new Admin({ namesrvAddr }); // also mqClientApiTimeout (5000), credentials, tls, logger
const { clusters, brokers } = await admin.clusterInfo();
console.log(
  clusters,
  brokers.map((b) => b.brokerName),
);
const stats = await admin.brokerRuntimeStats('broker-a'); // a broker name (its master) or host:port
console.log(stats.version);

const topic = 'AdminOrders';
await admin.createTopic({ topic, readQueues: 4, writeQueues: 4, perm: 6, cluster: Object.keys(clusters)[0] });
const producer = new Producer({ producerGroup: 'admin-example-producer', namesrvAddr });
await producer.start();
await producer.send({ topic, body: 'paid', keys: 'order-42' });
await producer.shutdown();
const { queues } = await admin.topicStats(topic); // per queue min/max offset, last update
console.log(queues.map((q) => `${q.brokerName}:${q.queueId} ${q.minOffset}..${q.maxOffset}`));

// a consumer group (not the producer group) for the consumer-side calls
const group = 'admin-example-consumer';
const consumer = new PushConsumer({
  namesrvAddr,
  consumerGroup: group,
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic);
let consumed!: () => void;
const done = new Promise<void>((resolve) => (consumed = resolve));
await consumer.start(async () => consumed());
await done;
const progress = await admin.consumerProgress(group, topic); // per queue offsets and lag
console.log('lag', progress.totalLag);
const [found] = await admin.queryMessagesByKey(topic, 'order-42');
const [member] = (await admin.consumerConnections(group)).connections;
if (found && member) await admin.resendMessage(found.msgId, group, member.clientId, topic);
await consumer.shutdown();

// with no member online: move the group back an hour (force: also forwards)
await admin.resetOffsetByTime(group, topic, Date.now() - 3_600_000, true);
await admin.shutdown();
