import { Admin, Producer, PushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'Rpc';

// Create the topic before the responder subscribes: a consumer started before a topic exists
// learns its route only at the next route refresh.
const admin = new Admin({ namesrvAddr });
const cluster = Object.keys((await admin.clusterInfo()).clusters)[0];
await admin.createTopic({ topic, cluster });
await admin.shutdown();

// responder: a consumer that replies to each request
const responder = new PushConsumer({
  namesrvAddr,
  consumerGroup: 'rpc-server',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
responder.subscribe(topic);
await responder.start(async (m) => responder.reply(m, `pong:${m.body.toString()}`));

// requester: waits for the reply, RequestTimeoutError when none comes in time
const requester = new Producer({ producerGroup: 'rpc-client', namesrvAddr });
await requester.start();
const reply = await requester.request({ topic, body: 'ping' }, 10_000);
console.log(reply.body.toString()); // pong:ping
await requester.shutdown();
await responder.shutdown();
