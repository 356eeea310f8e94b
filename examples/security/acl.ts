import { AccessDeniedError, Producer } from 'rocketmq-ts';
import { EmbeddedCluster } from 'rocketmq-ts/server';

// An embedded cluster whose brokers check ACL 1.0 (Java's plain_acl.yml, here inline).
const cluster = await EmbeddedCluster.start({
  brokers: 1,
  brokerOptions: {
    acl: {
      accounts: [
        {
          accessKey: 'RocketMQ',
          secretKey: '12345678',
          admin: true,
          defaultTopicPerm: 'PUB|SUB',
          defaultGroupPerm: 'PUB|SUB',
        },
        {
          accessKey: 'reader01',
          secretKey: 'reader-secret',
          topicPerms: ['Orders=SUB'],
          defaultGroupPerm: 'SUB',
        },
      ],
    },
  },
});
await cluster.createTopic('Orders');

// Every client takes `credentials` (and `tls`) the same way.
const namesrvAddr = cluster.namesrvAddr;
const producer = new Producer({ namesrvAddr, credentials: { accessKey: 'RocketMQ', secretKey: '12345678' } });
await producer.start();
console.log((await producer.send({ topic: 'Orders', body: 'signed' })).status);
await producer.shutdown();

const reader = new Producer({
  namesrvAddr,
  producerGroup: 'readers',
  credentials: { accessKey: 'reader01', secretKey: 'reader-secret' },
});
await reader.start();
try {
  await reader.send({ topic: 'Orders', body: 'not allowed' });
} catch (err) {
  if (!(err instanceof AccessDeniedError)) throw err;
  console.log('refused:', err.resource, err.permission); // never retried
}
await reader.shutdown();
await cluster.stop();
